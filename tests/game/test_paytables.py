"""Paytables as data: odds, rounding, rules, presets, and the JSON round trip with its validation."""

import copy
import json
from decimal import Decimal
from fractions import Fraction

import pytest

from pit.game import (
    PRESETS,
    BetDefinition,
    BetResult,
    BetRule,
    CommissionMode,
    InvalidPaytable,
    Paytable,
    Ratio,
    Rounding,
    RoundingMode,
)

REQUIRED_PRESETS = {
    "commission_box",
    "commission_deducted",
    "commission_19_20",
    "mini_commission_box",
    "no_commission",
    "tie_9_to_1",
    "ez_baccarat",
}


@pytest.mark.parametrize(
    ("text", "numerator", "denominator", "shown"),
    [
        ("8:1", 8, 1, "8:1"),
        ("19:20", 19, 20, "19:20"),
        ("1:2", 1, 2, "1:2"),
        (" 11 : 1 ", 11, 1, "11:1"),
        ("40 to 1", 40, 1, "40:1"),
    ],
)
def test_ratio_parse(text, numerator, denominator, shown):
    ratio = Ratio.parse(text)
    assert (ratio.numerator, ratio.denominator, str(ratio)) == (numerator, denominator, shown)
    assert ratio.as_fraction() == Fraction(numerator, denominator)


@pytest.mark.parametrize("text", ["8", "8:0", "0:1", "1.5:1", "-1:2", "a:b", "", "8/1", None])
def test_ratio_rejects(text):
    with pytest.raises(InvalidPaytable):
        Ratio.parse(text)


@pytest.mark.parametrize(
    ("increment", "mode", "amount", "expected"),
    [
        ("0.01", "half_up", "0.505", "0.51"),
        ("0.01", "half_up", "0.5049", "0.50"),
        ("0.01", "half_up", "0.5", "0.50"),
        ("0.01", "up", "0.5001", "0.51"),
        ("0.01", "up", "0.50", "0.50"),
        ("0.01", "down", "0.5099", "0.50"),
        ("0.25", "up", "0.60", "0.75"),
        ("0.25", "up", "0.75", "0.75"),
        ("0.25", "up", "0.01", "0.25"),
        ("0.25", "half_up", "0.375", "0.50"),
        ("0.25", "half_up", "0.3749", "0.25"),
        ("0.25", "down", "0.74", "0.50"),
        ("1", "half_up", "2.5", "3"),
    ],
)
def test_rounding(increment, mode, amount, expected):
    rounded = Rounding(Decimal(increment), mode).apply(Decimal(amount))
    assert rounded == Decimal(expected)
    assert str(rounded) == expected


@pytest.mark.parametrize(("increment", "mode"), [("0", "up"), ("-0.25", "up"), ("0.01", "nearest"), ("x", "up")])
def test_rounding_rejects(increment, mode):
    with pytest.raises(InvalidPaytable):
        Rounding(increment, mode)


def test_presets_are_all_there_and_valid():
    assert set(PRESETS) >= REQUIRED_PRESETS
    for name, paytable in PRESETS.items():
        assert paytable.name == name
        assert Paytable.from_dict(paytable.to_dict()) == paytable
    assert "either_pair" not in {bet for paytable in PRESETS.values() for bet in paytable.bets}


def test_preset_shapes():
    box = PRESETS["commission_box"]
    assert set(box.bets) == {"player", "banker", "tie", "player_pair", "banker_pair"}
    assert box.commission_mode is CommissionMode.BOX and box.commission_rate == Decimal("0.05")
    assert PRESETS["commission_deducted"].commission_mode is CommissionMode.DEDUCTED
    mini = PRESETS["mini_commission_box"]
    assert mini.bet_increments == {"banker": Decimal("5")}
    assert mini.commission_rounding == Rounding(Decimal("0.25"), RoundingMode.UP)
    assert set(PRESETS["ez_baccarat"].bets) == {"player", "banker", "tie", "dragon_7", "panda_8"}
    assert PRESETS["no_commission"].commission_mode is CommissionMode.NONE


@pytest.mark.parametrize("name", sorted(REQUIRED_PRESETS))
def test_round_trip_through_json(name):
    paytable = PRESETS[name]
    data = json.loads(json.dumps(paytable.to_dict()))
    assert Paytable.from_dict(data) == paytable
    assert Paytable.from_dict(data).to_dict() == paytable.to_dict()


