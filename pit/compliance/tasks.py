"""Celery tasks of the compliance checks: they take ids (or days), re-read their rows and call one service."""

import datetime as dt

from pit.compliance.checks import coups_check_owed, coups_sweep
from pit.core.gaming_day import current_gaming_day
from pit.core.queues import VERIFY_TASK
from pit.core.tasks import pit_task


@pit_task(VERIFY_TASK, bind=True)
def coups_verify(self, coup_ids: list[int]) -> int:
    """Check recorded coups against the rules, with the checks still owed for other coups of their
    shoes (coalesced: one task per shoe's pending coups); safe to run twice (findings are recorded once)."""
    return coups_check_owed(coup_ids=coup_ids, task_id=self.request.id)


@pit_task("compliance.coups_sweep")
def coups_sweep_task(first_day: str | None = None, last_day: str | None = None) -> dict:
    """Re-verify every coup of a range of gaming days (ISO dates); by default the last complete one."""
    last_complete = current_gaming_day() - dt.timedelta(days=1)
    first = dt.date.fromisoformat(first_day) if first_day else last_complete
    last = dt.date.fromisoformat(last_day) if last_day else first
    totals = coups_sweep(first_day=first, last_day=last)
    return {
        "coups": totals.coups,
        "holding": totals.holding,
        "created": totals.created,
        "restored": totals.restored,
        "cleared": totals.cleared,
    }
