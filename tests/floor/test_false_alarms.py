"""An honest floor raises no game-protection alarm: 30 simulated gaming days at the documented
thresholds (the settings' defaults), the checks run as production runs them, not one finding.

Scaled down to stay affordable in CI: two tables (big baccarat with commission in the box and the
pair bets, and EZ baccarat, no commission, whose Dragon 7 and Panda 8 turn positive late in most
shoes) and one shoe a table a day (about 80 coups, where a real table deals 6 to 8 shoes). Every
statistic is still judged on real samples: a shoe's win against theoretical on its ~380 wagers, a
seat's week on ~500, each seat's side bets per day, each dealer's day. The dealers are not perfect
either: they mispay or misdeal about 3 coups in 1,000 (the rule checks find each), below the
accepted rate, so dealer_error_rate is judged on real errors too.
"""

import datetime as dt

import pytest
from django.utils import timezone

from pit.compliance.checks import coups_sweep
from pit.compliance.models import RuleViolation
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.ledger.models import Reconciliation, ReconciliationStatus
from pit.ledger.services import shoe_reconcile
from pit.protection.dealer_errors import dealer_error_rates_check
from pit.protection.selectors import ALARM_CODES
from pit.protection.services import stale_feeds_check
from pit.shoes.models import Coup, Shoe
from tests.floor.conftest import NOW

PROTECTION_CODES = set(ALARM_CODES) | {"side_bet_advantage_play", "dealer_error_rate"}
DAYS = 30
TABLES = ["BB1", "MN2"]
HONEST_MISTAKES = {"wrong_payout": 0.002, "wrong_draw": 0.001}


@pytest.mark.slow
@pytest.mark.django_db
def test_thirty_honest_days_raise_no_protection_alarm(pit_tables, django_capture_on_commit_callbacks):
    # Played as a floor system posts a backlog; the checks then run as the nightly sweep and beat run them.
    with django_capture_on_commit_callbacks(execute=False):
        result = simulate(
            ServicesFloorClient(),
            tables=TABLES,
            days=DAYS,
            seed=30,
            now=NOW,
            faults=HONEST_MISTAKES,
            dealers=len(TABLES) + 1,
        )
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))
    assert len(days) == DAYS and result.shoes == len(TABLES) * DAYS
    assert {fault.kind for fault in result.faults} == set(HONEST_MISTAKES)

    for shoe_id in Shoe.objects.values_list("pk", flat=True):
        shoe_reconcile(shoe_id=shoe_id)  # what the shuffle enqueues
    coups_sweep(first_day=days[0], last_day=days[-1])  # every night's sweep, weeks included
    stale_feeds_check(now=timezone.now() + dt.timedelta(hours=1))  # beat, every minute
    dealer_error_rates_check(first_day=days[0], last_day=days[-1])  # beat, every 10 minutes

    assert set(Reconciliation.objects.values_list("status", flat=True)) == {ReconciliationStatus.BALANCED}
    # The dealers' mistakes were found, coup by coup...
    mistakes = {(fault.code, fault.coup_id) for fault in result.faults}
    assert set(RuleViolation.objects.exclude(code__in=PROTECTION_CODES).values_list("code", "coup_id")) == mistakes
    # ...and not one protection finding, over 30 days.
    alarms = list(RuleViolation.objects.filter(code__in=PROTECTION_CODES).values_list("code", "message"))
    assert alarms == []
