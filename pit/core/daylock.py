"""A closed gaming day takes no new fact: the one guard every write service of a fact passes through.

The write services of every app declare themselves here (`day_write`: the fact models they insert
and how a row maps to its gaming day) and call `days_ensure_open` with the gaming days of what they
are about to insert, inside their transaction and before anything is written. The rest of each
services module is listed with its reason in `EXEMPT`. The close state belongs to table accounting,
which sits above the shoes and the ledger: it registers its check at start-up (`day_guard_register`),
so a lower app refuses a closed day without importing accounting. `tests/core/test_daylock.py`
walks every services module, fails on a public function neither declared nor exempt, and drives
each declared one against a closed day. Design: docs/design/derived.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class DayWrite:
    """A write service of facts of a gaming day: what it inserts, and which gaming day that is."""

    service: str  # module.function
    writes: tuple[str, ...]  # the fact models it inserts, as app_label.Model
    day_of: str  # how its rows map to a gaming day, in words


WRITE_SERVICES: dict[str, DayWrite] = {}

# The public functions of a services module that take no fact of a gaming day, and why. A whole
# module is named by its module path, a function by module.function.
EXEMPT: dict[str, str] = {
    "pit.accounts.services": "devices, keys, tokens and users: access, no figure of a gaming day",
    "pit.archive.services": "partitions and archives move what is recorded; they add no fact",
    "pit.controls.services": (
        "the custody of cards and keys and the shift handover are control records of the pit, no figure of a "
        "gaming day: a key comes back and used decks are destroyed after a day closes"
    ),
    "pit.compliance.services": "findings and their reviews go on after a close (a closed day's findings are read)",
    "pit.paytables.services": "paytable versions are set-up, superseded, never a fact of one gaming day",
    "pit.protection.services": "the stale-feed check records findings, no fact of play",
    "pit.records.services": "verification records findings, no fact of play",
    "pit.reports.services": "exports read; their files are no fact of a gaming day",
    "pit.rollups.services": "rollups are derived figures, recomputed whole from the detail",
    "pit.ratings.services.ratings_refresh": "derived (docs/design/ratings.md); its inputs are refused on a closed day",
    "pit.ratings.services.ratings_refresh_day": "derived: the close's re-check of its day's ratings",
    "pit.ratings.services.session_rate": "a read: the rating computed, not saved",
    "pit.ratings.services.coup_edges": "derived: each coup's exact edges, priced once by the engine",
    "pit.ratings.services.coup_edges_keep": "derived: each coup's exact edges, as the protection check priced them",
    "pit.ratings.services.comp_balance_minor": "a read",
    "pit.ratings.services.comp_redeem": "a patron's comp account, no figure of a gaming day's play",
    "pit.ratings.services.reinvestment_rate_set": "a tier's rate is set-up, no figure of a gaming day",
    "pit.ratings.services.reinvestment_rate_at": "a read",
    "pit.ratings.services.fraction_text": "words, no write",
    "pit.ratings.services.to_places": "arithmetic, no write",
    "pit.ratings.services.round_minor": "arithmetic, no write",
    "pit.tables.services": (
        "tables, limits (their announcements) and their open/close status are set-up, no figure of a gaming day"
    ),
    "pit.notices.services": (
        "notices to surveillance and the regulator, their acknowledgements and filings go on after a close"
    ),
    "pit.shoes.services.owed": "what a write owes after commit: outbox rows inside the write's own guard",
    "pit.shoes.services.reposts": "the comparison of a repost, inside coups_record's guard",
    "pit.shoes.services.settlement": "the engine's settlement in memory, no write",
    "pit.shoes.services.shoes.shoe_lock": "a lock, no write",
    "pit.dashboard.services": "shift notes hand over the floor, no fact of play; shift_of/shift_before are reads",
    "pit.players.services.patron_enrol": "a patron is a person enrolled in the player club, no fact of a gaming day",
    "pit.players.services.patron_version_record": "a patron's details, no fact of a gaming day",
    "pit.players.services.patron_look_record": "the audit event of a look at a patron, which goes on after a close",
    "pit.players.services.exclusion_record": "a person's status across days; its alarms are findings",
    "pit.players.services.exclusion_lift": "an exclusion's lift, a person's status across days",
    "pit.dealers.services.dealer_create": "a dealer is staff, no fact of a gaming day",
    "pit.dealers.services.violation_attribute": "the review of a finding, which goes on after a close",
    "pit.dealers.services.rotations_overdue_record": "derived findings (a rotation open past a shift)",
    "pit.shoes.services.corrections.coup_correction_preview": "a read: what a correction would pay, no write",
    "pit.ledger.services.seat_balance_minor": "a read",
    "pit.ledger.services.variance_tolerance_minor": "a setting read",
    "pit.ledger.services.shoe_reconcile": "derived (docs/design/derived.md); its inputs are refused on a closed day",
    "pit.ledger.services.shoe_reconcile_supplement": "derived, inside shoe_reconcile",
    "pit.ledger.services.reconciliation_explain": "the explanation of a finding, which goes on after a close",
    "pit.accounting.services.shifts_per_day": "a setting read",
    "pit.cash.services.rules_record": "cash-reporting rules are set-up, versioned, never a fact of one gaming day",
    "pit.cash.services.rate_record": "a rate is set-up for its day's transactions, which keep the rate they used",
    "pit.cash.services.threshold_near_check": "an alarm (a finding), inside transaction_record's guard",
    "pit.cash.services.cash_deadlines_check": "an alarm over filing deadlines (findings), no gaming day's figure",
    "pit.cash.services.cash_check_day": "derived findings, recomputed from the day's transactions",
    "pit.cash.services.finding_review": "compliance's review of a finding goes on after a close",
    "pit.accounting.services.chips_normalize": "input checking, no write",
    "pit.accounting.services.chips_difference": "words, no write",
    "pit.accounting.services.slips_flag_unreceived": "derived findings",
    "pit.accounting.services.win_tolerance_minor": "a setting read",
    "pit.accounting.services.win_reconcile": "derived (docs/design/derived.md), re-run by the close itself",
    "pit.accounting.services.hold_rule": "a setting read",
    "pit.accounting.services.hold_range": "a read",
    "pit.accounting.services.hold_check": "derived, inside win_reconcile",
    "pit.accounting.services.holds_investigate": "derived findings (a rule change re-checks a closed day too)",
    "pit.accounting.services.hold_finding_write": "the explanation of a finding, which goes on after a close",
    "pit.accounting.services.day_close_blockers": "a read",
    "pit.accounting.services.day_recheck": "derived: the close's re-check of its day",
    "pit.accounting.services.gaming_day_close": "the lock itself",
    "pit.accounting.services.gaming_day_reopen": "the lock itself",
    "pit.progressives.services.meter_file": "a meter and its filed configuration are set-up, no figure of a gaming day",
    "pit.progressives.services.meter_configuration_file": "a filed configuration is set-up, in force from now on",
    "pit.progressives.services.meters_read": "derived (docs/design/progressives.md): readings from the facts",
    "pit.progressives.services.meters_read_for_table": "derived, the re-check a correction or void owes",
    "pit.accounting.services.slip_series_book": "a read",
    "pit.accounting.services.slip_book_record": "blank slip forms received: stock, no figure of a gaming day",
    "pit.accounting.services.slip_number_void": "a blank form voided: stock, no figure of a gaming day",
    "pit.accounting.services.slip_series_check": "derived findings (a gap in the slip series)",
    "pit.accounting.services.adjustment_record": "the one fact a closed day takes (refused on an open day)",
}

_Service = TypeVar("_Service", bound=Callable[..., Any])


def day_write(*, writes: tuple[str, ...], day_of: str) -> Callable[[_Service], _Service]:
    """Declare a write service of facts of a gaming day (it calls `days_ensure_open` itself, where it
    knows the days: often only under the lock it takes)."""

    def declare(service: _Service) -> _Service:
        name = f"{service.__module__}.{service.__name__}"
        WRITE_SERVICES[name] = DayWrite(service=name, writes=writes, day_of=day_of)
        return service

    return declare


_guard: list[Callable[[list[dt.date]], None]] = []


def day_guard_register(check: Callable[[list[dt.date]], None]) -> None:
    """The check of closed days (table accounting's, at start-up): raises Conflict naming a closed one."""
    _guard[:] = [check]


def days_ensure_open(days: Iterable[dt.date]) -> None:
    """Raise Conflict (the API's 409) naming the first closed day among `days`; call it inside the
    writing transaction, before anything is written: it holds each day's shared lock until the end."""
    wanted = sorted(set(days))
    if not wanted:
        return
    if not _guard:
        raise ImproperlyConfigured("No gaming-day guard is registered (pit.accounting is not installed).")
    _guard[0](wanted)
