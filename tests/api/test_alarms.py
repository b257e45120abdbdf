"""GET /api/v1/alarms/: unreviewed critical alarms, newest first, for floor systems and surveillance."""

import datetime as dt

import pytest

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_acknowledge, violation_record, violations_clear_missing

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 29)


def _violation(table, code, fingerprint, day=DAY):
    return violation_record(
        finding=game.violation(code, f"{code} happened"),
        fingerprint=fingerprint,
        table=table,
        gaming_day=day,
        found_by="test",
    )


@pytest.fixture
def alarms(table, other_table, pit_boss):
    made = {
        "repeat": _violation(table, "shoe_sequence_repeat", "a"),
        "box": _violation(other_table, "box_variance", "b", DAY - dt.timedelta(days=1)),
        "run": _violation(table, "new_deck_order_run", "c"),
        # Not alarms: a dealer's draw error, a reviewed alarm, a cleared one.
        "draw": _violation(table, "banker_missing_card", "d"),
        "reviewed": _violation(table, "shoe_sequence_repeat", "e"),
        "cleared": _violation(other_table, "box_variance", "f"),
    }
    violation_acknowledge(violation=made["reviewed"], user=pit_boss.user, note="Looked at the tapes.")
    violations_clear_missing(
        scope=RuleViolation.objects.filter(fingerprint="f"), found_by="test", fingerprints_found=set()
    )
    return made


def ids(client, query=""):
    response = client.get(f"/api/v1/alarms/{query}")
    assert response.status_code == 200, response.content
    return [alarm["id"] for alarm in response.json()["results"]]


def test_open_holding_alarms_newest_first(pit_boss, alarms):
    assert ids(pit_boss) == [alarms["run"].pk, alarms["box"].pk, alarms["repeat"].pk]
    first = pit_boss.get("/api/v1/alarms/").json()["results"][0]
    assert (first["code"], first["table"], first["status"], first["severity"]) == (
        "new_deck_order_run",
        "BB1",
        "open",
        "high",
    )


def test_filters(pit_boss, alarms):
    assert ids(pit_boss, "?table=BB2") == [alarms["box"].pk]
    assert ids(pit_boss, "?code=shoe_sequence_repeat") == [alarms["repeat"].pk]
    assert ids(pit_boss, f"?gaming_day={DAY - dt.timedelta(days=1)}") == [alarms["box"].pk]
    since = alarms["run"].found_at.isoformat()
    assert ids(pit_boss, f"?since={since.replace('+', '%2B')}") == [alarms["run"].pk]


def test_a_bad_filter_is_a_400_naming_it(pit_boss, alarms):
    response = pit_boss.get("/api/v1/alarms/?code=banker_missing_card")
    assert response.status_code == 400
    assert "code" in response.content.decode()
    response = pit_boss.get("/api/v1/alarms/?since=yesterday")
    assert response.status_code == 400
    assert "since" in response.content.decode()


def test_a_device_reads_its_own_tables_alarms_only(device, other_device, alarms):
    assert ids(device) == [alarms["run"].pk, alarms["repeat"].pk]
    assert ids(other_device) == [alarms["box"].pk]


def test_read_scope_only(anonymous, accountant, device, alarms):
    assert anonymous.get("/api/v1/alarms/").status_code == 401
    assert device.post("/api/v1/alarms/", {}, format="json").status_code in (403, 405)
