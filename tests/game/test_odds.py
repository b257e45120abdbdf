"""Exact odds: the published 8-deck figures, exact card counts, depleted shoes and a brute-force check."""

import json
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from itertools import permutations
from math import perm

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pit.game import (
    CARD_FACTS,
    FACTS,
    PRESETS,
    RANKS,
    BetResult,
    Paytable,
    ShoeComposition,
    composition_after,
    deal_coup,
    evaluate,
    exact_odds,
    fraction_to_decimal,
    parse_card,
)


def percent(value: Fraction) -> Decimal:
    return fraction_to_decimal(value * 100, 4)


@pytest.fixture(scope="module")
def eight_decks():
    return {name: exact_odds(PRESETS[name], 8) for name in PRESETS}


def test_published_outcome_probabilities(eight_decks):
    probabilities = eight_decks["commission_box"].outcome_probabilities
    assert fraction_to_decimal(probabilities["banker_wins"], 6) == Decimal("0.458597")
    assert fraction_to_decimal(probabilities["player_wins"], 6) == Decimal("0.446247")
    assert fraction_to_decimal(probabilities["tie"], 6) == Decimal("0.095156")
    assert probabilities["banker_wins"] + probabilities["player_wins"] + probabilities["tie"] == 1


def test_exact_counts_of_all_ordered_deals_of_an_8_deck_shoe(eight_decks):
    # The number of ordered six-card prefixes of 416 cards that give each result (the classic table).
    total = perm(416, 6)
    assert total == 4_998_398_275_503_360
    probabilities = eight_decks["commission_box"].outcome_probabilities
    assert probabilities["banker_wins"] * total == 2_292_252_566_437_888
    assert probabilities["player_wins"] * total == 2_230_518_282_592_256
    assert probabilities["tie"] * total == 475_627_426_473_216
    assert probabilities["player_pair"] == Fraction(31, 415)


@pytest.mark.parametrize(
    ("paytable", "bet", "edge"),
    [
        ("commission_box", "banker", "1.0579"),
        ("commission_deducted", "banker", "1.0579"),
        ("commission_19_20", "banker", "1.0579"),
        ("commission_box", "player", "1.2351"),
        ("commission_box", "tie", "14.3596"),
        ("tie_9_to_1", "tie", "4.8440"),
        ("no_commission", "banker", "1.4581"),
        ("commission_box", "player_pair", "10.3614"),
        ("commission_box", "banker_pair", "10.3614"),
        ("ez_baccarat", "dragon_7", "7.6113"),
        ("ez_baccarat", "panda_8", "10.1876"),
        ("ez_baccarat", "banker", "1.0183"),
        ("ez_baccarat", "player", "1.2351"),
    ],
)
def test_published_house_edges(eight_decks, paytable, bet, edge):
    assert percent(eight_decks[paytable].bets[bet].house_edge) == Decimal(edge)


def test_house_edges_to_more_digits(eight_decks):
    bets = eight_decks["commission_box"].bets
    assert fraction_to_decimal(bets["banker"].house_edge, 8) == Decimal("0.01057906")
    assert fraction_to_decimal(bets["player"].house_edge, 8) == Decimal("0.01235081")
    assert fraction_to_decimal(bets["tie"].house_edge, 8) == Decimal("0.14359629")
    assert bets["player_pair"].house_edge == Fraction(43, 415)


def test_variance_and_outcome_distribution(eight_decks):
    odds = eight_decks["commission_box"]
    win, lose = odds.outcome_probabilities["player_wins"], odds.outcome_probabilities["banker_wins"]
    player = odds.bets["player"]
    assert player.variance == win + lose - (win - lose) ** 2
    assert [(o.result, o.net) for o in player.outcomes] == [("win", 1), ("push", 0), ("lose", -1)]
    assert player.probability("push") == odds.outcome_probabilities["tie"]
    banker = odds.bets["banker"]
    assert [(o.result, o.net) for o in banker.outcomes] == [
        (BetResult.WIN, Fraction(19, 20)),
        (BetResult.PUSH, 0),
        (BetResult.LOSE, -1),
    ]
    mean = Fraction(19, 20) * lose - win
    assert banker.expected_value == mean == -banker.house_edge
    assert banker.variance == Fraction(361, 400) * lose + win - mean**2
    assert fraction_to_decimal(banker.variance, 6) == Decimal("0.860019")
    assert fraction_to_decimal(player.variance, 6) == Decimal("0.904691")
    assert fraction_to_decimal(odds.bets["tie"].variance, 6) == Decimal("6.974206")
    assert banker.house_edge_per_resolved_bet == banker.house_edge / (1 - odds.outcome_probabilities["tie"])


