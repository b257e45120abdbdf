"""The simulated floor's table accounting: openers, closers, fills, credits and drops consistent
with the play (statutory win = the wagers' house win, each closer the next opener), and the
accounting faults it injects (a short fill, a miscounted drop) found by the checks."""

import pytest

from pit.accounting.models import CountKind, InventoryCount, Slip
from pit.accounting.selectors import period_figures, win_difference_minor
from pit.compliance.models import RuleViolation
from pit.floor.accounting import chips_for, parse_accounting_faults, simulate_accounting
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.tables.models import Table
from tests.floor.conftest import NOW

pytestmark = pytest.mark.django_db
ACCOUNTING_CODES = {"inventory_chain_break", "slip_amount_mismatch", "slip_not_received", "win_reconciliation_variance"}


@pytest.fixture
def played(pit_tables, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        return simulate(ServicesFloorClient(), now=NOW, tables=["BB1", "MN1", "MN2"], days=3, seed=3)


def test_chips_for_and_fault_rates():
    assert chips_for(500000) == {"100000": 5}
    assert chips_for(1234567) == {"1": 17, "25": 2, "500": 4, "2500": 1, "10000": 3, "100000": 12}
    assert parse_accounting_faults("short_fill=0.5") == {"short_fill": 0.5, "miscounted_drop": 0.0}
    assert parse_accounting_faults("1") == {"short_fill": 1.0, "miscounted_drop": 1.0}
    with pytest.raises(ValueError, match="'short_drop' is not an accounting fault"):
        parse_accounting_faults("short_drop=0.1")


def test_honest_accounting_ties_to_the_play(played):
    assert simulate_accounting(coup_ids=played.coup_ids, seed=3) == []
    assert not RuleViolation.objects.filter(code__in=ACCOUNTING_CODES).exists()
    figures = period_figures(date_from=NOW.date().replace(day=1), date_to=NOW.date())
    assert len(figures) == 9  # three tables, three days
    for (day, table_id, _), item in figures.items():
        table = Table.objects.get(pk=table_id)
        statutory, house_win, drop = win_difference_minor(table=table, gaming_day=day)
        assert (item.win, item.complete) == (house_win, True)
        assert statutory == house_win and drop > 0
    # The chain: every opener is the closer before it, chip for chip.
    for table in Table.objects.filter(code__in=["BB1", "MN1", "MN2"]):
        counts = list(InventoryCount.objects.filter(table=table).order_by("gaming_day", "kind"))
        closers = [count.chips for count in counts if count.kind == CountKind.CLOSER]
        openers = [count.chips for count in counts if count.kind == CountKind.OPENER]
        assert openers[1:] == closers[:-1]
    assert Slip.objects.exists()  # trays ran low or high somewhere, and slips moved chips
    # Running it again changes nothing.
    assert simulate_accounting(coup_ids=played.coup_ids, seed=3) == []
    assert InventoryCount.objects.count() == 18


def test_every_accounting_fault_is_found_and_nothing_else(played):
    faults = simulate_accounting(coup_ids=played.coup_ids, seed=3, faults={"short_fill": 1.0, "miscounted_drop": 1.0})
    kinds = {fault.kind for fault in faults}
    assert kinds == {"short_fill", "miscounted_drop"}
    assert sum(fault.kind == "miscounted_drop" for fault in faults) == 9
    recorded = sorted(
        (code, table)
        for code, table in RuleViolation.objects.filter(code__in=ACCOUNTING_CODES).values_list("code", "table__code")
    )
    assert recorded == sorted((fault.code, fault.table) for fault in faults)


CONTROL_CODES = {"slip_number_gap", "surveillance_unacknowledged"}


def test_honest_controls_find_nothing(played):
    assert simulate_accounting(coup_ids=played.coup_ids, seed=3, controls=True) == []
    assert not RuleViolation.objects.filter(code__in=CONTROL_CODES | ACCOUNTING_CODES).exists()
    from pit.notices.models import SurveillanceNotification  # noqa: PLC0415 - only this test reads them

    assert SurveillanceNotification.objects.filter(kind="drop").count() == 9  # every drop notified
    assert all(number.isdigit() for number in Slip.objects.values_list("number", flat=True))


def test_every_control_lapse_is_found_and_nothing_else(played):
    faults = simulate_accounting(
        coup_ids=played.coup_ids, seed=3, controls=True, faults={"skipped_slip": 1.0, "late_acknowledgement": 1.0}
    )
    assert {fault.kind for fault in faults} == {"skipped_slip", "late_acknowledgement"}
    recorded = sorted(RuleViolation.objects.filter(code__in=CONTROL_CODES).values_list("code", "table__code"))
    assert recorded == sorted((fault.code, fault.table) for fault in faults)


@pytest.mark.slow
def test_thirty_honest_days_keep_every_control(pit_tables, settings, django_capture_on_commit_callbacks):
    """A well-run pit for 30 gaming days under Washington's rules: every slip from the book in order,
    every drop notified and acknowledged, every opener its closer: no control finds anything."""
    from pit.notices.models import RegulatorNotice, SurveillanceNotification  # noqa: PLC0415 - this test only

    settings.PIT_JURISDICTION = "us-wa"
    with django_capture_on_commit_callbacks(execute=True):
        played = simulate(ServicesFloorClient(), now=NOW, tables=["BB1"], days=30, seed=11)
    assert simulate_accounting(coup_ids=played.coup_ids, seed=11, controls=True) == []
    assert not RuleViolation.objects.filter(code__in=CONTROL_CODES | ACCOUNTING_CODES).exists()
    assert not RuleViolation.objects.filter(code__startswith="regulator_").exists()
    assert not RegulatorNotice.objects.exists()
    assert SurveillanceNotification.objects.filter(kind="drop").count() == 30
