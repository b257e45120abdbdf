"""Game protection, item 2: every coup's exact side-bet expectations, and a seat whose side bets
fall on positive-expectation coups beyond chance (side_bet_advantage_play)."""

import random
from collections import Counter
from fractions import Fraction

import pytest

from pit import game
from pit.compliance.checks import coups_check
from pit.compliance.models import RuleViolation
from pit.game import counting
from pit.protection.models import SideBetExpectation
from tests import factories

EZ = game.PRESETS["ez_baccarat"]
SIDE = ("dragon_7", "panda_8")


def test_side_bet_expectations_are_the_exact_odds_of_the_shoe_left():
    seen = Counter({"7H": 3, "7S": 2, "8D": 4, "KC": 1})
    expectations = counting.side_bet_expectations(EZ, 8, seen)
    assert set(expectations) == {"tie", "dragon_7", "panda_8"}
    odds = game.exact_odds(EZ, game.composition_after(8, seen))
    assert expectations["dragon_7"] == odds.bets["dragon_7"].expected_value
    assert counting.side_bet_expectations(EZ, 8, {})["dragon_7"] == -game.exact_odds(EZ, 8).bets["dragon_7"].house_edge
    with pytest.raises(ValueError):
        counting.side_bet_expectations(EZ, 1, {"7H": 5})


def test_tail_probability_of_a_poisson_binomial():
    assert counting.tail_probability([0.5, 0.5], 2) == pytest.approx(0.25)
    assert counting.tail_probability([0.5, 0.5], 1) == pytest.approx(0.75)
    assert counting.tail_probability([0.1, 0.2, 0.5], 0) == pytest.approx(1.0)
    assert counting.tail_probability([0.1] * 3, 3) == pytest.approx(0.001)
    assert counting.tail_probability([Fraction(1, 4)] * 2, 3) == 0


def dealt_with_counts(seed=3):
    """An EZ shoe dealt by the engine, with what each side bet was worth before each coup."""
    shoe = game.new_shoe(8, random.Random(seed), cut_from_end=16)
    seen, coups = Counter(), []
    while not shoe.cut_card_reached:
        worth = counting.side_bet_expectations(EZ, 8, seen)
        coup = shoe.deal_coup()
        coups.append(([c.code for c in coup.player], [c.code for c in coup.banker], worth))
        seen.update(c.code for c in (*coup.player, *coup.banker))
    return coups


@pytest.fixture
def ez_shoe(db):
    table = factories.table(
        "EZ1",
        preset="ez_baccarat",
        limits={
            "player": ("25", "5000"),
            "banker": ("25", "5000"),
            "tie": ("5", "500"),
            "dragon_7": ("5", "500"),
            "panda_8": ("5", "500"),
        },
    )
    return factories.shoe(table)


def play(shoe, coups, *, counter: bool):
    """Seat 2 bets Dragon 7 and Panda 8 every third coup whatever the cards; seat 1, with `counter`,
    bets each of them exactly when it is worth more than it costs."""
    for number, (player, banker, worth) in enumerate(coups, start=1):
        wagers = [factories.wager(2, bet, "10") for bet in SIDE if number % 3 == 0]
        if counter:
            wagers += [factories.wager(1, bet, "25") for bet in SIDE if worth[bet] > 0]
        factories.coup(shoe, number, player, banker, wagers=wagers)


@pytest.mark.django_db
def test_a_counter_is_flagged_and_a_random_bettor_is_not(ez_shoe):
    coups = dealt_with_counts()
    play(ez_shoe, coups, counter=True)
    coup_ids = list(ez_shoe.coups.values_list("pk", flat=True))
    coups_check(coup_ids=coup_ids)

    # Every coup holds every side bet's exact expectation before it, positive where the engine says so.
    assert SideBetExpectation.objects.filter(coup__shoe=ez_shoe).count() == 3 * len(coups)
    first_positive = next(n for n, (_, _, worth) in enumerate(coups, 1) if any(worth[b] > 0 for b in SIDE))
    stored = SideBetExpectation.objects.get(coup__shoe=ez_shoe, coup__number=first_positive, positive=True)
    assert stored.expectation == game.fraction_to_decimal(coups[first_positive - 1][2][stored.bet], 12)

    [violation] = RuleViolation.objects.filter(code="side_bet_advantage_play")
    hits = sum(1 for _, _, worth in coups for bet in SIDE if worth[bet] > 0)
    assert (violation.seat, violation.coup.number, violation.severity) == (1, first_positive, "medium")
    assert violation.message.startswith(f"Seat 1 placed {hits} of its {hits} side bets on coups where the bet had")
    assert f"coup {first_positive} " in violation.message and "staked 25.00" in violation.message

    coups_check(coup_ids=coup_ids)  # again: the same finding, once
    assert RuleViolation.objects.filter(code="side_bet_advantage_play").count() == 1
    assert SideBetExpectation.objects.filter(coup__shoe=ez_shoe).count() == 3 * len(coups)


@pytest.mark.django_db
def test_random_side_bets_raise_nothing(ez_shoe):
    play(ez_shoe, dealt_with_counts(), counter=False)
    coups_check(coup_ids=list(ez_shoe.coups.values_list("pk", flat=True)))
    assert SideBetExpectation.objects.filter(coup__shoe=ez_shoe, positive=True).count() == 28
    assert not RuleViolation.objects.filter(code="side_bet_advantage_play").exists()
