"""The third-card rule cell by cell, naturals, hand totals, evaluation facts and dealing."""

import pytest

from pit.game import (
    CARD_FACTS,
    FACTS,
    Coup,
    InvalidCard,
    Winner,
    banker_draws,
    deal_coup,
    evaluate,
    hand_total,
    parse_cards,
    player_draws,
    verify_coup,
)

# domain.md's table, written out independently of the engine: Banker total -> Player third-card
# values on which Banker draws. A banker 3 draws on a 0 (the domain decision against seed 001).
BANKER_TABLE = {
    0: "0123456789",
    1: "0123456789",
    2: "0123456789",
    3: "012345679",
    4: "234567",
    5: "4567",
    6: "67",
    7: "",
}
RANK_OF_VALUE = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}
# Two cards (by rank) that make each total without making a pair.
TWO_CARDS = {
    0: ("T", "K"),
    1: ("A", "K"),
    2: ("2", "K"),
    3: ("3", "K"),
    4: ("4", "K"),
    5: ("5", "K"),
    6: ("6", "K"),
    7: ("7", "K"),
    8: ("8", "K"),
    9: ("9", "K"),
}


def cards_for(total, suit):
    return [rank + suit for rank in TWO_CARDS[total]]


def ordered_deal(player, banker, player_third=None, banker_third=None):
    """Cards in shoe order: P1 B1 P2 B2, then thirds."""
    order = [player[0], banker[0], player[1], banker[1]]
    order += [code for code in (player_third, banker_third) if code]
    return parse_cards(order)


CELLS = [(total, value) for total in range(8) for value in range(10)]


@pytest.mark.parametrize(("banker_total", "third_value"), CELLS)
def test_banker_table_cell(banker_total, third_value):
    expected = str(third_value) in BANKER_TABLE[banker_total]
    assert banker_draws(banker_total, third_value) is expected
    # The same cell through a whole coup: dealing, then verifying the dealt coup and its opposite.
    player = cards_for(3, "S")
    banker = cards_for(banker_total, "H")
    third = RANK_OF_VALUE[third_value] + "D"
    coup = deal_coup(iter(ordered_deal(player, banker, third, "9C")))
    assert [c.code for c in coup.player] == [*player, third]
    assert len(coup.banker) == (3 if expected else 2)
    assert verify_coup(coup) == []
    if expected:
        wrong = Coup(coup.player, coup.banker[:2])
        assert [v.code for v in verify_coup(wrong)] == ["banker_missing_card"]
    else:
        wrong = Coup(coup.player, (*coup.banker, parse_cards(["9C"])[0]))
        assert [v.code for v in verify_coup(wrong)] == ["banker_extra_card"]


@pytest.mark.parametrize("banker_total", range(8))
def test_banker_when_player_stood(banker_total):
    expected = banker_total <= 5
    assert banker_draws(banker_total, None) is expected
    for player_total in (6, 7):
        coup = deal_coup(iter(ordered_deal(cards_for(player_total, "S"), cards_for(banker_total, "H"), "9C")))
        assert len(coup.player) == 2
        assert len(coup.banker) == (3 if expected else 2)
        assert verify_coup(coup) == []


@pytest.mark.parametrize("player_total", range(10))
def test_player_rule(player_total):
    assert player_draws(player_total) is (player_total <= 5)
    for banker_total in range(10):
        expected = player_total <= 5 and banker_total <= 7
        assert player_draws(player_total, banker_total) is expected


@pytest.mark.parametrize("natural", [8, 9])
@pytest.mark.parametrize("other", range(10))
def test_naturals_stop_both_hands_on_either_side(natural, other):
    for player_total, banker_total in ((natural, other), (other, natural)):
        coup = deal_coup(iter(ordered_deal(cards_for(player_total, "S"), cards_for(banker_total, "H"), "2C", "3C")))
        assert (len(coup.player), len(coup.banker)) == (2, 2)
        assert verify_coup(coup) == []
        outcome = evaluate(coup)
        assert outcome.natural
        assert outcome.player_natural is (player_total >= 8)
        assert outcome.banker_natural is (banker_total >= 8)
        assert "natural" in outcome.facts
        assert player_draws(player_total, banker_total) is False
        assert banker_draws(banker_total, None, player_total) is False
        assert banker_draws(banker_total, 2, player_total) is False


@pytest.mark.parametrize("bad", [-1, 10, None, "5", 5.0, True])
def test_rule_functions_reject_non_totals(bad):
    with pytest.raises((ValueError, TypeError)):
        player_draws(bad)
    with pytest.raises((ValueError, TypeError)):
        banker_draws(bad, 3)
    if bad is not None:
        with pytest.raises(ValueError):
            banker_draws(3, bad)