def test_to_dict_shape():
    data = PRESETS["mini_commission_box"].to_dict()
    assert data["commission_rate"] == "0.05"
    assert data["commission_rounding"] == {"increment": "0.25", "mode": "up"}
    assert data["bet_increments"] == {"banker": "5"}
    assert data["ties_push"] is True
    assert data["bets"]["banker"] == {
        "rules": [{"when": ["banker_wins"], "result": "win", "odds": "1:1", "commission": True}]
    }
    no_commission = PRESETS["no_commission"].to_dict()["bets"]["banker"]["rules"]
    assert no_commission[0] == {
        "when": ["banker_wins_with_6"],
        "result": "win",
        "odds": "1:2",
        "commission": False,
    }


def test_resolve_takes_the_first_matching_rule_and_ties_push():
    ez = PRESETS["ez_baccarat"]
    assert ez.resolve("banker", frozenset({"banker_wins", "banker_wins_three_card_7"})).result is BetResult.PUSH
    assert ez.resolve("banker", frozenset({"banker_wins"})).odds == Ratio(1, 1)
    assert ez.resolve("banker", frozenset({"tie"})).result is BetResult.PUSH
    assert ez.resolve("tie", frozenset({"tie"})).odds == Ratio(8, 1)
    assert ez.resolve("dragon_7", frozenset({"banker_wins"})).result is BetResult.LOSE
    with pytest.raises(KeyError):
        ez.resolve("player_pair", frozenset())


def test_ties_push_false_lets_player_and_banker_lose_on_a_tie():
    data = PRESETS["commission_box"].to_dict()
    data["ties_push"] = False
    paytable = Paytable.from_dict(data)
    assert paytable.resolve("player", frozenset({"tie", "tie_on_6"})).result is BetResult.LOSE
    assert paytable.resolve("banker", frozenset({"tie", "tie_on_6"})).result is BetResult.LOSE
    assert PRESETS["commission_box"].resolve("player", frozenset({"tie"})).result is BetResult.PUSH


def test_describe():
    assert PRESETS["commission_box"].describe("banker") == "push on tie; 1:1 less 5% commission on banker_wins"
    assert PRESETS["ez_baccarat"].describe("banker") == (
        "push on tie; push on banker_wins_three_card_7; 1:1 on banker_wins"
    )
    assert PRESETS["no_commission"].describe("tie") == "8:1 on tie"


def good():
    return copy.deepcopy(PRESETS["commission_box"].to_dict())


def broken(change):
    data = good()
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("name"), "the paytable needs a 'name' field"),
        (lambda d: d.update(name="  "), "a paytable needs a name"),
        (lambda d: d.update(bets={}), "paytable 'commission_box' has no bets"),
        (lambda d: d.update(bets=[]), "'bets' must map bet names to their rules"),
        (lambda d: d.update(colour="red"), "the paytable has unknown field 'colour'"),
        (
            lambda d: d.update(commission_mode="sometimes"),
            "commission mode must be one of box, deducted, none, not 'sometimes'",
        ),
        (lambda d: d.update(commission_rate="1"), "commission rate must be at least 0 and below 1, not 1"),
        (
            lambda d: d.update(commission_rate="-0.05"),
            "commission rate must be at least 0 and below 1, not -0.05",
        ),
        (
            lambda d: d.update(commission_rate=0.05),
            "commission rate must be a decimal string, not the float 0.05",
        ),
        (lambda d: d.update(commission_rate="five"), "commission rate 'five' is not a decimal number"),
        (
            lambda d: d.update(commission_rounding={"increment": "0", "mode": "up"}),
            "rounding increment must be above 0, not 0",
        ),
        (
            lambda d: d.update(commission_rounding={"increment": "0.01", "mode": "sideways"}),
            "rounding mode must be one of half_up, up, down, not 'sideways'",
        ),
        (lambda d: d.update(commission_rounding="0.01"), "'commission_rounding' must be an object"),
        (
            lambda d: d.update(bet_increments={"dragon_7": "5"}),
            "bet increment for 'dragon_7', which the paytable does not offer",
        ),
        (lambda d: d.update(bet_increments={"banker": "0"}), "increment for 'banker' must be above 0, not 0"),
        (lambda d: d.update(ties_push="yes"), "ties_push must be true or false, not 'yes'"),
        (lambda d: d["bets"].update(tie={"rules": []}), "bet 'tie' has no rules"),
        (lambda d: d["bets"].update(tie=[]), "bet 'tie' must be an object with a list of 'rules'"),
        (
            lambda d: d["bets"].update({"Tie Bet": {"rules": [{"when": ["tie"], "result": "win", "odds": "8:1"}]}}),
            "'Tie Bet' is not a bet name",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(when=["ties"]),
            "bet 'tie', rule 1: unknown fact 'ties'",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(when="tie"),
            "bet 'tie', rule 1: a rule's 'when' must be a list of fact names",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(odds=None),
            "bet 'tie', rule 1: a winning rule needs odds",
        ),
        (lambda d: d["bets"]["tie"]["rules"][0].update(odds="8"), "bet 'tie', rule 1: '8' is not odds"),
        (lambda d: d["bets"]["tie"]["rules"][0].update(odds=8), "bet 'tie', rule 1: odds must be a string"),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(result="lose"),
            "bet 'tie', rule 1: odds apply only to a win, not to a lose",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(result="pays"),
            "bet 'tie', rule 1: a rule's result must be one of win, push, lose, not 'pays'",
        ),
        (lambda d: d["bets"]["tie"]["rules"][0].pop("result"), "bet 'tie', rule 1: a rule needs a 'result'"),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(commission="no"),
            "bet 'tie', rule 1: a rule's commission must be true or false",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"][0].update(extra=1),
            "bet 'tie', rule 1: a rule has unknown field 'extra'",
        ),
        (
            lambda d: d["bets"]["tie"]["rules"].append({"when": ["tie"], "result": "push", "commission": True}),
            "bet 'tie', rule 2: commission is charged only on a win",
        ),
        (
            lambda d: d.update(commission_mode="none"),
            "commission mode none needs a commission rate of 0, not 0.05",
        ),
        (
            lambda d: d.update(commission_mode="none", commission_rate="0"),
            "bet 'banker' charges commission but the commission mode is none",
        ),
    ],
)
def test_from_dict_names_the_problem(change, message):
    with pytest.raises(InvalidPaytable) as caught:
        Paytable.from_dict(broken(change))
    assert message in str(caught.value)


