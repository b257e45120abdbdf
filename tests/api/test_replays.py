"""Replays that are replays (issue 28 item 7), enumerated from the schema: every POST operation
declares its kind (pit/api/replays.py), and every POST of a recorded fact answers as the coup POST
does: 201, then 200 with the same record for the same post (nothing written), then a 409 naming the
changed field for a post that changes it (nothing written)."""

from dataclasses import dataclass, field

import pytest

from pit.api.replays import PostKind
from tests.api.conftest import coup_body
from tests.api.operations import DAY, Floor, build_floor, operations, recent, rows, view_class

pytestmark = pytest.mark.django_db

CHIPS = {"25.00": 40}


def _close_the_shoe(floor: Floor) -> None:
    body = {"commission_box": [{"seat": 1, "counted": "0.00"}]}
    assert floor.client.post(f"/api/v1/shoes/{floor.shoe_id}/close/", body, format="json").status_code == 200


def _issue_the_slip(floor: Floor) -> None:
    assert floor.client.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": CHIPS}, format="json").status_code
    assert floor.client.get("/api/v1/accounting/days/2026-11-20/slips/").json()["slips"][0]["steps"]


SAT_AT = recent(120)
SEATS = "/api/v1/tables/{code}/seats"


def _seat_a_player(floor: Floor) -> None:
    body = {"seat": 1, "at": SAT_AT, "description": "man, grey suit"}
    assert floor.client.post(f"{SEATS}/sit/".format(code="BB1"), body, format="json").status_code == 201


def _seat_a_player_on_a_break(floor: Floor) -> None:
    _seat_a_player(floor)
    body = {"seat": 1, "at": recent(90)}
    assert floor.client.post(f"{SEATS}/pause/".format(code="BB1"), body, format="json").status_code == 201


def _seat_a_patron_unrated(floor: Floor) -> None:
    """An unrated player at seat 1, to be identified as patron 100234 (on the floor) or 100235."""
    from pit.players.models import Tier
    from pit.players.services import patron_enrol

    patron_enrol(card_number="100235", name="Ana Lopes", tier=Tier.objects.get(code="gold"), nationality="PT")
    _seat_a_player(floor)


@dataclass
class Scenario:
    body: dict
    changes: list[tuple[str, object]]  # (field, another value): each a 409 naming the field
    same: list[tuple[str, object]] = field(default_factory=list)  # written otherwise, read the same: a 200
    setup: object = None
    # What a 409 may still write: a coup posted differently records a violation for the pit boss.
    conflict_writes: frozenset[str] = frozenset()
    revision: list[tuple[str, object]] = field(default_factory=list)  # a new version that stands: a 201


