"""Properties over random shoes: engine-dealt coups never break a rule; any wrong draw is caught."""

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pit.game import (
    CARDS,
    Coup,
    card_facts,
    deal_coup,
    evaluate,
    new_shoe,
    outcome_facts,
    verify_coup,
)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
any_card = st.sampled_from(sorted(CARDS.values()))


def dealt(seed, decks=8):
    shoe = new_shoe(decks, random.Random(seed))
    shoe.burn()
    return shoe.deal_coup()


@settings(max_examples=300)
@given(seeds, st.integers(min_value=1, max_value=8))
def test_engine_dealt_coups_never_show_a_violation(seed, decks):
    coup = dealt(seed, decks)
    outcome = evaluate(coup)
    assert verify_coup(coup, outcome.winner) == []
    assert 2 <= len(coup.player) <= 3 and 2 <= len(coup.banker) <= 3


@settings(max_examples=300)
@given(st.lists(any_card, min_size=6, max_size=6))
def test_any_six_cards_deal_a_legal_coup(cards):
    coup = deal_coup(iter(cards))
    assert verify_coup(coup) == []
    assert list(coup.cards_in_order) == cards[: len(coup.player) + len(coup.banker)]


@settings(max_examples=300)
@given(seeds, any_card)
def test_adding_or_removing_player_third_card_is_caught(seed, extra):
    coup = dealt(seed)
    if len(coup.player) == 3:
        wrong = Coup(coup.player[:2], coup.banker)
        expected = "player_missing_card"
    else:
        wrong = Coup((*coup.player, extra), coup.banker)
        expected = "player_extra_card"
    assert expected in [v.code for v in verify_coup(wrong)]


@settings(max_examples=300)
@given(seeds, any_card)
def test_adding_or_removing_banker_third_card_is_caught(seed, extra):
    coup = dealt(seed)
    if len(coup.banker) == 3:
        wrong = Coup(coup.player, coup.banker[:2])
        expected = "banker_missing_card"
    else:
        wrong = Coup(coup.player, (*coup.banker, extra))
        expected = "banker_extra_card"
    # Only Banker changed, so that is the only violation.
    assert [v.code for v in verify_coup(wrong)] == [expected]


@settings(max_examples=200)
@given(seeds, st.sampled_from(["player", "banker", "tie"]))
def test_a_wrong_reported_winner_is_always_caught(seed, reported):
    coup = dealt(seed)
    codes = [v.code for v in verify_coup(coup, reported)]
    assert codes == ([] if evaluate(coup).winner == reported else ["reported_winner_mismatch"])


@settings(max_examples=300)
@given(st.lists(any_card, max_size=5), st.lists(any_card, max_size=5))
def test_evaluation_never_fails_and_facts_are_consistent(player, banker):
    outcome = evaluate(Coup(tuple(player), tuple(banker)))
    facts = outcome.facts
    assert sum(fact in facts for fact in ("player_wins", "banker_wins", "tie")) == 1
    assert (outcome.player_pair or outcome.banker_pair) == ("either_pair" in facts)
    assert facts == outcome_facts(
        outcome.player_total,
        outcome.banker_total,
        len(player),
        len(banker),
        outcome.player_pair,
        outcome.banker_pair,
        outcome.player_natural,
        outcome.banker_natural,
    ) | card_facts(outcome.player_suited_pair, outcome.banker_suited_pair, outcome.twin_pairs, outcome.colour)
    # The card facts, from the cards themselves.
    every = [*player, *banker]
    assert ("all_red" in facts) == (bool(every) and all(card.suit in "HD" for card in every))
    assert ("all_black" in facts) == (bool(every) and all(card.suit in "SC" for card in every))
    assert ("player_suited_pair" in facts) == (len(player) >= 2 and player[0].code == player[1].code)
    assert ("banker_suited_pair" in facts) == (len(banker) >= 2 and banker[0].code == banker[1].code)
    assert ("twin_pairs" in facts) == (outcome.player_pair and outcome.banker_pair and player[0].rank == banker[0].rank)
    violations = verify_coup(Coup(tuple(player), tuple(banker)))
    sizes_ok = 2 <= len(player) <= 3 and 2 <= len(banker) <= 3
    assert ("hand_size" in [v.code for v in violations]) is not sizes_ok


hands = st.lists(any_card, min_size=0, max_size=4)


@settings(max_examples=400)
@given(hands, hands, seeds, st.sampled_from([None, "player", "banker", "tie"]))
def test_coups_with_one_signature_are_judged_and_evaluated_alike(player, banker, seed, said):
    """`coup_signature` names everything verify_coup and evaluate look at: a coup rebuilt from other
    cards with the same signature (other first two cards of the same total and pairing, later cards
    of the same values, any suits) breaks the same rules and evaluates alike."""
    from pit.game import RANKS, coup_signature

    rng = random.Random(seed)

    def judged(player, banker):
        coup = Coup(tuple(player), tuple(banker))
        try:
            evaluation = evaluate(coup)
        except ValueError:
            evaluation = None
        return [finding.code for finding in verify_coup(coup, said)], evaluation

    def card(rank, suit):
        return CARDS[rank + suit]

    def same_value(one):
        return card(rng.choice([rank for rank in RANKS if CARDS[rank + "S"].value == one.value]), one.suit)

    def alike(hand):
        # Other ranks of the same values, each card keeping its suit (so suited pairs and colours stay).
        if len(hand) < 2:
            return [same_value(one) for one in hand]
        total, pair = (hand[0].value + hand[1].value) % 10, hand[0].rank == hand[1].rank
        first, second = rng.choice(
            [
                (a, b)
                for a in RANKS
                for b in RANKS
                if (CARDS[a + "S"].value + CARDS[b + "S"].value) % 10 == total and (a == b) == pair
            ]
        )
        return [card(first, hand[0].suit), card(second, hand[1].suit), *[same_value(one) for one in hand[2:]]]

    twin_player, twin_banker = alike(player), alike(banker)
    signature, original = coup_signature(twin_player, twin_banker), coup_signature(player, banker)
    assert signature[:2] == original[:2]
    # Pairs of one rank in both hands (twin pairs) are the one card fact other ranks can change.
    assume(signature == original)
    assert judged(twin_player, twin_banker) == judged(player, banker)