@pytest.mark.parametrize("data", [None, [], "paytable", 5])
def test_from_dict_refuses_non_objects(data):
    with pytest.raises(InvalidPaytable, match="a paytable must be an object"):
        Paytable.from_dict(data)


def test_from_dict_defaults_and_odd_spellings():
    data = good()
    del data["bet_increments"], data["ties_push"]
    data["commission_rate"] = "0.050"
    del data["bets"]["player"]["rules"][0]["commission"]
    paytable = Paytable.from_dict(data)
    assert paytable.ties_push is True and paytable.bet_increments == {}
    assert paytable.commission_rate == Decimal("0.05")


def test_constructor_validates_like_from_dict():
    with pytest.raises(InvalidPaytable, match="filed under a different name"):
        Paytable("x", {"tie": BetDefinition("player", (BetRule(frozenset({"tie"}), "win", Ratio(8, 1)),))})
    with pytest.raises(InvalidPaytable, match="unknown fact 'dragon'"):
        BetRule(frozenset({"dragon"}), BetResult.WIN, Ratio(1, 1))
    rule = BetRule(["tie"], "win", "8:1")
    assert rule.when == frozenset({"tie"}) and rule.result is BetResult.WIN and rule.odds == Ratio(8, 1)
    # A paytable keeps its own copy of the bets it was given.
    bets = {"tie": BetDefinition("tie", (rule,))}
    paytable = Paytable("mine", bets)
    bets.clear()
    assert set(paytable.bets) == {"tie"}


def test_a_custom_bet_over_the_same_facts_round_trips():
    # Dragon Bonus on Player: rules are data, so a new side bet needs no code.
    rules = [
        {"when": ["player_wins_natural"], "result": "win", "odds": "1:1", "commission": False},
        {"when": ["natural_tie"], "result": "push", "odds": None, "commission": False},
        *[
            {"when": [f"player_wins_by_{n}"], "result": "win", "odds": odds, "commission": False}
            for n, odds in ((9, "30:1"), (8, "10:1"), (7, "6:1"), (6, "4:1"), (5, "2:1"), (4, "1:1"))
        ],
    ]
    data = good()
    data["bets"]["dragon_bonus_player"] = {"rules": rules}
    paytable = Paytable.from_dict(data)
    assert paytable.to_dict()["bets"]["dragon_bonus_player"]["rules"][2]["odds"] == "30:1"
    assert paytable.resolve("dragon_bonus_player", frozenset({"player_wins", "player_wins_by_2"})).result == "lose"
