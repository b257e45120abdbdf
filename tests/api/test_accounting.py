"""Table accounting over the API: tray counts, fills and credits (cage scope), drops (count-room
scope), the day's statutory win; who may call what, and bad input that writes nothing."""

import datetime as dt
from types import SimpleNamespace

import pytest

from pit.accounting.models import DeviceGrant, DropCount, InventoryCount, Slip, SlipStep
from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from tests.api.conftest import _device_client, _staff_client

pytestmark = pytest.mark.django_db

DAY = "2026-11-20"
FILL = {"25.00": 40, "100.00": 20}


@pytest.fixture
def dealer(db):
    return user_create_with_role(username="dana", password="a-long-password-123", role="pit boss")


@pytest.fixture
def cage(db):
    return _staff_client("cage", "cashier")


@pytest.fixture
def cage_device(other_table):
    client = _device_client(other_table, "cage terminal")
    DeviceGrant.objects.create(device=client.device, scope="cage")
    return client


@pytest.fixture
def count_room(other_table):
    client = _device_client(other_table, "count room")
    DeviceGrant.objects.create(device=client.device, scope="count_room")
    return client


def inventory(client, kind="opener", chips=None, code="BB1"):
    body = {
        "gaming_day": DAY,
        "kind": kind,
        "chips": chips or {"25.00": 40, "100.00": 30},
        "dealer": "dana",
        "dealer_password": "a-long-password-123",
        "pit_boss": "boss",
    }
    return client.post(f"/api/v1/accounting/tables/{code}/inventory/", body, format="json")


def request_fill(client, number="F-1", chips=FILL):
    body = {"kind": "fill", "number": number, "table": "BB1", "gaming_day": DAY, "reason": "tray low", "chips": chips}
    return client.post("/api/v1/accounting/slips/", body, format="json")


def test_pit_boss_records_the_opener(pit_boss, table, dealer):
    response = inventory(pit_boss)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["total"], body["chips"], body["dealer"], body["pit_boss"]) == (
        "4000.00",
        {"25.00": 40, "100.00": 30},
        "dana",
        "boss",
    )
    assert InventoryCount.objects.get().total_minor == 400000


def test_bad_inventory_names_the_field_and_writes_nothing(pit_boss, table, dealer):
    for body_change, field in (
        ({"chips": {"25.001": 4}}, "chips"),
        ({"chips": {"25.00": -1}}, "chips"),
        ({"dealer": "nobody"}, "dealer"),
        ({"kind": "middle"}, "kind"),
        ({"colour": "red"}, "colour"),
        # Numbers and days are ASCII only: other digits are refused, never read as numbers.
        ({"chips": {"２５.00": 4}}, "chips"),
        ({"chips": {"25.00": "٣"}}, "chips"),
        ({"gaming_day": "２０２６-11-20"}, "gaming_day"),
        ({"shift": "٢"}, "shift"),
    ):
        body = {"gaming_day": DAY, "kind": "opener", "chips": {"25.00": 4}, "dealer": "dana", "pit_boss": "boss"}
        body.update(body_change)
        response = pit_boss.post("/api/v1/accounting/tables/BB1/inventory/", body, format="json")
        assert response.status_code == 400, body
        assert field in str(response.json()["errors"]), response.json()
    assert not InventoryCount.objects.exists()


def test_a_fill_from_request_to_receipt_with_the_cage_device(pit_boss, device, cage_device, table, dealer):
    assert request_fill(device).status_code == 201  # the table's own terminal requests
    issued = cage_device.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL}, format="json")
    assert issued.status_code == 201, issued.json()
    received = device.post(
        "/api/v1/accounting/slips/fill/F-1/receive/", {"chips": {"25.00": 36, "100.00": 20}}, format="json"
    )
    assert received.status_code == 201
    steps = received.json()["steps"]
    assert [(step["step"], step["total"]) for step in steps] == [("issued", "3000.00"), ("received", "2900.00")]
    assert steps[0]["recorded_by"].startswith("device cage terminal")
    assert RuleViolation.objects.get().code == "slip_amount_mismatch"
    listed = cage_device.get(f"/api/v1/accounting/days/{DAY}/slips/").json()
    assert [slip["number"] for slip in listed["slips"]] == ["F-1"]


def test_device_scopes_are_enforced(pit_boss, device, other_device, table, other_table, dealer):
    assert request_fill(pit_boss).status_code == 201
    # A floor device without the cage scope cannot issue, nor list the cage's slips.
    response = device.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL}, format="json")
    assert response.status_code == 403
    assert device.get(f"/api/v1/accounting/days/{DAY}/slips/").status_code == 403
    # Another table's device neither requests nor receives for BB1.
    assert request_fill(other_device, number="F-2").status_code == 403
    drop = {"gaming_day": DAY, "cash": {"100.00": 3}}
    assert device.post("/api/v1/accounting/tables/BB1/drop/", drop, format="json").status_code == 403
    assert pit_boss.post("/api/v1/accounting/tables/BB1/drop/", drop, format="json").status_code == 403
    assert device.get(f"/api/v1/accounting/days/{DAY}/win/").status_code == 403
    assert (Slip.objects.count(), SlipStep.objects.count(), DropCount.objects.count()) == (1, 0, 0)


