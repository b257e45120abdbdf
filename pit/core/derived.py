"""Derived figures and checks follow their inputs: one registry of what each one reads.

A derived finding (the win reconciliation and the hold investigation of a table-day, the box
reconciliation of a shoe and its supplements, the daily rollups) is computed from facts. Each one
declares here the fact models it reads, the key it is run for (a shoe, a table-day) and the task
that re-runs it; a write service that inserts any of those facts calls `derived_follow` in its
transaction, which owes the task of every derived check reading them through the outbox. The
gaming-day close re-runs every one of them before it locks the day
(`pit.accounting.services.day_recheck`, one re-check per entry here). Tests enumerate the registry
against the derived figures and the facts they read (tests/core/test_derived.py). Names are strings:
this module sits below every app it names. Design: docs/design/derived.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from pit.core.outbox import outbox_enqueue
from pit.core.queues import METERS_TASK, RATINGS_TASK, RECONCILE_TASK, REFRESH_TASK, WIN_RECHECK_TASK

SHOE = "shoe"
TABLE_DAY = "table_day"


@dataclass(frozen=True)
class Derived:
    """A derived figure or check: what it reads, what it writes, and how it is re-run."""

    name: str
    task: str  # re-runs it for one key: (shoe id,) or (table id, gaming day ISO)
    key: str  # SHOE or TABLE_DAY
    reads: frozenset[str]  # fact models, app_label.Model
    figures: tuple[str, ...]  # what it writes: models (app_label.Model) and violation codes
    closed_shoes_only: bool = False  # runs once its shoe is closed at the shuffle
    complete_days_only: bool = False  # a new coup of the live gaming day owes no re-run (the close re-runs it)
    # Facts among `reads` whose write services re-run it themselves, in their own transaction (the
    # counting screen shows the finding at once): they owe no task.
    inline: frozenset[str] = frozenset()


_PLAY = frozenset({"shoes.Coup", "shoes.Wager", "shoes.CoupCorrection"})

DERIVED: tuple[Derived, ...] = (
    Derived(
        name="win_reconciliation",
        task=WIN_RECHECK_TASK,
        key=TABLE_DAY,
        reads=_PLAY
        | {"accounting.InventoryCount", "accounting.SlipStep", "accounting.DropCount", "accounting.Adjustment"},
        figures=("win_reconciliation_variance", "accounting.HoldFlag"),  # the hold investigation runs with it
        complete_days_only=True,
        inline=frozenset(
            {"accounting.InventoryCount", "accounting.SlipStep", "accounting.DropCount", "accounting.Adjustment"}
        ),
    ),
    Derived(
        name="box_reconciliation",
        task=RECONCILE_TASK,
        key=SHOE,
        reads=_PLAY | {"ledger.CommissionEntry", "ledger.BoxCount"},
        figures=(
            "ledger.Reconciliation",
            "ledger.ReconciliationSeat",
            "ledger.ReconciliationSupplement",
            "ledger.ReconciliationSupplementSeat",
            "box_variance",
        ),
        closed_shoes_only=True,
    ),
    Derived(
        name="rollups",
        task=REFRESH_TASK,
        key=SHOE,
        reads=_PLAY | {"ledger.CommissionEntry"},
        figures=("rollups.TableDayRollup", "rollups.BetRollup", "rollups.RolledUpDay"),
        complete_days_only=True,
    ),
    # Kept up to date coup by coup on the live day too: a rating is at most one coup behind.
    Derived(
        name="ratings",
        task=RATINGS_TASK,
        key=TABLE_DAY,
        reads=_PLAY
        | {
            "players.SeatSession",
            "players.SessionEvent",
            "players.SessionIdentification",
            "ratings.AverageBetEstimate",
        },
        figures=("ratings.SessionRating", "ratings.CoupEdges", "ratings.RatedTableDay"),
    ),
    # The progressive meters' readings (pit.progressives): a correction or void of a bank table's
    # coup moves the contributions (what it withdrew is carried, so the meter stays); a live coup
    # owes nothing, the meter is computed live and the close records the day's last reading.
    Derived(
        name="progressive_meters",
        task=METERS_TASK,
        key=SHOE,
        reads=_PLAY,
        figures=("progressives.MeterReading",),
        complete_days_only=True,
    ),
)


def derived_reading(written: Iterable[str]) -> list[Derived]:
    """The derived checks that read any of these fact models, in registry order."""
    labels = set(written)
    return [derived for derived in DERIVED if derived.reads & labels]


def _owes_task(derived: Derived, written: set[str]) -> bool:
    return bool((derived.reads & written) - derived.inline)


def derived_owed(
    written: Iterable[str],
    *,
    shoe_id: int | None = None,
    shoe_closed: bool = False,
    table_days: Iterable[tuple[int, dt.date]] = (),
    live: bool = False,
) -> list[tuple[str, tuple[object, ...]]]:
    """(task, args) of every derived check that reads what a write inserted: per shoe, per table-day.
    `live`: coups of the live gaming day, just dealt (they owe only what is not complete_days_only)."""
    owed: list[tuple[str, tuple[object, ...]]] = []
    days = sorted(set(table_days))
    labels = set(written)
    for derived in derived_reading(labels):
        if not _owes_task(derived, labels) or (live and derived.complete_days_only):
            continue
        if derived.key == SHOE:
            if shoe_id is not None and (shoe_closed or not derived.closed_shoes_only):
                owed.append((derived.task, (shoe_id,)))
        else:
            owed += [(derived.task, (table_id, day.isoformat())) for table_id, day in days]
    return owed


def derived_follow(
    written: Iterable[str],
    *,
    shoe_id: int | None = None,
    shoe_closed: bool = False,
    table_days: Iterable[tuple[int, dt.date]] = (),
    live: bool = False,
) -> None:
    """Owe (outbox, in the current transaction) the re-run of every derived check reading what was written."""
    for task, args in derived_owed(written, shoe_id=shoe_id, shoe_closed=shoe_closed, table_days=table_days, live=live):
        outbox_enqueue(task, *args)
