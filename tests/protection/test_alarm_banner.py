"""The dashboard's banner of unreviewed critical alarms, newest first, each linking to its page."""

import datetime as dt

import pytest

from pit import game
from pit.accounts.services import user_create_with_role
from pit.compliance.services import violation_dismiss, violation_record
from tests import factories

pytestmark = pytest.mark.django_db


def _violation(table, code, fingerprint):
    return violation_record(
        finding=game.violation(code, f"{code} at {table.code}"),
        fingerprint=fingerprint,
        table=table,
        gaming_day=dt.date(2026, 11, 29),
        found_by="test",
    )


def test_banner_lists_unreviewed_alarms_newest_first_with_links(client):
    boss = user_create_with_role(username="boss", password="a-long-password-123", role="pit boss")
    client.force_login(boss)
    assert "Unreviewed alarms" not in client.get("/admin/pit/dashboard/").content.decode()

    table = factories.table("BB1")
    older = _violation(table, "box_variance", "a")
    newer = _violation(table, "shoe_sequence_repeat", "b")
    _violation(table, "banker_missing_card", "c")  # not an alarm
    dismissed = _violation(table, "new_deck_order_run", "d")
    violation_dismiss(violation=dismissed, user=boss, note="Test deck on a closed table.")

    html = client.get("/admin/pit/dashboard/").content.decode()
    banner = html.split('class="pd-alarms"', 1)[1].split("</div>", 1)[0]
    assert banner.index(f"/admin/compliance/ruleviolation/{newer.pk}/change/") < banner.index(
        f"/admin/compliance/ruleviolation/{older.pk}/change/"
    )
    assert "shoe_sequence_repeat at BB1" in banner and "box_variance at BB1" in banner
    assert "banker_missing_card" not in banner and "new_deck_order_run" not in banner
