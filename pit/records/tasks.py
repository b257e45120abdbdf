"""Celery tasks of the records: the nightly verification of the hash chains."""

import datetime as dt

from pit.core.gaming_day import current_gaming_day
from pit.core.tasks import pit_task
from pit.records.services import records_verify


@pit_task("records.records_verify")
def records_verify_task(first_day: str | None = None, last_day: str | None = None) -> dict:
    """Verify the chains of a range of gaming days (ISO dates); by default the last complete one."""
    last_complete = current_gaming_day() - dt.timedelta(days=1)
    first = dt.date.fromisoformat(first_day) if first_day else last_complete
    last = dt.date.fromisoformat(last_day) if last_day else first
    result = records_verify(first_day=first, last_day=last)
    return {"shoes": result.shoes, "rows": result.rows, "breaks": [str(found) for found in result.breaks]}