def test_no_commission_banker_has_three_outcomes(eight_decks):
    banker = eight_decks["no_commission"].bets["banker"]
    assert [(o.result, o.net) for o in banker.outcomes] == [
        ("win", 1),
        ("win", Fraction(1, 2)),
        ("push", 0),
        ("lose", -1),
    ]
    probabilities = eight_decks["no_commission"].outcome_probabilities
    assert banker.outcomes[1].probability == probabilities["banker_wins_with_6"]
    assert fraction_to_decimal(probabilities["banker_wins_with_6"], 6) == Decimal("0.053864")


def test_ez_probabilities(eight_decks):
    probabilities = eight_decks["ez_baccarat"].outcome_probabilities
    assert fraction_to_decimal(probabilities["banker_wins_three_card_7"], 6) == Decimal("0.022534")
    assert fraction_to_decimal(probabilities["player_wins_three_card_8"], 6) == Decimal("0.034543")
    # A paytable of rank facts shows every fact ranks decide; the card facts need the suits.
    assert set(probabilities) == set(FACTS) - set(CARD_FACTS)
    assert list(probabilities)[:3] == ["player_wins", "banker_wins", "tie"]


def test_either_pair_at_11_to_1_favours_the_player():
    data = PRESETS["commission_box"].to_dict()
    data["name"] = "either_pair_11_to_1"
    data["bets"]["either_pair"] = {"rules": [{"when": ["either_pair"], "result": "win", "odds": "11:1"}]}
    odds = exact_odds(Paytable.from_dict(data), 8)
    assert odds.bets["either_pair"].house_edge < 0
    either = odds.outcome_probabilities["either_pair"]
    assert either == 2 * Fraction(31, 415) - odds.outcome_probabilities["both_pairs"]
    assert odds.bets["either_pair"].house_edge == 1 - 12 * either
    assert percent(odds.bets["either_pair"].house_edge) == Decimal("-72.5802")
    assert odds.bets_favouring_player() == ["either_pair"]
    assert exact_odds(PRESETS["commission_box"], 8).bets_favouring_player() == []
    # The same bet at the 5:1 actually offered carries the published 13.71% edge.
    data["bets"]["either_pair"]["rules"][0]["odds"] = "5:1"
    fair = exact_odds(Paytable.from_dict(data), 8)
    assert fraction_to_decimal(fair.bets["either_pair"].house_edge * 100, 2) == Decimal("13.71")
    assert fair.bets_favouring_player() == []


def test_dragon_bonus_as_pure_data():
    # Dragon Bonus on Player, 8 decks: the published 2.65% house edge, reached from rules alone.
    data = PRESETS["commission_box"].to_dict()
    pays = ((9, "30:1"), (8, "10:1"), (7, "6:1"), (6, "4:1"), (5, "2:1"), (4, "1:1"))
    data["bets"]["dragon_bonus"] = {
        "rules": [
            {"when": ["player_wins_natural"], "result": "win", "odds": "1:1"},
            {"when": ["natural_tie"], "result": "push"},
            *[{"when": [f"player_wins_by_{n}"], "result": "win", "odds": odds} for n, odds in pays],
        ]
    }
    odds = exact_odds(Paytable.from_dict(data), 8)
    assert percent(odds.bets["dragon_bonus"].house_edge) == Decimal("2.6517")


@pytest.mark.parametrize(
    ("decks", "banker", "player", "tie"),
    [(1, "1.0117", "1.2864", "15.7461"), (6, "1.0558", "1.2374", "14.4382")],
)
def test_other_shoe_sizes(decks, banker, player, tie):
    bets = exact_odds(PRESETS["commission_box"], decks).bets
    assert (
        percent(bets["banker"].house_edge),
        percent(bets["player"].house_edge),
        percent(bets["tie"].house_edge),
    ) == (Decimal(banker), Decimal(player), Decimal(tie))


