"""Win reconciliation: a table-day's statutory win against the house win of its recorded wagers,
with a tolerance, a violation beyond it, and a finding cleared when a later figure settles it."""

import datetime as dt
from decimal import Decimal

import pytest

from pit.accounting.services import drop_record, inventory_record, slip_issue, slip_receive, slip_request
from pit.compliance.models import RuleViolation
from pit.reports.accounting import MASTER_GAME
from pit.reports.definitions import ReportFilters, report_lines
from tests import factories
from tests.accounting.conftest import DAY

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealt(pit, django_capture_on_commit_callbacks):
    """BB1 on DAY: Banker wins on a natural; Banker 100 wins (5.00 commission into the box), Player 300
    loses: the house wins 300 - 100 + 5 = 205.00."""
    with django_capture_on_commit_callbacks(execute=True):
        shoe = factories.shoe(pit.bb1)
        noon = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
        factories.coup(
            shoe,
            1,
            ["2H", "KD"],
            ["8C", "KS"],
            dealt_at=noon,
            wagers=[factories.wager(1, "banker", "100"), factories.wager(2, "player", "300")],
        )
    inventory_record(
        table=pit.bb1,
        gaming_day=DAY,
        kind="opener",
        chips={"2500": 40},
        dealer=pit.dealer,
        pit_boss=pit.boss,
        secrets=pit.secrets,
        actor=pit.actor,
    )
    return pit


def close(pit, closer, drop_cash):
    inventory_record(
        table=pit.bb1,
        gaming_day=DAY,
        kind="closer",
        chips=closer,
        dealer=pit.dealer,
        pit_boss=pit.boss,
        secrets=pit.secrets,
        actor=pit.actor,
    )
    drop_record(table=pit.bb1, gaming_day=DAY, cash=drop_cash, actor=pit.actor)


def wins():
    return RuleViolation.objects.filter(code="win_reconciliation_variance", cleared_at__isnull=True)


def test_statutory_win_equal_to_the_wagers_raises_nothing(dealt):
    close(dealt, {"2500": 48, "500": 1}, {})  # 0 + 1,205 - 1,000 = 205.00
    assert not RuleViolation.objects.filter(code="win_reconciliation_variance").exists()
    row = next(line.values for line in report_lines(MASTER_GAME, ReportFilters(date_from=DAY, date_to=DAY)))
    assert (row["win"], row["house_win"], row["win_difference"], row["reconciliation"]) == (
        Decimal("205.00"),
        Decimal("205.00"),
        Decimal("0.00"),
        "within tolerance",
    )


def test_difference_beyond_tolerance_is_a_violation_that_clears_when_settled(dealt):
    # $300 in the drop that no recorded wager accounts for: 300 + 1,205 - 1,000 = 505.00 against 205.00.
    close(dealt, {"2500": 48, "500": 1}, {"10000": 3})
    violation = wins().get()
    assert (violation.severity, violation.table, violation.gaming_day) == ("high", dealt.bb1, DAY)
    assert violation.message == (
        "The statutory win of BB1 on 2026-11-20 is $505.00; its recorded wagers won $205.00: $300.00 more in the "
        "tray and drop than the wagers account for."
    )
    # A fill of $300 received late (keyed after the drop) settles it: the finding is cleared, not deleted.
    slip = slip_request(
        kind="fill",
        number="F-late",
        table=dealt.bb1,
        gaming_day=DAY,
        reason="late key",
        chips={"10000": 3},
        actor=dealt.actor,
    )
    slip_issue(slip=slip, chips={"10000": 3}, actor=dealt.cage_actor)
    slip_receive(slip=slip, chips={"10000": 3}, actor=dealt.table_actor)
    assert not wins().exists()
    assert RuleViolation.objects.get(pk=violation.pk).cleared_at is not None


def test_within_the_configured_tolerance_is_no_violation(dealt, settings):
    settings.PIT_WIN_RECONCILIATION_TOLERANCE = "5.00"
    close(dealt, {"2500": 48}, {})  # 200.00 against 205.00: within 5.00
    assert not RuleViolation.objects.filter(code="win_reconciliation_variance").exists()


def test_incomplete_day_is_not_reconciled(dealt):
    inventory_record(
        table=dealt.bb1,
        gaming_day=DAY,
        kind="closer",
        chips={"2500": 1},
        dealer=dealt.dealer,
        pit_boss=dealt.boss,
        secrets=dealt.secrets,
        actor=dealt.actor,
    )
    assert not RuleViolation.objects.filter(code="win_reconciliation_variance").exists()
