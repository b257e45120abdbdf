"""Game protection, item 3: win against theoretical beyond a z threshold, per table and seat, over
the shoe, the gaming day and the last 7 gaming days (win_deviation)."""

import random

import pytest

from pit import game
from pit.compliance.checks import coups_check, coups_sweep
from pit.compliance.models import RuleViolation
from tests import factories

pytestmark = pytest.mark.django_db


def found():
    return sorted(RuleViolation.objects.filter(code="win_deviation").values_list("fingerprint", flat=True))


def test_a_table_where_player_wins_every_coup_is_flagged_per_table_and_seat(settings):
    settings.PIT_PROTECTION_Z_MIN_WAGERS = 50
    table = factories.table("BB1")
    shoe = factories.shoe(table)
    coups = [
        factories.coup(
            shoe,
            number,
            ["9H", "KD"],
            ["5S", "TD"],
            wagers=[factories.wager(1, "player", "100"), factories.wager(2, "player", "100")],
        )
        for number in range(1, 61)
    ]
    coups_check(coup_ids=[coup.pk for coup in coups])
    day = coups[0].gaming_day

    def expected(*scopes):
        return sorted(
            f"win_deviation:table{table.pk}:{scope}{seat}" for scope in scopes for seat in ("", ":seat1", ":seat2")
        )

    assert found() == expected(f"shoe{shoe.pk}", f"day{day}")  # after each coup: the shoe and the day
    coups_sweep(first_day=day, last_day=day)  # the nightly sweep adds the week
    assert found() == expected(f"shoe{shoe.pk}", f"day{day}", f"week{day}")
    table_day = RuleViolation.objects.get(fingerprint=f"win_deviation:table{table.pk}:day{day}")
    assert table_day.message.startswith(
        f"Table BB1 on gaming day {day}: the house won -12000.00 against a theoretical 148.21 over 120 wagers, -"
    )
    assert table_day.severity == "medium" and table_day.shoe_id is None and table_day.seat is None

    coups_check(coup_ids=[coup.pk for coup in coups])  # again: each scope once
    coups_sweep(first_day=day, last_day=day)
    assert found() == expected(f"shoe{shoe.pk}", f"day{day}", f"week{day}")


def test_below_the_minimum_of_wagers_nothing_is_judged(settings):
    settings.PIT_PROTECTION_Z_MIN_WAGERS = 200
    shoe = factories.shoe(factories.table("BB1"))
    coups = [
        factories.coup(shoe, number, ["9H", "KD"], ["5S", "TD"], wagers=[factories.wager(1, "player", "100")])
        for number in range(1, 61)
    ]
    coups_check(coup_ids=[coup.pk for coup in coups])
    assert found() == []


def test_an_honest_shoe_raises_nothing(settings):
    settings.PIT_PROTECTION_Z_MIN_WAGERS = 50
    shoe = factories.shoe(factories.table("BB1"))
    dealer = game.new_shoe(8, random.Random(5), cut_from_end=16)
    recorded = []
    number = 0
    while not dealer.cut_card_reached:
        number += 1
        coup = dealer.deal_coup()
        recorded.append(
            factories.coup(
                shoe,
                number,
                [c.code for c in coup.player],
                [c.code for c in coup.banker],
                wagers=[factories.wager(1, "player", "100"), factories.wager(2, "banker", "100")],
            )
        )
    coups_check(coup_ids=[coup.pk for coup in recorded])
    assert found() == []
