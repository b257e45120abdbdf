"""Violations for pit bosses (list, filters, review) and paytables with their exact odds."""

import datetime as dt

import pytest

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from tests import factories
from tests.api.conftest import counts

pytestmark = pytest.mark.django_db


def _violation(table, code="banker_missing_card", day=dt.date(2026, 11, 29), fingerprint="f1"):
    finding = game.violation(code, f"{code} happened")
    return violation_record(finding=finding, fingerprint=fingerprint, table=table, gaming_day=day, found_by="test")


@pytest.fixture
def violations(table, other_table):
    return [
        _violation(table, "banker_missing_card", dt.date(2026, 11, 28), "a"),
        _violation(table, "payout_mismatch", dt.date(2026, 11, 29), "b"),
        _violation(other_table, "banker_missing_card", dt.date(2026, 11, 29), "c"),
    ]


def test_violations_list_and_filters(pit_boss, violations):
    def codes(query=""):
        return sorted((v["table"], v["code"]) for v in pit_boss.get(f"/api/v1/violations/{query}").json()["results"])

    assert len(codes()) == 3
    assert codes("?table=BB2") == [("BB2", "banker_missing_card")]
    assert codes("?gaming_day=2026-11-28") == [("BB1", "banker_missing_card")]
    assert codes("?code=payout_mismatch") == [("BB1", "payout_mismatch")]
    assert codes("?status=open&table=BB1") == [("BB1", "banker_missing_card"), ("BB1", "payout_mismatch")]
    assert codes("?status=resolved") == []
    bad = pit_boss.get("/api/v1/violations/?status=sleeping")
    assert bad.status_code == 400 and "status" in bad.json()["errors"]


def test_a_pit_boss_acknowledges_then_resolves(pit_boss, violations):
    violation = violations[0]
    response = pit_boss.post(f"/api/v1/violations/{violation.pk}/acknowledge/", {"note": "seen it"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["status_note"], body["status_changed_by"]) == (
        "acknowledged",
        "seen it",
        "boss",
    )
    response = pit_boss.post(f"/api/v1/violations/{violation.pk}/resolve/", {"note": "dealer retrained"}, format="json")
    assert response.json()["status"] == "resolved"
    violation.refresh_from_db()
    assert (violation.status, violation.status_changed_by) == ("resolved", pit_boss.user)


def test_review_errors_write_nothing(pit_boss, accountant, auditor, violations):
    violation = violations[0]
    before = counts()
    for client, body, status in [
        (pit_boss, {"note": "  "}, 400),
        (pit_boss, {}, 400),
        (pit_boss, {"note": "x", "status": "resolved"}, 400),
        (accountant, {"note": "x"}, 403),
        (auditor, {"note": "x"}, 403),
    ]:
        response = client.post(f"/api/v1/violations/{violation.pk}/acknowledge/", body, format="json")
        assert response.status_code == status, (body, response.content)
    assert pit_boss.post("/api/v1/violations/999999/resolve/", {"note": "x"}, format="json").status_code == 404
    pit_boss.post(f"/api/v1/violations/{violation.pk}/resolve/", {"note": "done"}, format="json")
    response = pit_boss.post(f"/api/v1/violations/{violation.pk}/acknowledge/", {"note": "again"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"status": ["A violation that is resolved cannot be marked acknowledged."]}
    assert counts() == before
    assert RuleViolation.objects.get(pk=violation.pk).status == "resolved"


def test_paytables_and_exact_odds(pit_boss, device, table):
    paytable = table.paytable
    listed = pit_boss.get("/api/v1/paytables/").json()["results"]
    assert [(p["id"], p["code"], p["version"]) for p in listed] == [(paytable.pk, "commission-box", 1)]
    assert listed[0]["house_edges"] == paytable.house_edges
    body = device.get(f"/api/v1/paytables/{paytable.pk}/odds/?decks=8").json()
    assert (body["paytable"], body["decks"], body["cards"]) == (paytable.pk, 8, 416)
    bets = {bet["bet"]: bet for bet in body["bets"]}
    assert bets["banker"]["house_edge"] == "0.010579057842"
    assert bets["player"]["house_edge"] == "0.012350813289"
    assert bets["tie"]["house_edge"] == "0.143596287787"
    assert {o["result"]: o["net"] for o in bets["tie"]["outcomes"]} == {"win": "8", "lose": "-1"}
    six = device.get(f"/api/v1/paytables/{paytable.pk}/odds/?decks=6").json()
    assert six["cards"] == 312 and six["bets"][0]["house_edge"] != body["bets"][0]["house_edge"]
    for decks in ("0", "13", "x", "-1"):
        response = device.get(f"/api/v1/paytables/{paytable.pk}/odds/?decks={decks}")
        assert response.status_code == 400 and "decks" in response.json()["errors"]
    assert pit_boss.get("/api/v1/paytables/999999/odds/").status_code == 404


def test_a_device_reads_only_its_tables_paytable(device, table):
    other = factories.paytable("no_commission")
    assert [p["id"] for p in device.get("/api/v1/paytables/").json()["results"]] == [table.paytable_id]
    assert device.get(f"/api/v1/paytables/{other.pk}/odds/").status_code == 403
