"""Protection by person: a counter who changes seats and tables keeps under the per-seat test (fewer
than three hits at any seat) but is found across them, and the finding names the patron."""

import datetime as dt

import pytest

from pit.compliance.models import RuleViolation
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.protection.checks.by_patron import patron_checks
from pit.protection.models import SideBetExpectation
from pit.ratings.services import ratings_refresh
from tests import factories
from tests.ratings import players
from tests.ratings.players import floor_seat, floor_session_event
from tests.shoes import hands

pytestmark = pytest.mark.django_db

HANDS = [hands.BANKER_NATURAL, hands.PLAYER_NATURAL, hands.BANKER_SIX, hands.PLAYER_PAIR]
POSITIVE = {7, 14, 21, 28}  # the coups of each shoe where the Tie was worth betting


def test_a_counter_across_seats_and_tables_is_found_by_card_number():
    day = current_gaming_day() - dt.timedelta(days=1)  # a day whose moments have all passed
    start = gaming_day_bounds(day)[0] + dt.timedelta(hours=3)
    counter, honest = players.patron("C-7777", "Counter"), players.patron("C-8888", "Honest", nationality="MO")
    for index, code in enumerate(("BB1", "BB2")):
        table = factories.table(code)
        begin = start + dt.timedelta(hours=2 * index)
        first = floor_seat(table=table, seat=1, at=begin, patron=counter)
        floor_seat(table=table, seat=5, at=begin, patron=honest)
        shoe = factories.shoe(table, shuffled_at=begin)
        for number in range(1, 31):
            at = begin + dt.timedelta(minutes=number)
            if number == 16:  # the counter moves to seat 2
                floor_session_event(session=first, kind="stand", at=at - dt.timedelta(seconds=20))
                floor_seat(table=table, seat=2, at=at - dt.timedelta(seconds=10), patron=counter)
            seat = 1 if number < 16 else 2
            wagers = [factories.wager(seat, "banker", "100"), factories.wager(5, "banker", "100")]
            if number in POSITIVE:
                wagers.append(factories.wager(seat, "tie", "25"))
            if number % 9 == 0:
                wagers.append(factories.wager(5, "tie", "25"))  # at random: mostly not positive
            coup = factories.coup(shoe, number, *HANDS[number % len(HANDS)], dealt_at=at, wagers=wagers)
            SideBetExpectation.objects.create(
                coup=coup,
                bet="tie",
                expectation="0.010000000000" if number in POSITIVE else "-0.140000000000",
                positive=number in POSITIVE,
            )
        ratings_refresh(table_id=table.pk, gaming_day=day, whole=True)
    assert patron_checks(first_day=day, last_day=day) == 1
    finding = RuleViolation.objects.get(code="side_bet_advantage_play")
    assert finding.message.startswith("Patron C-7777 (gaming days")
    assert "placed 8 of its 8 side bets" in finding.message
    assert "C-8888" not in RuleViolation.objects.values_list("message", flat=True)
    # Run again: the same finding, not a second one.
    assert patron_checks(first_day=day, last_day=day) == 1
    assert RuleViolation.objects.filter(code="side_bet_advantage_play").count() == 1