def test_shoe_composition():
    full = ShoeComposition.full(8)
    assert full.total == 416
    assert full.by_value() == (128, 32, 32, 32, 32, 32, 32, 32, 32, 32)
    assert full.by_rank()["K"] == 32
    after = composition_after(8, ["AS", "AH", "KD", "10C", "tc"])
    assert after.by_rank() == {**full.by_rank(), "A": 30, "K": 31, "T": 30}
    assert after.total == 411
    assert composition_after(8, {"AS": 3, "9D": 1}).by_rank()["A"] == 29
    assert composition_after(8, [parse_card("5H")]).by_rank()["5"] == 31
    assert ShoeComposition.from_mapping({"10": 4, "a": 2}).by_rank() == {
        **dict.fromkeys(RANKS, 0),
        "T": 4,
        "A": 2,
    }


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: composition_after(1, ["AS"] * 5), "5 aces seen, but the shoe holds only 4"),
        (lambda: composition_after(1, ["7S"] * 5), "5 7s seen, but the shoe holds only 4"),
        (lambda: composition_after(8, ["1X"]), "'1X' is not a card code"),
        (lambda: ShoeComposition.full(0), "a shoe holds at least one deck"),
        (lambda: ShoeComposition.from_mapping({"X": 3}), "'X' is not a rank"),
        (lambda: ShoeComposition((1, 2)), "a count for each of the 13 ranks"),
        (lambda: ShoeComposition((-1,) * 13), "the count of rank A must be a whole number"),
        (
            lambda: exact_odds(PRESETS["commission_box"], {"A": 5}),
            "a coup can need six cards; this shoe has 5",
        ),
    ],
)
def test_composition_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_every_input_form_gives_the_same_odds():
    paytable = PRESETS["commission_box"]
    seen = ["AS", "KD", "5C", "5H", "9S", "TD"]
    composition = composition_after(8, seen)
    by_mapping = exact_odds(paytable, composition.by_rank())
    by_composition = exact_odds(paytable, composition)
    assert by_mapping.outcome_probabilities == by_composition.outcome_probabilities
    assert by_mapping.bets == by_composition.bets
    assert exact_odds(paytable, 8).bets == exact_odds(paytable, ShoeComposition.full(8)).bets


def test_a_depleted_shoe_moves_the_odds():
    paytable = PRESETS["commission_box"]
    rich_in_small_cards = composition_after(8, ["8S", "9S"] * 16 + ["TD", "JD", "QD", "KD"] * 10)
    odds = exact_odds(paytable, rich_in_small_cards)
    assert odds.outcome_probabilities["banker_wins"] != exact_odds(paytable, 8).outcome_probabilities["banker_wins"]
    assert sum(odds.outcome_probabilities[f] for f in ("player_wins", "banker_wins", "tie")) == 1
    for bet in odds.bets.values():
        assert sum(o.probability for o in bet.outcomes) == 1


def test_to_dict_is_json_safe_with_decimal_strings(eight_decks):
    data = json.loads(json.dumps(eight_decks["commission_box"].to_dict(places=8)))
    assert data["paytable"] == "commission_box"
    assert data["cards"] == 416
    assert data["outcome_probabilities"]["banker_wins"] == "0.45859742"
    assert data["bets"]["banker"]["house_edge"] == "0.01057906"
    assert data["bets"]["banker"]["outcomes"][0] == {
        "result": "win",
        "net": "0.95",
        "probability": "0.45859742",
    }


def brute_force(cards):
    """Every ordered six-card prefix of a small shoe, dealt by the engine, as fact probabilities."""
    counts = Counter()
    total = 0
    for prefix in permutations(cards, 6):
        facts = evaluate(deal_coup(iter(prefix))).facts
        counts.update(facts)
        total += 1
    return {fact: Fraction(counts[fact], total) for fact in FACTS if fact not in CARD_FACTS}


def small_shoe(codes):
    return [parse_card(code) for code in codes]


def test_brute_force_agrees_on_a_small_shoe_with_pairs_of_faces():
    cards = small_shoe(["KS", "KH", "QD", "TC", "5S", "5H", "AS", "3D", "9C"])
    composition = ShoeComposition.from_mapping(Counter(card.rank for card in cards))
    assert exact_odds(PRESETS["commission_box"], composition).outcome_probabilities == brute_force(cards)


@settings(max_examples=12, deadline=None)
@given(
    st.lists(
        st.sampled_from(["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "JD", "QC", "KS"]),
        min_size=6,
        max_size=8,
    )
)
def test_brute_force_agrees_on_random_small_shoes(codes):
    cards = small_shoe(codes)
    composition = ShoeComposition.from_mapping(Counter(card.rank for card in cards))
    assert exact_odds(PRESETS["ez_baccarat"], composition).outcome_probabilities == brute_force(cards)


def test_bet_odds_as_json_never_write_an_exponent():
    from pit.game import PRESETS, exact_odds

    bets = exact_odds(PRESETS["ez_baccarat"], 8).to_dict(6)["bets"]

    # Decimal("40").normalize() is 4E+1: a JSON reader would get "4E+1" for a 40:1 payout.
    assert [(o["result"], o["net"]) for o in bets["dragon_7"]["outcomes"]] == [("win", "40"), ("lose", "-1")]
    assert [(o["result"], o["net"]) for o in bets["tie"]["outcomes"]] == [("win", "8"), ("lose", "-1")]
