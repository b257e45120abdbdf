"""Tables, shoes, the commission collection and the shuffle through the API."""

import pytest

from pit.ledger.models import CommissionEntry
from pit.shoes.models import Shoe
from pit.tables.models import TableEvent
from tests import factories
from tests.api.conftest import counts, coup_body

pytestmark = pytest.mark.django_db


def test_tables_list_and_detail(device, pit_boss, table, other_table):
    assert [t["code"] for t in pit_boss.get("/api/v1/tables/").json()["results"]] == ["BB1", "BB2"]
    body = device.get("/api/v1/tables/BB1/").json()
    assert body == {
        "code": "BB1",
        "name": "Table BB1",
        "game": "big",
        "seats": table.seats,
        "squeeze": False,
        "status": "open",
        "currency": "USD",
        "paytable": table.paytable_id,
        "limits": [
            {"bet": "banker", "minimum": "25.00", "maximum": "10000.00"},
            {"bet": "player", "minimum": "25.00", "maximum": "10000.00"},
            {"bet": "tie", "minimum": "5.00", "maximum": "1000.00"},
        ],
        "dealing_shoe": None,
    }
    assert pit_boss.get("/api/v1/tables/NOPE/").status_code == 404


def test_a_device_closes_and_opens_its_table(device, table):
    response = device.post("/api/v1/tables/BB1/close/", {"at": "2026-11-29T06:00:00Z"}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "closed"
    event = TableEvent.objects.filter(table=table).order_by("-id").first()
    assert (event.kind, event.recorded_by_device) == ("closed", device.device)
    assert device.post("/api/v1/tables/BB1/open/", format="json").json()["status"] == "open"
    before = counts()
    assert device.post("/api/v1/tables/BB1/open/", format="json").json()["status"] == "open"  # a no-op
    assert counts() == before


def test_a_pit_boss_may_open_a_table_and_is_recorded(pit_boss, table):
    pit_boss.post("/api/v1/tables/BB1/close/", {}, format="json")
    event = TableEvent.objects.filter(table=table).order_by("-id").first()
    assert event.recorded_by_user == pit_boss.user


def test_starting_a_shoe(device, table):
    response = device.post(
        "/api/v1/tables/BB1/shoes/",
        {
            "decks": 8,
            "cut_card_position": 350,
            "burn": ["7H", "KD"],
            "shuffled_at": "2026-11-29T20:00:00Z",
        },
        format="json",
    )
    assert response.status_code == 201
    shoe = Shoe.objects.get()
    assert response.json() == {
        "id": shoe.pk,
        "table": "BB1",
        "sequence": 1,
        "decks": 8,
        "shuffled_at": "2026-11-29T20:00:00Z",
        "cut_card_position": 350,
        "burn": ["7H", "KD"],
        "status": "dealing",
        "closed_at": None,
        "cards_dealt": 0,
        "coups_recorded": 0,
        "cards_left_before_cut": 350,
        "recorded_by": "device shoe reader @ BB1",
    }
    assert device.get("/api/v1/tables/BB1/").json()["dealing_shoe"] == shoe.pk


def test_another_shoe_while_one_is_dealing_is_409_naming_it(device, shoe):
    before = counts()
    response = device.post("/api/v1/tables/BB1/shoes/", {"cut_card_position": 300}, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "status": 409,
        "code": "conflict",
        "message": f"Shoe 1 (id {shoe.pk}) is still dealing at table BB1; close it first.",
        "errors": {},
        "details": {"shoe_id": shoe.pk, "sequence": 1},
    }
    assert counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "cut_card_position"),
        ({"cut_card_position": 300, "decks": 13}, "decks"),
        ({"cut_card_position": 300, "burn": ["XX"]}, "burn"),
        ({"cut_card_position": 6 * 52 + 1, "decks": 6}, "cut_card_position"),
        ({"cut_card_position": 300, "jokers": 2}, "jokers"),
    ],
)
def test_a_malformed_shoe_is_400(device, table, body, field):
    before = counts()
    response = device.post("/api/v1/tables/BB1/shoes/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert counts() == before


def test_collect_and_close_then_the_reconciliation(device, shoe, pit_boss, django_capture_on_commit_callbacks):
    banker = {"seat": 2, "bet": "banker", "amount": "100.00"}
    device.post(
        f"/api/v1/shoes/{shoe.pk}/coups/",
        coup_body(1, ["2H", "3D", "KC"], ["7S", "TD"], wagers=[banker]),
        format="json",
    )
    device.post(
        f"/api/v1/shoes/{shoe.pk}/coups/",
        coup_body(2, ["2H", "3D", "KC"], ["7S", "TD"], wagers=[{**banker, "seat": 3}]),
        format="json",
    )
    response = device.post(f"/api/v1/shoes/{shoe.pk}/seats/2/collect/", {"note": "player left"}, format="json")
    assert response.status_code == 201
    entry = CommissionEntry.objects.get(kind="collected")
    assert response.json() == {
        "shoe": shoe.pk,
        "seat": 2,
        "currency": "USD",
        "collected": "5.00",
        "entry": entry.pk,
    }
    assert entry.recorded_by_device == device.device
    again = device.post(f"/api/v1/shoes/{shoe.pk}/seats/2/collect/", format="json")
    assert again.status_code == 200 and again.json()["collected"] == "0.00" and again.json()["entry"] is None
    assert device.post(f"/api/v1/shoes/{shoe.pk}/seats/4/collect/", format="json").status_code == 400

    dealing = device.get(f"/api/v1/shoes/{shoe.pk}/reconciliation/")
    assert dealing.status_code == 202 and dealing["Retry-After"] == "60"
    assert dealing.json() == {
        "shoe": shoe.pk,
        "status": "dealing",
        "message": f"Shoe {shoe.pk} has no reconciliation yet: it is still dealing; it is reconciled when it is "
        "closed at the shuffle.",
        "retry_after_seconds": 60,
    }
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = device.post(
            f"/api/v1/shoes/{shoe.pk}/close/",
            {"commission_box": [{"seat": 3, "counted": "4.00"}]},
            format="json",
        )
    assert response.status_code == 200 and response.json()["status"] == "closed"
    assert len(callbacks) == 1
    reconciliation = pit_boss.get(f"/api/v1/shoes/{shoe.pk}/reconciliation/").json()  # made after commit
    assert reconciliation["status"] == "variance"
    assert (reconciliation["expected"], reconciliation["counted"], reconciliation["variance"]) == (
        "5.00",
        "4.00",
        "-1.00",
    )
    assert [line["seat"] for line in reconciliation["seats"]] == [2, 3]
    before = counts()
    conflict = device.post(
        f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": [{"seat": 3, "counted": "5.00"}]}, format="json"
    )
    assert conflict.status_code == 409
    assert counts() == before


@pytest.mark.parametrize(
    ("box", "field"),
    [
        ([{"seat": 4, "counted": "1.00"}], "commission_box[0].seat"),
        ([{"seat": 1, "counted": 1.0}], "commission_box[0].counted"),
        ([{"seat": 1, "counted": "-1.00"}], "commission_box[0].counted"),
        ([{"seat": 1, "counted": "1.00"}, {"seat": 1, "counted": "1.00"}], "commission_box[1].seat"),
    ],
)
def test_a_malformed_box_count_is_400_and_the_shoe_stays_open(
    device, shoe, box, field, django_capture_on_commit_callbacks
):
    before = counts()
    with django_capture_on_commit_callbacks() as callbacks:
        response = device.post(f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": box}, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert counts() == before and callbacks == []
    shoe.refresh_from_db()
    assert shoe.status == "dealing"


def test_the_pit_boss_may_not_close_a_shoe_but_reads_it(pit_boss, shoe):
    assert pit_boss.post(f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": []}, format="json").status_code == 403
    assert pit_boss.get(f"/api/v1/shoes/{shoe.pk}/").json()["status"] == "dealing"


def test_a_second_table_keeps_its_own_shoes(other_device, other_table):
    factories.shoe(other_table)
    assert other_device.get("/api/v1/tables/BB2/").json()["dealing_shoe"] is not None


def test_a_queued_reconciliation_is_a_typed_pending_state_and_an_unknown_shoe_a_404(
    device, shoe, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):  # the reconciliation task is not run
        assert (
            device.post(
                f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": [{"seat": 1, "counted": "0.00"}]}, format="json"
            ).status_code
            == 200
        )
    pending = device.get(f"/api/v1/shoes/{shoe.pk}/reconciliation/")
    assert pending.status_code == 202 and pending["Retry-After"] == "2"
    assert pending.json() == {
        "shoe": shoe.pk,
        "status": "pending",
        "message": f"Shoe {shoe.pk} has no reconciliation yet: it was closed and its reconciliation is queued.",
        "retry_after_seconds": 2,
    }
    missing = device.get("/api/v1/shoes/999999/reconciliation/")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"