SCENARIOS = {
    "/api/v1/accounting/tables/{code}/inventory/": Scenario(
        body={"gaming_day": DAY, "kind": "opener", "chips": CHIPS, "dealer": "dana", "pit_boss": "boss"},
        changes=[("chips", {"25.00": 41}), ("pit_boss", "root"), ("dealer", "root")],
        same=[("chips", {"25": 40})],
    ),
    "/api/v1/accounting/slips/": Scenario(
        body={"kind": "fill", "number": "F-2", "table": "BB1", "gaming_day": DAY, "reason": "low", "chips": CHIPS},
        changes=[("reason", "the tray is low on 25s"), ("chips", {"25.00": 4}), ("shift", 2)],
        same=[("reason", "  low  ")],
    ),
    "/api/v1/accounting/slips/{kind}/{number}/issue/": Scenario(
        body={"chips": CHIPS}, changes=[("chips", {"25.00": 39}), ("signed_by", "dana")]
    ),
    "/api/v1/accounting/slips/{kind}/{number}/receive/": Scenario(
        body={"chips": CHIPS}, changes=[("chips", {"25.00": 39})], setup=_issue_the_slip
    ),
    "/api/v1/accounting/tables/{code}/drop/": Scenario(
        body={"gaming_day": DAY, "cash": {"100.00": 5}, "chips": "10.00"},
        changes=[("cash", {"100.00": 6}), ("chips", "10.50")],
        same=[("chips", "10")],
    ),
    "/api/v1/tables/{code}/rotations/": Scenario(
        body={"dealer": "D042", "started_at": recent(30)}, changes=[("dealer", None)]
    ),
    "/api/v1/tables/{code}/shoes/": Scenario(
        body={"cut_card_position": 300, "shuffled_at": recent(10)},
        changes=[("decks", 6), ("cut_card_position", 301), ("burn", ["5H", "KD"])],
        setup=_close_the_shoe,
    ),
    "/api/v1/shoes/{shoe_id}/coups/": Scenario(
        body=coup_body(2),
        changes=[("player", ["5H", "KD", "3C"]), ("reported_winner", "banker")],
        conflict_writes=frozenset({"compliance.RuleViolation", "compliance.RuleViolationAuditEvent"}),
    ),
    "/api/v1/coups/{coup_id}/void/": Scenario(body={"reason": "Misdeal"}, changes=[("reason", "A card exposed")]),
    "/api/v1/coups/{coup_id}/corrections/": Scenario(
        body={"wagers": [{"seat": 1, "bet": "player", "amount": "100.00"}], "reason": "Misread"},
        changes=[("reason", "Another reason")],
        revision=[("wagers", [{"seat": 1, "bet": "player", "amount": "50.00"}])],
    ),
    "/api/v1/tables/{code}/seats/sit/": Scenario(
        body={"seat": 1, "at": recent(30), "description": "man, grey suit"},
        changes=[("description", "woman, red scarf")],
        same=[("description", "  man, grey suit  ")],
    ),
    "/api/v1/tables/{code}/seats/pause/": Scenario(
        body={"seat": 1, "at": recent(60)}, changes=[], setup=_seat_a_player
    ),
    "/api/v1/tables/{code}/seats/resume/": Scenario(
        body={"seat": 1, "at": recent(60)}, changes=[], setup=_seat_a_player_on_a_break
    ),
    "/api/v1/tables/{code}/seats/stand/": Scenario(
        body={"seat": 1, "at": recent(5), "chips_walked": "250.00"},
        changes=[("chips_walked", "300.00"), ("how", "estimated")],
        same=[("chips_walked", "250")],
        setup=_seat_a_player,
    ),
    "/api/v1/tables/{code}/seats/identify/": Scenario(
        body={"seat": 1, "card_number": "100234", "reason": "card shown at the cage"},
        changes=[("card_number", "100235"), ("reason", "face known")],
        setup=_seat_a_patron_unrated,
    ),
    "/api/v1/tables/{code}/seats/buy-ins/": Scenario(
        body={"seat": 1, "kind": "cash", "amount": "5000.00", "at": recent(100)},
        changes=[("amount", "500.00"), ("kind", "marker")],
        same=[("amount", "5000")],
        setup=_seat_a_player,
    ),
    "/api/v1/tables/{code}/seats/walks/": Scenario(
        body={"seat": 1, "how": "counted", "amount": "1200.00", "at": recent(100)},
        changes=[("amount", "1000.00"), ("how", "estimated")],
        setup=_seat_a_player,
    ),
    "/api/v1/patrons/{card_number}/comps/": Scenario(
        body={"reference": "CS-1", "currency": "USD", "amount": "150.00", "reason": "Dinner for two"},
        changes=[("amount", "160.00"), ("reason", "Room night"), ("currency", "HKD")],
        same=[("amount", "150"), ("reason", "  Dinner for two  ")],
    ),
    "/api/v1/cash/transactions/": Scenario(
        body={
            "reference": "CW3-000123",
            "kind": "chip_redemption",
            "at": recent(45),
            "currency": "USD",
            "amount": "12500.00",
            "location": "Cage window 3",
            "description": "man, blue cap",
        },
        changes=[("amount", "12000.00"), ("kind", "chip_purchase"), ("description", "woman, green coat")],
        same=[("amount", "12500"), ("description", "  man, blue cap  ")],
    ),
    "/api/v1/cash/rates/": Scenario(
        body={"day": DAY, "currency": "HKD", "rate": "0.1282"},
        changes=[("rate", "0.1283")],
        same=[("rate", "0.12820")],
    ),
    "/api/v1/progressives/coups/{coup_id}/payouts/": Scenario(
        body={"meter": "PP1", "seat": 1, "paid_by": "boss", "witnessed_by": "cashier", "note": "Seat 1"},
        changes=[("paid_by", "dana"), ("witnessed_by", "root"), ("note", "Another note")],
        same=[("note", "  Seat 1  ")],
    ),
    "/api/v1/violations/{violation_id}/fault/": Scenario(
        body={"fault": "dealer", "note": "Paid short"}, changes=[], revision=[("fault", "device")]
    ),
}


def _post(floor: Floor, template: str, body: dict):
    return floor.client.post(floor.fill(template), body, format="json")


def test_every_post_operation_declares_its_kind_and_every_fact_has_its_scenario():
    floor = Floor(client=None, table_code="BB1", shoe_id=1, coup_id=1, violation_id=1)  # type: ignore[arg-type]
    kinds = {
        template: getattr(view_class(floor.fill(template)), "post_kind", None) for template, _ in operations("post")
    }
    assert None not in kinds.values(), [template for template, kind in kinds.items() if kind is None]
    facts = {template for template, kind in kinds.items() if kind in (PostKind.FACT, PostKind.REVISION)}
    assert facts == set(SCENARIOS)
    documented = {template: set(operation["responses"]) for template, operation in operations("post")}
    assert all({"200", "201", "409"} <= documented[template] for template in facts), documented


def _changed(rows_before: dict, rows_after: dict) -> set[str]:
    return {label for label, count in rows_after.items() if rows_before.get(label) != count}


@pytest.mark.parametrize("template", sorted(SCENARIOS))
def test_a_fact_posted_again_is_a_200_and_changed_a_409_naming_the_field(template, settings):
    # Replays, not who signs: segregation of duties has its own tests (test_segregation_of_duties.py).
    settings.PIT_SEGREGATION_OF_DUTIES = False
    scenario = SCENARIOS[template]
    floor = build_floor()
    if scenario.setup:
        scenario.setup(floor)
    first = _post(floor, template, scenario.body)
    assert first.status_code == 201, first.content
    recorded = rows()
    for name, value in [(None, None), *scenario.same]:
        again = _post(floor, template, scenario.body if name is None else {**scenario.body, name: value})
        assert again.status_code == 200, (name, again.content)
        assert again.json() == first.json()
        assert rows() == recorded, name
    for name, value in scenario.changes:
        changed = _post(floor, template, {**scenario.body, name: value})
        assert changed.status_code == 409, (name, changed.content)
        assert any(path == name or path.startswith(f"{name}[") for path in changed.json()["errors"]), changed.json()
        assert _changed(recorded, rows()) <= scenario.conflict_writes, name
        recorded = rows()
    for name, value in scenario.revision:
        revised = _post(floor, template, {**scenario.body, name: value})
        assert revised.status_code == 201, (name, revised.content)
        assert _post(floor, template, {**scenario.body, name: value}).status_code == 200
