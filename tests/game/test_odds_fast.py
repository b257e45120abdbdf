"""The fast exact odds (NumPy, exact int64) against the pure-Python enumeration they replaced, to the
last digit of every Fraction: outcome probabilities and every bet of every preset."""

import random
from collections import Counter

import numpy as np
import pytest

from pit.game import ALL_CARD_CODES, PRESETS, Paytable, ShoeComposition, composition_after, exact_odds, needs_cards
from pit.game.odds import _KEYS, _outcome_weights, _outcome_weights_reference, exact_odds_reference

# The rank path's presets (a suit or colour bet is priced over the 52 kinds: test_card_odds.py).
PRESET_LIST = [paytable for paytable in PRESETS.values() if not needs_cards(paytable)]
# A paytable made to use the facts the presets leave out, so every fact and odd net is compared too.
EXOTIC = Paytable.from_dict(
    {
        "name": "exotic",
        "commission_mode": "deducted",
        "commission_rate": "0.04",
        "commission_rounding": {"increment": "0.01", "mode": "half_up"},
        "bets": {
            "player": {
                "rules": [
                    {"when": ["player_wins_natural"], "result": "win", "odds": "3:2"},
                    {"when": ["player_wins"], "result": "win", "odds": "1:1", "commission": True},
                ]
            },
            "banker": {
                "rules": [
                    {"when": ["banker_wins_three_card_6"], "result": "push"},
                    {"when": ["banker_wins"], "result": "win", "odds": "1:1", "commission": True},
                ]
            },
            "big": {
                "rules": [
                    {"when": ["big", "both_pairs"], "result": "win", "odds": "200:1"},
                    {"when": ["big"], "result": "win", "odds": "1:2"},
                ]
            },
            "small": {
                "rules": [
                    {"when": ["small", "natural_tie"], "result": "win", "odds": "25:1"},
                    {"when": ["small"], "result": "win", "odds": "3:2"},
                ]
            },
            "either_pair": {
                "rules": [
                    {"when": ["either_pair", "tie_on_0"], "result": "win", "odds": "75:1"},
                    {"when": ["either_pair"], "result": "win", "odds": "5:1"},
                ]
            },
            "margin": {
                "rules": [
                    {"when": ["banker_wins_by_9"], "result": "win", "odds": "30:1"},
                    {"when": ["player_wins_by_4", "player_drew", "banker_drew"], "result": "win", "odds": "9:1"},
                ]
            },
        },
    }
)


def random_shoes(count: int, seed: int) -> list[ShoeComposition]:
    """Depleted 1- to 8-deck shoes: mostly 6 to 12 cards left, late in a shoe where side bets are
    counted and where the reference costs a few ms (80 ms on a full shoe, which would make this test
    run for many minutes), and one in 200 anywhere from 13 cards to the whole shoe."""
    rng = random.Random(seed)
    shoes = []
    for index in range(count):
        decks = rng.choice((1, 2, 6, 8, 8, 8))
        deck = list(ALL_CARD_CODES) * decks
        left = rng.randint(13, len(deck)) if index % 200 == 0 else rng.randint(6, 12)
        shoes.append(composition_after(decks, rng.sample(deck, len(deck) - left)))
    return shoes


def weights_as_dict(counts):
    weights, denominator = _outcome_weights(counts)
    return {_KEYS[i]: int(ways) for i, ways in enumerate(weights.tolist()) if ways}, denominator


@pytest.mark.slow
def test_fast_equals_reference_on_5000_random_depleted_shoes():
    shoes = random_shoes(5000, seed=14)
    assert len({shoe.counts for shoe in shoes}) > 4500
    for index, shoe in enumerate(shoes):
        # Every outcome (totals, cards, pairs) to the prefix, then every bet of a preset in turn.
        assert weights_as_dict(shoe.counts) == _outcome_weights_reference(shoe.counts), shoe
        paytable = (*PRESET_LIST, EXOTIC)[index % (len(PRESET_LIST) + 1)]
        assert exact_odds(paytable, shoe) == exact_odds_reference(paytable, shoe), (paytable.name, shoe)


@pytest.mark.parametrize("paytable", [*PRESET_LIST, EXOTIC], ids=lambda p: p.name)
def test_fast_equals_reference_for_every_bet_on_full_and_odd_shoes(paytable):
    shoes = [
        ShoeComposition.full(8),
        ShoeComposition.full(1),
        composition_after(8, Counter({"TS": 8, "JS": 8, "QH": 8, "KC": 8, "9D": 8, "8S": 8})),  # rich in small cards
        ShoeComposition.from_mapping({"K": 4, "Q": 1, "5": 1}),  # six cards, pairs of kings only
        ShoeComposition.from_mapping({"T": 3, "J": 3, "Q": 3, "K": 3}),  # nothing but ten-valued cards
        ShoeComposition.from_mapping({"7": 6, "A": 1}),
    ]
    for shoe in shoes:
        assert exact_odds(paytable, shoe) == exact_odds_reference(paytable, shoe), shoe


def test_a_shoe_too_big_for_64_bits_takes_the_reference():
    assert _outcome_weights(ShoeComposition.full(23).counts) is None
    assert _outcome_weights(ShoeComposition.full(22).counts) is not None
    paytable = PRESETS["ez_baccarat"]
    assert exact_odds(paytable, 23) == exact_odds_reference(paytable, 23)
    assert exact_odds(paytable, 22) == exact_odds_reference(paytable, 22)


def test_too_few_cards_is_refused_as_before():
    with pytest.raises(ValueError, match="a coup can need six cards; this shoe has 5"):
        exact_odds(PRESETS["commission_box"], {"A": 5})


def test_the_verdict_products_in_float64_halves_are_exact_at_the_largest_counts():
    """`_PaytableVerdicts.ways` multiplies through float64: weights of 22 decks' size, every low bit
    set, give the sums Python's integers give."""
    from pit.game.odds import _INT64_LIMIT, _paytable_verdicts

    verdicts = _paytable_verdicts(EXOTIC)
    rng = random.Random(61)
    for _ in range(20):
        # Weights adding up to just under 2**61 (a 22-deck shoe's prefixes), some of them large.
        cut = sorted(rng.randrange(_INT64_LIMIT) for _ in range(len(_KEYS) - 1))
        weights = [b - a for a, b in zip([0, *cut], [*cut, _INT64_LIMIT - 1], strict=True)]
        weights[rng.randrange(len(weights))] |= 0xFFFFFFFF
        facts, classes = verdicts.ways(np.array(weights, dtype=np.int64))
        assert facts == [sum(w for w, on in zip(weights, column, strict=True) if on) for column in verdicts.facts.T]
        assert classes == [sum(w for w, on in zip(weights, column, strict=True) if on) for column in verdicts.classes.T]
