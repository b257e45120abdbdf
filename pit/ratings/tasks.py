"""Celery tasks of the ratings: the refresh a write owes (outbox), safe to run twice."""

import datetime as dt

from pit.core.queues import RATINGS_TASK
from pit.core.tasks import pit_task

from .services import ratings_refresh


@pit_task(RATINGS_TASK)
def table_day_refresh(table_id: int, gaming_day: str) -> int:
    """Owed by every write of coups, wagers, corrections and the sessions' facts of a table-day:
    recompute the ratings of the sessions they touch."""
    return ratings_refresh(table_id=table_id, gaming_day=dt.date.fromisoformat(gaming_day))
