"""The violation page reads top down: the summary, the context with the dealer and whose fault,
the review form, then the raw record folded; whose fault is recorded from the page."""

import datetime as dt

from django.urls import reverse

from pit.compliance.models import RuleViolation
from pit.dealers.models import ViolationFault
from pit.dealers.services import dealer_create, dealer_rotate
from tests.admin.conftest import PASSWORD


def _page(client, violation):
    return client.get(reverse("admin:compliance_ruleviolation_change", args=[violation.pk])).content.decode()


def test_context_and_review_come_before_the_raw_fields_which_are_folded(pit, violation, pit_boss, client):
    client.login(username=pit_boss.username, password=PASSWORD)
    page = _page(client, violation)
    summary, context, review, fault, raw = (
        page.index('id="pit-summary"'),
        page.index('id="pit-in-context"'),
        page.index('id="pit-review"'),
        page.index('id="pit-fault-form"'),
        page.index("The record, field by field"),
    )
    assert summary < context < review < fault < raw
    assert "<details" in page[raw - 400 : raw]
    assert 'id="pit-fault">not yet said<' in page


def test_the_dealer_at_the_coup_and_whose_fault_are_on_the_page(pit, violation, pit_boss, client):
    dealer = dealer_create(code="D042", name="Ana Silva")
    dealer_rotate(table=pit.bb1, dealer=dealer, started_at=violation.coup.dealt_at - dt.timedelta(minutes=5))
    client.login(username=pit_boss.username, password=PASSWORD)
    response = client.post(
        reverse("admin:compliance_ruleviolation_fault", args=[violation.pk]),
        {"fault": "dealer", "note": "Drew the third card on a natural."},
    )
    assert response.status_code == 302
    fault = ViolationFault.objects.get(violation=violation)
    note = "Drew the third card on a natural."
    assert (fault.fault, fault.note, fault.decided_by_id) == ("dealer", note, pit_boss.pk)
    page = _page(client, violation)
    assert "D042 Ana Silva" in page
    assert 'id="pit-fault">Dealer error<' in page


def test_whose_fault_needs_a_note_and_the_permission(pit, violation, accountant, pit_boss, client):
    client.login(username=pit_boss.username, password=PASSWORD)
    client.post(reverse("admin:compliance_ruleviolation_fault", args=[violation.pk]), {"fault": "dealer", "note": ""})
    client.login(username=accountant.username, password=PASSWORD)
    refused = client.post(
        reverse("admin:compliance_ruleviolation_fault", args=[violation.pk]), {"fault": "dealer", "note": "mine"}
    )
    assert refused.status_code == 403
    assert 'id="pit-fault-form"' not in _page(client, violation)
    assert not ViolationFault.objects.exists()


def test_where_comes_before_the_message_in_the_list(pit, admin_client):
    assert RuleViolation.objects.exists()
    html = admin_client.get(reverse("admin:compliance_ruleviolation_changelist")).content.decode()
    header = html[html.index('id="result_list"') :]
    assert header.index("column-where") < header.index("column-short_message")
