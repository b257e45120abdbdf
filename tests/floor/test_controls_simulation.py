"""The simulated floor keeps the pit's internal controls as a well-run pit does (decks received and
issued for every shoe, keys drawn and back in time by people on their lists, every shift change
handed over and accepted, slips from the one series with spoiled forms voided before a witness,
surveillance acknowledging what it is told, every notice to the regulator filed in time): on
honest days no control finding at all; each injected lapse is found by its check, and nothing else."""

import dataclasses
import datetime as dt
from decimal import Decimal

import pytest

from pit.accounting.models import Slip, SlipVoid
from pit.compliance.models import RuleViolation
from pit.controls.checks import controls_check
from pit.controls.models import DeckIssue, HandoverAcceptance, KeyIssue
from pit.controls.selectors import card_days
from pit.core import jurisdictions
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.floor.accounting import simulate_accounting
from pit.floor.clients import ServicesFloorClient
from pit.floor.controls import CONTROL_FAULT_CODES, parse_control_faults, simulate_controls
from pit.floor.simulator import simulate
from pit.notices.models import RegulatorNotice, SurveillanceNotification
from pit.notices.services import regulator_deadlines_check, surveillance_late_check
from pit.shoes.models import Coup, Shoe, Wager
from pit.tables.models import LimitChange
from tests.floor.conftest import NOW

pytestmark = pytest.mark.django_db
LIMIT_CODES = {"wager_under_minimum", "wager_over_maximum", "wager_off_increment"}
CODES = (
    set(CONTROL_FAULT_CODES.values())
    | {"deck_issued_twice", "deck_in_use_overdue", "regulator_notice_due"}
    | LIMIT_CODES
)
MINUTE = dt.timedelta(minutes=1)


def _rules(settings, monkeypatch, base: str) -> None:
    """A jurisdiction's rules with Washington's fill/credit rule down to $50: each short fill ($100)
    is a notice to the regulator."""
    rule = jurisdictions.RegulatorRule(
        "wa_slip", jurisdictions.SLIP_DISCREPANCY, Decimal("50"), 24, "WAC 230-15-495 (threshold lowered)"
    )
    preset = dataclasses.replace(jurisdictions.PRESETS[base], code=f"{base}-test", regulator_rules=(rule,))
    monkeypatch.setitem(jurisdictions.PRESETS, preset.code, preset)
    settings.PIT_JURISDICTION = preset.code


@pytest.fixture
def reporting(settings, monkeypatch):
    """Ohio's rules (30 minutes' notice of a raise; seated players keep their minimum), reporting short fills."""
    _rules(settings, monkeypatch, "us-oh")


def _play(days, tables, seed):
    return simulate(ServicesFloorClient(), now=NOW, tables=tables, days=days, seed=seed)


def _check(days_back):
    """The checks as beat runs them: the controls of each day; surveillance's minute check at each
    day's end and now; the regulator's deadlines once the last has passed."""
    first = gaming_day_for(NOW)
    for back in range(days_back, -1, -1):
        day = first.fromordinal(first.toordinal() - back)
        controls_check(gaming_day=day, now=NOW)
        surveillance_late_check(now=gaming_day_bounds(day)[1])
    surveillance_late_check(now=dt.datetime.now(dt.UTC) + dt.timedelta(hours=1))
    last_due = max(RegulatorNotice.objects.values_list("due_at", flat=True), default=None)
    if last_due is not None:
        regulator_deadlines_check(now=last_due + MINUTE)


def _days(played, code):
    return sorted(
        set(Coup.objects.filter(pk__in=played.coup_ids, shoe__table__code=code).values_list("gaming_day", flat=True))
    )


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
        "unwatched_decks": 0.0,
        "unfiled_notice": 0.0,
        "kept_raise": 0.0,
        "skipped_slip": 0.0,
        "late_acknowledgement": 0.0,
    }
    with pytest.raises(ValueError, match="'lost_key' is not a control lapse"):
        parse_control_faults("lost_key=1")


