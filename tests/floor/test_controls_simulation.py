"""The simulated floor keeps the pit's internal controls as a well-run pit does (decks received and
issued for every shoe, keys drawn and back in time by people on their lists, every shift change
handed over and accepted): on honest days no control finding at all; each injected lapse is found
by its check, and nothing else."""

import pytest

from pit.compliance.models import RuleViolation
from pit.controls.checks import controls_check
from pit.controls.models import DeckIssue, HandoverAcceptance, KeyIssue
from pit.controls.selectors import card_days
from pit.core.gaming_day import gaming_day_for
from pit.floor.clients import ServicesFloorClient
from pit.floor.controls import CONTROL_FAULT_CODES, parse_control_faults, simulate_controls
from pit.floor.simulator import simulate
from pit.shoes.models import Shoe
from tests.floor.conftest import NOW

pytestmark = pytest.mark.django_db
CODES = set(CONTROL_FAULT_CODES.values()) | {"deck_issued_twice", "deck_in_use_overdue"}


def _play(days, tables, seed):
    return simulate(ServicesFloorClient(), now=NOW, tables=tables, days=days, seed=seed)


def _check(days_back):
    first = gaming_day_for(NOW)
    for back in range(days_back, -1, -1):
        controls_check(gaming_day=first.fromordinal(first.toordinal() - back), now=NOW)


def _findings():
    return sorted(
        RuleViolation.objects.filter(code__in=CODES, cleared_at__isnull=True).values_list("code", "gaming_day")
    )


def test_control_lapses_parse():
    assert parse_control_faults("late_key=0.5") == {
        "short_issue": 0.0,
        "unlisted_key": 0.0,
        "late_key": 0.5,
        "missed_handover": 0.0,
    }
    with pytest.raises(ValueError, match="'lost_key' is not a control lapse"):
        parse_control_faults("lost_key=1")


def test_every_lapse_is_found_and_nothing_else(pit_tables, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        _play(3, ["BB1", "MN1"], seed=4)
    faults = simulate_controls(seed=4, now=NOW, faults=dict.fromkeys(CONTROL_FAULT_CODES, 1.0))
    _check(4)
    assert {fault.kind for fault in faults} == set(CONTROL_FAULT_CODES)
    expected = sorted((fault.code, fault.gaming_day) for fault in faults)
    # A key drawn late by the clerk is both lapses at once; every shoe, drop and change lapsed.
    assert _findings() == expected
    shoes = Shoe.objects.count()
    assert sum(fault.kind == "short_issue" for fault in faults) == shoes


@pytest.mark.slow
def test_thirty_honest_days_raise_no_control_finding(pit_tables, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        result = _play(30, ["BB1", "MN2"], seed=30)
    assert simulate_controls(seed=30, now=NOW) == []
    assert simulate_controls(seed=30, now=NOW) == []  # run again, nothing more is recorded
    _check(31)
    assert _findings() == []
    shoes = Shoe.objects.count()
    assert shoes == result.shoes == 60
    assert DeckIssue.objects.count() == sum(Shoe.objects.values_list("decks", flat=True))
    assert KeyIssue.objects.filter(key__code__startswith="DBR-").count() == 2 * 29  # today's drop is to come
    # One change a day (24-hour shifts) with tables open: every day but the first, opened after its change.
    assert HandoverAcceptance.objects.count() == 29
    days = list(card_days(gaming_day_for(NOW).fromordinal(gaming_day_for(NOW).toordinal() - 29), gaming_day_for(NOW)))
    assert all(day.balanced and day.overdue == [] for day in days)