@pytest.mark.parametrize(
    ("codes", "total"),
    [
        (["KH", "7S"], 7),
        (["2H", "3S", "6D"], 1),
        (["6H", "4S"], 0),
        (["9H", "8S"], 7),
        (["5H", "5S", "5D"], 5),
        (["TS", "9H"], 9),
        ([], 0),
        (["4C"], 4),
    ],
)
def test_hand_total(codes, total):
    assert hand_total(parse_cards(codes)) == total


def test_evaluate_a_three_card_coup():
    coup = Coup.from_codes(player=["5H", "KD", "2C"], banker=["9S", "7D"])
    outcome = evaluate(coup)
    assert (outcome.player_total, outcome.banker_total, outcome.winner) == (7, 6, Winner.PLAYER)
    assert (outcome.player_cards, outcome.banker_cards) == (3, 2)
    assert outcome.player_drew and not outcome.banker_drew
    assert not outcome.natural and not outcome.player_pair and not outcome.banker_pair
    assert outcome.facts == {
        "player_wins",
        "player_wins_by_1",
        "player_drew",
        "big",
        "player_total_7",
        "banker_total_6",
        "banker_two_cards",
    }


def test_evaluate_the_card_facts():
    # Perfect pairs in both hands, of one rank (twin pairs), every card red.
    outcome = evaluate(Coup.from_codes(player=["5H", "5H", "3D"], banker=["5H", "5H", "2H"]))
    assert outcome.facts >= {
        "player_suited_pair",
        "banker_suited_pair",
        "either_suited_pair",
        "both_suited_pairs",
        "twin_pairs",
        "all_red",
        "one_colour",
    }
    assert "all_black" not in outcome.facts
    # A pair of one suit colour but two suits is a pair, not a suited pair; one black card mixes.
    outcome = evaluate(Coup.from_codes(player=["5H", "5D"], banker=["9S", "KH"]))
    assert "player_pair" in outcome.facts and not outcome.facts & {"player_suited_pair", "one_colour"}
    assert outcome.facts >= {"banker_wins_natural", "banker_natural_9", "banker_two_cards", "player_two_cards"}
    # Black all through, pairs of two ranks: both pairs, not twins.
    outcome = evaluate(Coup.from_codes(player=["KS", "KC"], banker=["QS", "QS"]))
    assert outcome.facts >= {"both_pairs", "banker_suited_pair", "all_black", "one_colour", "tie_on_0"}
    assert not outcome.facts & {"twin_pairs", "player_suited_pair", "both_suited_pairs"}


@pytest.mark.parametrize(
    ("player", "banker", "facts"),
    [
        (
            ["9H", "9S"],
            ["TD", "TC"],
            {
                "player_wins",
                "player_wins_by_8",
                "player_pair",
                "either_pair",
                "natural",
                "player_natural",
                "player_wins_natural",
                "banker_pair",
                "both_pairs",
                "small",
            },
        ),
        (
            ["4H", "2S", "TC"],
            ["3D", "3C", "KS"],
            {"tie", "tie_on_6", "banker_pair", "either_pair", "player_drew", "banker_drew", "big"},
        ),
        (["TS", "6H"], ["4D", "2C"], {"tie", "tie_on_6", "small"}),
        (
            ["9S", "KH"],
            ["4D", "5C"],
            {"tie", "tie_on_9", "natural", "natural_tie", "player_natural", "banker_natural", "small"},
        ),
        (
            ["TS", "7H"],
            ["3D", "3C", "KS"],
            {"player_wins", "player_wins_by_1", "banker_pair", "either_pair", "banker_drew", "big"},
        ),
        (
            ["TS", "2H", "4C"],
            ["5D", "KC", "2S"],
            {
                "banker_wins",
                "banker_wins_by_1",
                "banker_wins_three_card_7",
                "player_drew",
                "banker_drew",
                "big",
            },
        ),
        (
            ["AS", "2H", "5C"],
            ["5D", "KC", "2S"],
            {
                "player_wins",
                "player_wins_by_1",
                "player_wins_three_card_8",
                "player_drew",
                "banker_drew",
                "big",
            },
        ),
        (
            ["TS", "4H", "TC"],
            ["3D", "3C"],
            {
                "banker_wins",
                "banker_wins_by_2",
                "banker_wins_with_6",
                "banker_wins_two_card_6",
                "banker_pair",
                "either_pair",
                "player_drew",
                "big",
            },
        ),
        (
            ["TS", "4H", "KC"],
            ["3D", "2C", "AS"],
            {
                "banker_wins",
                "banker_wins_by_2",
                "banker_wins_with_6",
                "banker_wins_three_card_6",
                "player_drew",
                "banker_drew",
                "big",
            },
        ),
        (
            ["JS", "QS"],
            ["KS", "9C"],
            {"banker_wins", "banker_wins_by_9", "banker_wins_natural", "natural", "banker_natural", "small"},
        ),
    ],
)
def test_evaluation_facts(player, banker, facts):
    outcome = evaluate(Coup.from_codes(player=player, banker=banker))
    assert outcome.facts - set(CARD_FACTS) == facts | hand_facts(player, banker)
    assert outcome.facts <= set(FACTS)