def test_cage_role_issues_and_pit_boss_may_not(pit_boss, cage, table, dealer):
    request_fill(pit_boss)
    assert pit_boss.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL}, format="json").status_code == 403
    assert cage.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL}, format="json").status_code == 201
    assert cage.post("/api/v1/accounting/slips/fill/F-9/issue/", {"chips": FILL}, format="json").status_code == 404
    assert SlipStep.objects.get().signed_by == cage.user


def test_count_room_posts_the_drop_and_the_day_win_follows(pit_boss, accountant, count_room, table, dealer):
    inventory(pit_boss, "opener", {"25.00": 40, "100.00": 30})  # 4,000
    request_fill(pit_boss)  # 3,000
    accountant_issue = _staff_client("cage", "cage2")
    accountant_issue.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL}, format="json")
    receiver = _staff_client("pit boss", "boss3")  # who requested the fill does not sign for it
    receiver.post("/api/v1/accounting/slips/fill/F-1/receive/", {"chips": FILL}, format="json")
    inventory(pit_boss, "closer", {"25.00": 20, "100.00": 35})  # 4,000
    drop = {"gaming_day": DAY, "cash": {"100.00": 52, "20.00": 5}, "chips": "250.00", "markers": "0.00"}
    response = count_room.post("/api/v1/accounting/tables/BB1/drop/", drop, format="json")
    assert response.status_code == 201, response.json()
    assert (response.json()["cash_total"], response.json()["total"]) == ("5300.00", "5550.00")
    win = accountant.get(f"/api/v1/accounting/days/{DAY}/win/").json()
    # win = drop 5,550 + closer 4,000 + credits 0 - opener 4,000 - fills 3,000 = 2,550; 2,550 / 5,550
    assert win["tables"] == [
        {
            "table": "BB1",
            "currency": "USD",
            "complete": True,
            "opener": "4000.00",
            "closer": "4000.00",
            "fills": "3000.00",
            "credits": "0.00",
            "drop": "5550.00",
            "win": "2550.00",
            "win_to_drop": "45.95",
        }
    ]


def test_money_must_be_strings(count_room, table):
    drop = {"gaming_day": DAY, "cash": {"100.00": 3}, "chips": 250}
    response = count_room.post("/api/v1/accounting/tables/BB1/drop/", drop, format="json")
    assert response.status_code == 400
    assert "chips" in response.json()["errors"]
    assert not DropCount.objects.exists()


def test_day_win_by_shift(accountant, table, dealer, settings):
    from pit.accounts.models import Role
    from tests.accounting.conftest import day_of_play

    settings.PIT_ACCOUNTING_SHIFT_HOURS = 8
    boss = user_create_with_role(username="boss2", password="a-long-password-123", role=Role.PIT_BOSS.value)
    cashier = user_create_with_role(username="cashier2", password="a-long-password-123", role=Role.CAGE.value)
    pit = SimpleNamespace(
        dealer=dealer,
        boss=boss,
        actor=Actor(user=boss),
        cage_actor=Actor(user=cashier),
        table_actor=Actor(user=dealer),
        secrets={"dealer": "a-long-password-123"},
    )
    day = dt.date.fromisoformat(DAY)
    day_of_play(pit, table, day, opener=40, closer=38, drop=5, shift=1)  # 5 + 38 - 40 = 3 chips of $100
    day_of_play(pit, table, day, opener=38, closer=41, drop=0, shift=2)  # 41 - 38 = 3
    shifts = accountant.get(f"/api/v1/accounting/days/{DAY}/win/?by_shift=true").json()["tables"]
    assert [(row["shift"], row["win"], row["win_to_drop"]) for row in shifts] == [
        (1, "300.00", "60.00"),
        (2, "300.00", None),
    ]
    whole = accountant.get(f"/api/v1/accounting/days/{DAY}/win/").json()["tables"]
    assert [(row["win"], row["drop"]) for row in whole] == [("600.00", "500.00")]
    assert accountant.get(f"/api/v1/accounting/days/{DAY}/win/?by_shift=maybe").status_code == 400


def test_a_denomination_in_other_digits_is_refused_by_the_service():
    from django.core.exceptions import ValidationError

    from pit.accounting.services import chips_normalize

    with pytest.raises(ValidationError) as refused:
        chips_normalize({"٢٥٠٠": 4})
    assert list(refused.value.message_dict) == ["chips"]
    assert chips_normalize({"2500": 4}) == ({"2500": 4}, 10000)
