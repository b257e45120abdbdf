"""Celery tasks of table accounting: the re-run of a table-day's win reconciliation a new fact owes."""

import datetime as dt

from django.db import transaction

from pit.core.queues import WIN_RECHECK_TASK
from pit.core.tasks import pit_task
from pit.tables.models import Table

from .services import slip_series_check, win_reconcile


@pit_task(WIN_RECHECK_TASK)
def table_day_recheck(table_id: int, gaming_day: str) -> int | None:
    """Owed (outbox) by a new fact a table-day's win reconciliation reads (pit.core.derived): a late
    coup, a correction, a void. Re-runs it and the hold investigation; safe to run twice."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return None
    with transaction.atomic():
        return win_reconcile(table=table, gaming_day=dt.date.fromisoformat(gaming_day))


@pit_task("accounting.slip_series_check")
def slip_series_check_task() -> int:
    """Every slip number accounted for: a gap in the series is a finding (recorded once)."""
    with transaction.atomic():
        return slip_series_check()