def test_every_lapse_is_found_and_nothing_else(pit_tables, reporting, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr("pit.floor.limits.RAISE_SHARE", 1.0)  # a raise every day a table plays again after
    with django_capture_on_commit_callbacks(execute=False):
        played = _play(3, ["BB1", "MN1"], seed=4)
    lapses = dict.fromkeys(CONTROL_FAULT_CODES, 1.0)
    faults = simulate_accounting(coup_ids=played.coup_ids, seed=4, controls=True, faults={**lapses, "short_fill": 1.0})
    faults = [fault for fault in faults if fault.kind in CONTROL_FAULT_CODES]
    faults += simulate_controls(seed=4, now=NOW, faults=lapses)
    _check(4)
    assert {fault.kind for fault in faults} == set(CONTROL_FAULT_CODES)
    once = [fault for fault in faults if fault.kind != "kept_raise"]
    expected = sorted((fault.code, fault.gaming_day) for fault in once)
    # A key drawn late by the clerk is both lapses at once; every shoe, drop, change, slip and notice lapsed.
    assert [finding for finding in _findings() if finding[0] not in LIMIT_CODES] == expected
    held = RuleViolation.objects.filter(code__in=CODES, cleared_at__isnull=True)
    assert sorted(
        held.exclude(code__in={"shift_not_handed_over", *LIMIT_CODES}).values_list("code", "table__code")
    ) == sorted((fault.code, fault.table) for fault in once if fault.kind != "missed_handover")
    # A raise kept: the next day's players under it at that table (a wager each), and on no other day.
    kept = {(fault.table, fault.gaming_day) for fault in faults if fault.kind == "kept_raise"}
    assert kept == {("BB1", day) for day in _days(played, "BB1")[1:]} | {
        ("MN1", day) for day in _days(played, "MN1")[1:]
    }
    limits = held.filter(code__in=LIMIT_CODES)
    assert set(limits.values_list("code", flat=True)) == {"wager_under_minimum"}
    assert set(limits.values_list("table__code", "gaming_day")) == kept
    shoes = Shoe.objects.count()
    assert sum(fault.kind == "short_issue" for fault in faults) == shoes
    assert sum(fault.kind == "unwatched_decks" for fault in faults) == shoes
    # Each skipped form is the gap its finding names; each unfiled notice is one of a short fill.
    gaps = sorted(int(fault.detail.split()[2]) for fault in faults if fault.kind == "skipped_slip")
    assert (
        gaps
        and sorted(
            int(message.split()[2]) for message in held.filter(code="slip_number_gap").values_list("message", flat=True)
        )
        == gaps
    )
    fills = Slip.objects.filter(kind="fill").count()
    assert sum(fault.kind == "unfiled_notice" for fault in faults) == RegulatorNotice.objects.count() == fills > 0


@pytest.mark.slow
def test_thirty_honest_days_raise_no_control_finding(pit_tables, reporting, django_capture_on_commit_callbacks):
    """Honest controls over 30 days of play whose table accounting has its errors (a fill in five
    received short): every error reported to the regulator in time, and no control finds anything."""
    with django_capture_on_commit_callbacks(execute=False):
        result = _play(30, ["BB1", "MN2"], seed=30)
    accounting = simulate_accounting(coup_ids=result.coup_ids, seed=30, controls=True, faults={"short_fill": 0.2})
    assert {fault.kind for fault in accounting} == {"short_fill"}
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
    # Every shoe's decks, every drop (today's too: its shoes are closed) and the large fills told to
    # surveillance, and acknowledged in time.
    told = SurveillanceNotification.objects.all()
    assert told.filter(kind="decks").count() == shoes
    assert told.filter(kind="drop").count() == 2 * 30
    assert (
        told.filter(kind="large_fill").count() == Slip.objects.filter(kind="fill", total_minor__gte=1000000).count() > 0
    )
    assert told.filter(acknowledgement__isnull=True).count() == 0
    # Every short fill reported and filed before its deadline; spoiled forms voided, witnessed.
    notices = RegulatorNotice.objects.select_related("filing")
    assert notices.count() == len(accounting) > 0
    assert all(notice.filing.filed_at <= notice.due_at for notice in notices)
    assert SlipVoid.objects.exclude(witness=None).count() == SlipVoid.objects.count() > 0
    # The raises: announced with 30 minutes' notice while players were seated, put back after the
    # shoe; the seated players went on betting the old minimum, grandfathered (no limit finding above).
    raises = list(LimitChange.objects.filter(tightens=True).order_by("announced_at"))
    assert raises and all(change.players_seated and change.notice_minutes == 30 for change in raises)
    grandfathered = 0
    for change in raises:
        restored = LimitChange.objects.filter(table=change.table, announced_at__gt=change.announced_at).earliest(
            "announced_at"
        )
        raised = change.table.limit_versions.get(effective_from=change.effective_from, bet="banker").minimum_minor
        grandfathered += Wager.objects.filter(
            coup__shoe__table=change.table,
            coup__dealt_at__gte=change.effective_from,
            coup__dealt_at__lt=restored.effective_from,
            bet__in=("player", "banker"),
            amount_minor__lt=raised,
        ).count()
    assert grandfathered > 0


def test_a_raise_without_grandfathering_waits_for_the_shoe_to_end(
    pit_tables, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Maryland gives 30 minutes' notice and keeps no seated player on the old minimum: each raise is
    announced before the shoe ends and takes effect when it has, and the sweep finds nothing."""
    _rules(settings, monkeypatch, "us-md")
    monkeypatch.setattr("pit.floor.limits.RAISE_SHARE", 1.0)
    with django_capture_on_commit_callbacks(execute=False):
        played = _play(3, ["BB1", "MN1"], seed=5)
    assert simulate_controls(seed=5, now=NOW) == []
    _check(4)
    assert _findings() == []
    raises = LimitChange.objects.filter(tightens=True)
    assert raises.count() == len(_days(played, "BB1")[1:]) + len(_days(played, "MN1")[1:]) > 0
    for change in raises:
        last = Coup.objects.filter(shoe__table=change.table, dealt_at__lt=change.effective_from).latest("dealt_at")
        assert change.effective_from - change.announced_at >= dt.timedelta(minutes=30)
        assert not Coup.objects.filter(
            shoe__table=change.table, dealt_at__gte=change.effective_from, gaming_day=last.gaming_day
        ).exists()
