"""The violation page and list in Traditional Chinese: the sentence worded from the violation's code
(pit.compliance.wording), the code as it is, the recorded English kept as the record."""

import datetime as dt

from django.urls import reverse
from django.utils import translation

from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.game import verification
from tests.admin.conftest import PASSWORD
from tests.catalogs import compile_catalogs


def test_the_violation_page_and_list_read_in_chinese_and_the_record_stays_english(pit, violation, pit_boss, client):
    compiled = violation.message
    closed = violation_record(
        finding=verification.play_at_closed_table(3, pit.bb1.code),
        fingerprint="test:closed-table",
        table=pit.bb1,
        gaming_day=dt.date(2026, 11, 2),
        found_by="test",
    )
    client.login(username=pit_boss.username, password=PASSWORD)
    compile_catalogs()
    with translation.override("zh-hant"):
        page = client.get(
            reverse("admin:compliance_ruleviolation_change", args=[closed.pk]), HTTP_ACCEPT_LANGUAGE="zh-hant"
        ).content.decode()
        drawn = client.get(
            reverse("admin:compliance_ruleviolation_change", args=[violation.pk]), HTTP_ACCEPT_LANGUAGE="zh-hant"
        ).content.decode()
        listed = client.get(
            reverse("admin:compliance_ruleviolation_changelist"), HTTP_ACCEPT_LANGUAGE="zh-hant"
        ).content.decode()
    summary = page[page.index('id="pit-summary"') : page.index("</p>", page.index('id="pit-summary"'))]
    assert f"第 3 局在賭枱 {pit.bb1.code} 關閉時登記。" in summary
    assert "<strong>play_at_closed_table</strong>" in summary  # the code as it is
    assert "賭枱關閉時仍登記該局" in page  # the rule: the code's title
    assert "Coup 3 was posted" not in summary
    # The banker drew on a natural: its sentence, worded with the card and the total.
    assert "天牌" in drawn and "莊家" in drawn
    assert f"第 3 局在賭枱 {pit.bb1.code} 關閉時登記。" in listed
    # The record keeps the engine's English.
    assert (
        RuleViolation.objects.get(pk=closed.pk).message == f"Coup 3 was posted while table {pit.bb1.code} was closed."
    )
    assert RuleViolation.objects.get(pk=violation.pk).message == compiled
