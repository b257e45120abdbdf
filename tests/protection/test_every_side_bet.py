"""Game protection covers every side bet of every paytable, suit and colour bets included: each
coup's exact expectation stored per bet, and the advantage-play test run on each (a Perfect Pair
counter found)."""

import random
from collections import Counter
from fractions import Fraction

import pytest

from pit import game
from pit.compliance.checks import coups_check
from pit.compliance.models import RuleViolation
from pit.game import counting
from pit.protection.models import SideBetExpectation
from pit.shoes.models import Wager
from tests import factories

EVERY_BET = sorted({(name, bet) for name, paytable in game.PRESETS.items() for bet in paytable.bets})


@pytest.mark.parametrize(("preset", "bet"), EVERY_BET)
def test_every_bet_of_every_preset_is_covered_by_protection(preset, bet):
    """The registry: a bet is a side bet a counter can time (and so has an expectation stored and
    the advantage-play test) unless it is Player or Banker, whatever its facts; its name fits the
    rows that keep it. A new preset's bet fails here if protection cannot price it."""
    paytable = game.PRESETS[preset]
    assert len(bet) <= min(
        Wager._meta.get_field("bet").max_length, SideBetExpectation._meta.get_field("bet").max_length
    )
    if bet in game.MAIN_BETS:
        assert bet not in counting.side_bets(paytable)
        return
    assert bet in counting.side_bets(paytable)
    rng = random.Random(f"{preset}:{bet}")
    seen = Counter(rng.sample(list(game.ALL_CARD_CODES) * 8, 250))
    worth = counting.side_bet_expectations(paytable, 8, seen)
    # The exact expectation of the shoe left, by rank and suit: recomputed from the counts per card.
    left = game.CardComposition(tuple(8 - seen[code] for code in game.ALL_CARD_CODES))
    assert worth[bet] == game.exact_card_odds(paytable, left).bets[bet].expected_value
    assert isinstance(worth[bet], Fraction)


def test_a_suit_bet_is_priced_from_the_suits_seen():
    # The same ranks seen, other suits: Perfect Pair's worth changes, Dragon Bonus's does not.
    paytable = game.PRESETS["live_side_bets"]
    hearts = counting.side_bet_expectations(paytable, 8, Counter({"5H": 6, "KH": 6}))
    spread = counting.side_bet_expectations(
        paytable, 8, Counter({"5H": 2, "5D": 2, "5S": 2, "KH": 2, "KC": 2, "KS": 2})
    )
    assert hearts["perfect_pair"] != spread["perfect_pair"]
    assert hearts["dragon_bonus_player"] == spread["dragon_bonus_player"]


PP = game.PRESETS["perfect_pair"]
TAIL_KINDS = ["5H", "KS", "9D", "2C", "QH", "7S", "AD", "TC"]


def stacked_shoe():
    """An 8-deck shoe whose last 64 cards are all the copies of eight cards: late in it suited pairs
    come often and Perfect Pair is worth more than it costs."""
    cards = [game.CARDS[code] for code in game.ALL_CARD_CODES] * 8
    tail = [card for card in cards if card.code in TAIL_KINDS]
    head = [card for card in cards if card.code not in TAIL_KINDS]
    random.Random(32).shuffle(head)
    return game.Shoe(head + tail, 8, cut_position=400)


@pytest.mark.django_db
def test_a_perfect_pair_counter_is_flagged_and_a_random_bettor_is_not():
    table = factories.table(
        "PP1",
        preset="perfect_pair",
        limits={"player": ("25", "5000"), "banker": ("25", "5000"), "tie": ("5", "500"), "perfect_pair": ("5", "500")},
    )
    shoe = factories.shoe(table, cut_card_position=400)
    dealing, seen, worth_before = stacked_shoe(), Counter(), []
    number = 0
    while dealing.cards_left >= 12:
        worth = counting.side_bet_expectations(PP, 8, seen)
        coup = dealing.deal_coup()
        number += 1
        player, banker = [c.code for c in coup.player], [c.code for c in coup.banker]
        wagers = [factories.wager(2, "perfect_pair", "10")] if number % 3 == 0 else []
        if worth["perfect_pair"] > 0:
            wagers.append(factories.wager(1, "perfect_pair", "25"))
        factories.coup(shoe, number, player, banker, wagers=wagers)
        worth_before.append(worth)
        seen.update(player + banker)
    coups_check(coup_ids=list(shoe.coups.values_list("pk", flat=True)))

    # Every coup holds each side bet's exact expectation (Tie, the pairs, Perfect Pair).
    side = counting.side_bets(PP)
    assert set(side) == {"tie", "player_pair", "banker_pair", "perfect_pair"}
    assert SideBetExpectation.objects.filter(coup__shoe=shoe).count() == len(side) * number
    positives = [n for n, worth in enumerate(worth_before, 1) if worth["perfect_pair"] > 0]
    assert len(positives) >= 5 and positives[0] > 40  # late in the shoe only
    stored = SideBetExpectation.objects.get(coup__shoe=shoe, coup__number=positives[0], bet="perfect_pair")
    assert stored.positive and stored.expectation == game.fraction_to_decimal(
        worth_before[positives[0] - 1]["perfect_pair"], 12
    )

    [violation] = RuleViolation.objects.filter(code="side_bet_advantage_play")
    assert (violation.seat, violation.coup.number) == (1, positives[0])
    assert violation.message.startswith(f"Seat 1 placed {len(positives)} of its {len(positives)} side bets")
    assert "perfect_pair" in violation.message
