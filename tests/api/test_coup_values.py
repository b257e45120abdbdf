"""`coup_values`, the coup POST's fast check, against the coup and wager input serializers it stands
in for, field by field: every declared field has its cases here, and at each bound (the limit
accepted, one past refused) both answer with the same field path and the same message. A field
added to the serializers without cases here, or declared but not read by `coup_values`, fails."""

import copy
from decimal import Decimal

import pytest
from rest_framework.exceptions import ValidationError

from pit import game
from pit.api.errors import flatten_errors
from pit.api.resources.coups import CoupInputSerializer, WagerInputSerializer, coup_values
from pit.api.serializers import StrictSerializer

WAGER = {"seat": 1, "bet": "player", "amount": "100.00", "paid": "100.00"}
COUP = {
    "number": 1,
    "player": ["5H", "KD", "2C"],
    "banker": ["6S", "TD"],
    "dealt_at": "2026-11-29T21:14:05Z",
    "reported_winner": "player",
    "wagers": [WAGER],
}


class _Missing:
    """The field left out of the body (a stable repr: the test ids are the same in every process)."""

    def __repr__(self) -> str:
        return "missing"


MISSING = _Missing()

# (field path, value, accepted?) per bound or rule of each declared field. A field path of
# `wagers[0].<name>` sets that field of the coup's one wager.
CASES = {
    "number": [
        ("number", 1, True),
        ("number", 0, False),
        ("number", 100000, True),
        ("number", 100001, False),
        ("number", "17", False),
        ("number", " 17", False),
        ("number", "１７", False),
        ("number", Decimal("17.0"), False),
        ("number", "x", False),
        ("number", "٣", False),
        ("number", True, False),
        ("number", None, False),
        ("number", MISSING, False),
    ],
    "player": [
        ("player", ["5H", "KD"], True),
        ("player", ["5H"], False),
        ("player", ["5H", "KD", "2C"], True),
        ("player", ["5H", "KD", "2C", "3C"], False),
        ("player", "5H", False),
        ("player", [5, "KD"], False),
        ("player", [None, "KD"], False),
        ("player", ["5", "KD"], False),
        ("player", ["10HH", "KD"], False),
        ("player", [" 5H", "KD"], False),
        ("player", MISSING, False),
    ],
    "banker": [
        ("banker", ["6S", "TD"], True),
        ("banker", ["6S"], False),
        ("banker", ["6S", "TD", "2H"], True),
        ("banker", ["6S", "TD", "2H", "3H"], False),
        ("banker", {"a": 1}, False),
        ("banker", MISSING, False),
    ],
    "dealt_at": [
        ("dealt_at", "2026-11-29T21:14:05+01:00", True),
        ("dealt_at", "yesterday", False),
        ("dealt_at", "２０２６-11-29T21:14:05Z", False),
        ("dealt_at", None, False),
        ("dealt_at", "2026-11-29T21:14:05", False),
        ("dealt_at", "2026-02-30T21:14:05Z", False),
        ("dealt_at", MISSING, True),
    ],
    "reported_winner": [
        *[("reported_winner", winner, True) for winner in ("player", "banker", "tie")],
        ("reported_winner", "Player", False),
        ("reported_winner", "dragon", False),
        ("reported_winner", None, True),
        ("reported_winner", MISSING, True),
    ],
    "wagers": [
        ("wagers", [WAGER] * 200, True),
        ("wagers", [WAGER] * 201, False),
        ("wagers", [], True),
        ("wagers", "x", False),
        ("wagers", [5], False),
        ("wagers", MISSING, True),
    ],
}
WAGER_CASES = {
    "seat": [
        ("wagers[0].seat", 1, True),
        ("wagers[0].seat", 0, False),
        ("wagers[0].seat", 99, True),
        ("wagers[0].seat", 100, False),
        ("wagers[0].seat", "۳", False),
        ("wagers[0].seat", "3", False),
        ("wagers[0].seat", None, False),
        ("wagers[0].seat", True, False),
        ("wagers[0].seat", MISSING, False),
    ],
    "bet": [
        ("wagers[0].bet", "b" * 20, True),
        ("wagers[0].bet", "b" * 21, False),
        ("wagers[0].bet", "", False),
        ("wagers[0].bet", None, False),
        ("wagers[0].bet", " player", False),
        ("wagers[0].bet", 7, False),
        ("wagers[0].bet", MISSING, False),
    ],
    "amount": [
        ("wagers[0].amount", "0.01", True),
        ("wagers[0].amount", "0", False),
        ("wagers[0].amount", "-1.00", False),
        ("wagers[0].amount", "-0.00", False),
        ("wagers[0].amount", "1.000", True),
        ("wagers[0].amount", "1.0000", False),
        ("wagers[0].amount", " 1.00", False),
        ("wagers[0].amount", "１.00", False),
        ("wagers[0].amount", None, False),
        ("wagers[0].amount", "999999999999999.999", True),
        ("wagers[0].amount", "9999999999999999", False),
        ("wagers[0].amount", "1.0000001", False),
        ("wagers[0].amount", 100, False),
        ("wagers[0].amount", MISSING, False),
    ],
    "paid": [
        ("wagers[0].paid", "0", True),
        ("wagers[0].paid", "-0.01", False),
        ("wagers[0].paid", "12,50", False),
        ("wagers[0].paid", 12.5, False),
        ("wagers[0].paid", None, True),
        ("wagers[0].paid", MISSING, True),
    ],
}