def hand_facts(player, banker):
    """Each hand's total, card count and natural, counted here from the codes."""
    value = {"A": 1, **{str(n): n for n in range(2, 10)}, "T": 0, "J": 0, "Q": 0, "K": 0}
    facts = set()
    for side, hand in (("player", player), ("banker", banker)):
        total = sum(value[code[0]] for code in hand) % 10
        facts.add(f"{side}_total_{total}")
        if len(hand) == 2:
            facts.add(f"{side}_two_cards")
            if total >= 8:
                facts.add(f"{side}_natural_{total}")
    return facts


def test_pairs_are_by_rank_not_value():
    assert not evaluate(Coup.from_codes(["TH", "KH"], ["2S", "3S"])).player_pair
    assert evaluate(Coup.from_codes(["QH", "QD"], ["2S", "3S"])).player_pair
    # Only the first two cards make a pair.
    assert not evaluate(Coup.from_codes(["2H", "3D", "2S"], ["KS", "JS", "4C"])).player_pair


def test_evaluate_judges_the_cards_as_dealt_even_when_wrong():
    # Player had a natural 9 but a third card was dealt anyway: the outcome counts it.
    coup = Coup.from_codes(player=["4H", "5D", "3C"], banker=["2S", "4S"])
    outcome = evaluate(coup)
    assert (outcome.player_total, outcome.banker_total, outcome.winner) == (2, 6, Winner.BANKER)
    assert outcome.player_natural  # the two-card hand was a natural
    # Hands of the wrong size still evaluate from their cards.
    odd = evaluate(Coup.from_codes(player=["4H"], banker=["2S", "4S", "AD", "AC"]))
    assert (odd.player_total, odd.banker_total, odd.player_cards, odd.banker_cards) == (4, 8, 1, 4)
    assert not odd.player_natural and not odd.player_pair
    empty = evaluate(Coup.from_codes(player=[], banker=[]))
    assert (empty.player_total, empty.banker_total, empty.winner) == (0, 0, Winner.TIE)


def test_winner_parse():
    assert Winner.parse("Banker") is Winner.BANKER
    assert Winner.parse(" tie ") is Winner.TIE
    assert Winner.parse(Winner.PLAYER) is Winner.PLAYER
    with pytest.raises(ValueError, match="'bank' is not a winner"):
        Winner.parse("bank")


def test_deal_coup_from_a_callable_and_cards_in_order():
    cards = iter(parse_cards(["2H", "3S", "2D", "3C", "6H", "7C", "9S"]))
    coup = deal_coup(lambda: next(cards))
    assert [c.code for c in coup.player] == ["2H", "2D", "6H"]
    assert [c.code for c in coup.banker] == ["3S", "3C", "7C"]
    assert [c.code for c in coup.cards_in_order] == ["2H", "3S", "2D", "3C", "6H", "7C"]
    assert next(cards).code == "9S"  # nothing beyond the coup was drawn
    assert coup.codes() == {"player": ["2H", "2D", "6H"], "banker": ["3S", "3C", "7C"]}


def test_coup_takes_card_codes_and_refuses_bad_ones():
    assert Coup(["5h", "KD"], ("9S", "7D")) == Coup.from_codes(["5H", "KD"], ["9S", "7D"])
    with pytest.raises(InvalidCard, match="card 2: '7X'"):
        Coup(["5H", "KD"], ["9S", "7X"])


def test_coup_takes_lists_and_stays_immutable():
    coup = Coup(list(parse_cards(["2H", "2D"])), list(parse_cards(["3S", "3C"])))
    assert isinstance(coup.player, tuple) and isinstance(coup.banker, tuple)
    assert coup == Coup.from_codes(["2H", "2D"], ["3S", "3C"])
    assert hash(coup) == hash(Coup.from_codes(["2H", "2D"], ["3S", "3C"]))
