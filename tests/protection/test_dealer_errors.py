"""Game protection over dealers: a dealer whose dealing and paying errors over a gaming day are far
beyond the accepted rate (dealer_error_rate), device faults left out."""

import datetime as dt
import random

import pytest

from pit import game
from pit.accounts.models import Role
from pit.compliance.models import RuleViolation
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.dealers.services import dealer_create, dealer_rotate, violation_attribute
from pit.game.counting import poisson_tail
from pit.protection.dealer_errors import dealer_error_rates_check
from pit.protection.selectors import alarms_unreviewed
from pit.protection.tasks import dealer_error_rates_check_task
from pit.shoes.models import Coup
from pit.tables.services import table_open
from tests import factories as f
from tests.admin.conftest import make_user

pytestmark = pytest.mark.django_db
# Yesterday's gaming day, from 14:00 on: every coup of the test falls in it, whatever the hour now.
DAY = gaming_day_for(dt.datetime.now(dt.UTC)) - dt.timedelta(days=1)
T0 = gaming_day_bounds(DAY)[0] + dt.timedelta(hours=8)


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


@pytest.fixture
def floor(settings, django_capture_on_commit_callbacks):
    """BB1: Ana deals 20 coups from T0 and mispays 5 of them; Ben deals the next 20 and mispays 1."""
    settings.PIT_PROTECTION_DEALER_ERRORS_PER_1000 = 5
    settings.PIT_PROTECTION_DEALER_ERROR_P_VALUE = 1e-5
    ana, ben = dealer_create(code="D1", name="Ana"), dealer_create(code="D2", name="Ben")
    table = table_open(table=f.table("BB1", open_=False), at=at(-60))
    shoe = f.shoe(table, shuffled_at=at(-5))
    dealer_rotate(table=table, dealer=ana, started_at=at(0))
    dealer_rotate(table=table, dealer=ben, started_at=at(40))
    cards = game.new_shoe(8, random.Random(7))
    mispaid = {3, 7, 11, 15, 19, 30}
    with django_capture_on_commit_callbacks(execute=True):
        for number in range(1, 41):
            coup = cards.deal_coup()
            winner = game.evaluate(coup).winner
            right = "100" if winner is game.Winner.PLAYER else "0"
            f.coup(
                shoe,
                number,
                [c.code for c in coup.player],
                [c.code for c in coup.banker],
                dealt_at=at(2 * number - 1),
                wagers=[f.wager(1, "player", "100", paid="1" if number in mispaid else right)],
            )
    return {"table": table, "ana": ana, "ben": ben}


def test_a_dealer_far_beyond_the_accepted_rate_is_flagged_and_the_others_are_not(floor):
    assert RuleViolation.objects.filter(code="payout_mismatch").count() == 6
    assert dealer_error_rates_check(first_day=DAY, last_day=DAY) == 1

    [violation] = RuleViolation.objects.filter(code="dealer_error_rate")
    last_error = Coup.objects.get(number=19)
    assert violation.fingerprint == f"dealer_error_rate:dealer{floor['ana'].pk}:{DAY}"
    assert (violation.table, violation.coup, violation.shoe_id, violation.gaming_day, violation.severity) == (
        floor["table"],
        last_error,
        last_error.shoe_id,
        DAY,
        "medium",
    )
    p_value = poisson_tail(5 * 20 / 1000, 5)
    assert f"{p_value:.1e}" == "7.7e-08"
    assert violation.message == (
        f"Dealer D1 made 5 dealing or paying errors in 20 coups on gaming day {DAY} (250.0 per 1,000 coups; "
        "at the accepted 5 per 1,000 about 0.1 were to be expected; chance of this many by bad luck: 7.7e-08). "
        "Errors put down to a device are not counted. Errors: payout_mismatch at table BB1 shoe 1 coup 3; "
        "payout_mismatch at table BB1 shoe 1 coup 7; payout_mismatch at table BB1 shoe 1 coup 11; "
        "payout_mismatch at table BB1 shoe 1 coup 15; payout_mismatch at table BB1 shoe 1 coup 19."
    )
    # An alarm, in the banner and the API's list, like the other protections.
    assert list(alarms_unreviewed()) == [violation]


def test_checked_again_it_is_recorded_once(floor):
    dealer_error_rates_check(first_day=DAY, last_day=DAY)
    dealer_error_rates_check(first_day=DAY, last_day=DAY)
    assert dealer_error_rates_check(first_day=DAY - dt.timedelta(days=1), last_day=DAY) == 1
    assert RuleViolation.objects.filter(code="dealer_error_rate").count() == 1


def test_errors_put_down_to_a_device_are_not_the_dealers_and_the_finding_clears(floor):
    dealer_error_rates_check(first_day=DAY, last_day=DAY)
    boss = make_user(Role.PIT_BOSS.value, username="boss")
    for violation in RuleViolation.objects.filter(code="payout_mismatch", coup__number__in=[3, 7, 11]):
        violation_attribute(violation=violation, fault="device", user=boss, note="bet recognition misread")

    assert dealer_error_rates_check(first_day=DAY, last_day=DAY) == 0  # 2 in 20: within chance
    [violation] = RuleViolation.objects.filter(code="dealer_error_rate")
    assert violation.cleared_at is not None
    assert list(alarms_unreviewed()) == []


def test_within_the_accepted_rate_or_by_chance_nothing_is_flagged(floor, settings):
    settings.PIT_PROTECTION_DEALER_ERRORS_PER_1000 = 200  # 4 expected in 20: 5 is no surprise
    assert dealer_error_rates_check(first_day=DAY, last_day=DAY) == 0
    assert not RuleViolation.objects.filter(code="dealer_error_rate").exists()


def test_the_beat_task_judges_the_previous_and_the_current_gaming_day(floor):
    assert dealer_error_rates_check_task.apply().get() == 1
    assert RuleViolation.objects.filter(code="dealer_error_rate", gaming_day=DAY).count() == 1


def test_the_poisson_tail():
    assert poisson_tail(2.0, 0) == 1.0
    assert poisson_tail(0.0, 1) == 0.0
    assert poisson_tail(1.0, 1) == pytest.approx(1 - 0.36787944117144233, rel=1e-12)
    # Far in the tail the digits are kept: P(X >= 12) at mean 0.6 is 2.6e-12 (1 - head would be 0 or noise).
    assert poisson_tail(0.6, 12) == pytest.approx(2.614275385826e-12, rel=1e-9)