def _with(path: str, value) -> dict:
    body = copy.deepcopy(COUP)
    target, name = (body["wagers"][0], path.split(".", 1)[1]) if path.startswith("wagers[0].") else (body, path)
    if value is MISSING:
        del target[name]
    else:
        target[name] = value
    return body


def _fast_errors(body) -> dict[str, list[str]]:
    try:
        coup_values(body)
    except ValidationError as exc:
        return flatten_errors(exc.detail)
    return {}


def _declared_errors(body) -> dict[str, list[str]]:
    """The body read field by field by the declared fields, as DRF reads any other input."""
    try:
        StrictSerializer.to_internal_value(CoupInputSerializer(), body)
    except ValidationError as exc:
        return flatten_errors(exc.detail)
    return {}


def test_every_declared_field_has_its_cases():
    assert set(CASES) == set(CoupInputSerializer().fields)
    assert set(WAGER_CASES) == set(WagerInputSerializer().fields)


def test_every_declared_field_is_read():
    values = coup_values(COUP)
    assert set(values) == set(CoupInputSerializer().fields)
    assert [set(wager) for wager in values["wagers"]] == [set(WagerInputSerializer().fields)]


@pytest.mark.parametrize(
    ("path", "value", "accepted"),
    [case for cases in (*CASES.values(), *WAGER_CASES.values()) for case in cases],
    ids=lambda item: repr(item)[:40],
)
def test_coup_values_answers_as_the_declared_fields(path, value, accepted):
    body = _with(path, value)
    fast, declared = _fast_errors(body), _declared_errors(body)
    assert fast == declared
    if accepted:
        assert fast == {}
    else:
        assert fast and all(key.startswith(path) for key in fast), fast


@pytest.mark.parametrize("path", ["unknown", "wagers[0].amout"])
def test_an_unknown_field_is_refused_by_both(path):
    body = _with(path, "1")
    assert _fast_errors(body) == _declared_errors(body) == {path: ["Unknown field."]}


def test_a_body_that_is_not_an_object_is_refused_by_both():
    expected = {"body": ["Invalid data. Expected a dictionary, but got list."]}
    assert _fast_errors([COUP]) == _declared_errors([COUP]) == expected


def test_a_card_code_is_read_by_the_kit_in_both():
    """The shape of a card code (2 or 3 ASCII letters and digits) is the kit's, in both readers; what
    the code means is the engine's, whose message names the code."""
    for code in ("5", "10HH", "５H"):
        body = _with("player", [code, "KD"])
        assert _fast_errors(body) == _declared_errors(body)
        assert list(_fast_errors(body)) == ["player[0]"]
    body = _with("player", ["ZZ", "KD"])
    assert _fast_errors(body) == _declared_errors(body) == {}
    with pytest.raises(game.InvalidCard):
        game.parse_cards(["ZZ", "KD"])
