"""The audit trail as an auditor reads it: who by name, which record by its name with a link, what
changed field by field (before -> after) in the fields' names; filtered by record and person; CSV;
and the records verification run from the admin through the records service."""

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from pit import game
from pit.accounts.audit import audit_context
from pit.accounts.services import user_create_with_role
from pit.compliance.services import violation_acknowledge, violation_record
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-phrase"
EVENTS = "admin:compliance_ruleviolationauditevent_changelist"


@pytest.fixture
def reviewed():
    boss = user_create_with_role(username="boss", password=PASSWORD, role="pit boss")
    boss.first_name, boss.last_name = "Maria", "Lopes"
    boss.save()
    other = user_create_with_role(username="joe", password=PASSWORD, role="pit boss")
    table = factories.table("BB1")
    first = violation_record(
        finding=game.violation("stale_feed", "no coup for 20 minutes"),
        fingerprint="a",
        table=table,
        gaming_day=dt.date(2026, 11, 29),
        found_by="test",
    )
    second = violation_record(
        finding=game.violation("stale_feed", "no coup for 40 minutes"),
        fingerprint="b",
        table=table,
        gaming_day=dt.date(2026, 11, 29),
        found_by="test",
    )
    with audit_context(user=boss):
        violation_acknowledge(violation=first, user=boss, note="Reader restarted.")
    with audit_context(user=other):
        violation_acknowledge(violation=second, user=other, note="Table closed.")
    auditor = user_create_with_role(username="eve", password=PASSWORD, role="auditor")
    return boss, other, first, second, auditor


def test_the_list_says_who_by_name_which_record_and_what_changed_in_words(reviewed, client):
    boss, other, first, second, auditor = reviewed
    client.force_login(auditor)
    html = client.get(reverse(EVENTS), {"record": first.pk}).content.decode()
    assert "Maria Lopes (boss)" in html
    assert (
        f'href="/admin/compliance/ruleviolation/{first.pk}/change/">rule violation stale_feed on BB1 Table BB1</a>'
        in html
    )
    assert "<li><strong>status</strong>: Open → Acknowledged</li>" in html
    assert "<li><strong>status note</strong>: — → Reader restarted.</li>" in html
    assert "Table closed." not in html  # the other record's event is filtered out
    assert "pgh_context_id" not in html and "user " + str(boss.pk) not in html


def test_the_list_filters_by_person(reviewed, client):
    boss, other, first, second, auditor = reviewed
    client.force_login(auditor)
    html = client.get(reverse(EVENTS), {"person": other.pk}).content.decode()
    assert "Table closed." in html and "Reader restarted." not in html


def test_the_filtered_list_downloads_as_csv_one_row_per_changed_field(reviewed, client):
    boss, other, first, second, auditor = reviewed
    client.force_login(auditor)
    response = client.get(reverse("admin:compliance_ruleviolationauditevent_export"), {"person": boss.pk})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["when", "who", "what", "record type", "record id", "record", "field", "before", "after"]
    changed = {(row[1], row[2], row[4], row[6], row[7], row[8]) for row in rows[1:]}
    assert ("Maria Lopes (boss)", "changed", str(first.pk), "status", "Open", "Acknowledged") in changed
    assert all(row[4] == str(first.pk) for row in rows[1:])


def test_the_list_reads_a_page_in_a_fixed_number_of_queries(reviewed, client, django_assert_num_queries):
    """As many queries for 4 events as for 24: no query per row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    boss, other, first, second, auditor = reviewed
    client.force_login(auditor)
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse(EVENTS)).status_code == 200
    for n in range(10):
        with audit_context(user=boss):
            found = violation_record(
                finding=game.violation("stale_feed", f"silence {n}"),
                fingerprint=f"n{n}",
                table=first.table,
                gaming_day=dt.date(2026, 11, 29),
                found_by="test",
            )
            violation_acknowledge(violation=found, user=boss, note="Seen.")
    with django_assert_num_queries(len(few.captured_queries)):
        assert client.get(reverse(EVENTS)).status_code == 200


def test_the_auditor_verifies_the_records_from_the_admin(reviewed, client):
    boss, other, first, second, auditor = reviewed
    client.force_login(auditor)
    assert client.get(reverse("verify-records")).status_code == 200
    day = dt.date(2026, 11, 29).isoformat()
    response = client.post(reverse("verify-records"), {"first_day": day, "last_day": day})
    assert response.status_code == 200
    assert response.context["result"].ok
    assert "The records hold" in response.content.decode()
    bad = client.post(reverse("verify-records"), {"first_day": day, "last_day": "2026-11-01"})
    assert bad.context["result"] is None and "last_day" in bad.context["form"].errors
    client.force_login(boss)
    assert client.post(reverse("verify-records"), {"first_day": day, "last_day": day}).status_code == 403
