"""The rule checks on recorded coups: the entry points (a coup's check, the check a posted coup owes,
the sweep); a module per family of checks. Design: docs/design/rule-checks.md."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from pit.compliance.checks.findings import CheckTotals
from pit.compliance.checks.runner import shoes_check, shoes_check_fanned_out
from pit.core.db import is_postgresql
from pit.core.outbox import outbox_owed_row, outbox_pending, outbox_take_over
from pit.core.processes import fork_available
from pit.core.queues import VERIFY_TASK
from pit.protection.checks.runner import ProtectionRun
from pit.shoes.models import Coup


def coups_check(*, coup_ids: Iterable[int]) -> int:
    """Check recorded coups and record each finding once; clear earlier findings that no longer hold.
    Returns the number of findings that hold."""
    coup_ids = sorted(set(coup_ids))
    if not coup_ids:
        return 0
    shoe_ids = sorted(set(Coup.objects.filter(pk__in=coup_ids).values_list("shoe_id", flat=True)))
    # Game protection looks across coups, shoes and days (pit.protection.checks): it judges the
    # same chunks from the same reads, then the tables' days.
    protection = ProtectionRun()
    totals = shoes_check(shoe_ids, selected=Q(pk__in=coup_ids), protection=protection)
    return totals.holding + protection.finish(weekly=False)


def coups_check_owed(*, coup_ids: Iterable[int], task_id: str | None = None) -> int:
    """The check a posted coup owes (the urgent task `compliance.coups_verify`), coalesced per shoe: in
    one transaction, the task's own outbox row is re-read (another task may have done its coups
    already: then nothing is left), the checks still owed for other coups of the same shoes are taken
    over, and all their coups are checked at once. A taken-over row is emptied in the same
    transaction, so a failed check gives every coup back to its own task; a coup posted meanwhile
    owes a row this task did not see, and its own task checks it. Returns the findings that hold."""
    with transaction.atomic():
        own = outbox_owed_row(task_id=task_id) if task_id else None
        if own is not None:
            coup_ids = own.args[0] if own.args and not own.kwargs else coup_ids
        coup_ids = set(coup_ids)
        if not coup_ids:
            return 0
        shoe_ids = set(Coup.objects.filter(pk__in=coup_ids).values_list("shoe_id", flat=True))
        pending = [
            row
            for row in outbox_pending(VERIFY_TASK, exclude_task_id=task_id)
            if len(row.args) == 1 and isinstance(row.args[0], list) and row.args[0] and not row.kwargs
        ]
        shoe_of = dict(
            Coup.objects.filter(pk__in={pk for row in pending for pk in row.args[0]}).values_list("pk", "shoe_id")
        )
        taken = [row for row in pending if all(shoe_of.get(pk) in shoe_ids for pk in row.args[0])]
        outbox_take_over(taken, args=[[]])
        return coups_check(coup_ids=coup_ids.union(*(row.args[0] for row in taken)))


def coups_sweep(*, first_day: dt.date, last_day: dt.date, progress: Callable[[int], None] | None = None) -> CheckTotals:
    """Re-verify every coup of the gaming days `first_day` to `last_day` (inclusive), shoe by shoe.
    `progress` is called with the number of coups checked after each chunk."""
    if last_day < first_day:
        raise ValueError(f"the sweep ends ({last_day}) before it starts ({first_day})")
    in_range = Q(gaming_day__gte=first_day, gaming_day__lte=last_day)
    shoe_ids = list(Coup.objects.filter(in_range).order_by("shoe_id").values_list("shoe_id", flat=True).distinct())
    processes = sweep_processes()
    if processes > 1:
        return shoes_check_fanned_out(
            shoe_ids, selected=in_range, days=(first_day, last_day), progress=progress, processes=processes
        )
    protection = ProtectionRun(sweep=True)
    totals = shoes_check(shoe_ids, selected=in_range, progress=progress, protection=protection)
    totals.holding += protection.finish(weekly=True)
    return totals


def sweep_processes() -> int:
    """How many processes a sweep runs in: PIT_SWEEP_PROCESSES on PostgreSQL, outside a transaction
    (other processes could not see what it has not committed); one on SQLite."""
    wanted = settings.PIT_SWEEP_PROCESSES
    if wanted <= 1 or not is_postgresql() or connection.in_atomic_block or not fork_available():
        return 1
    return wanted


def coups_in_range_count(*, first_day: dt.date, last_day: dt.date) -> int:
    return Coup.objects.filter(gaming_day__gte=first_day, gaming_day__lte=last_day).count()
