"""Properties over random shoes: engine-dealt coups never break a rule; any wrong draw is caught."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from pit.game import (
    CARDS,
    Coup,
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
    )
    violations = verify_coup(Coup(tuple(player), tuple(banker)))
    sizes_ok = 2 <= len(player) <= 3 and 2 <= len(banker) <= 3
    assert ("hand_size" in [v.code for v in violations]) is not sizes_ok
