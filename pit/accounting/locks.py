"""The gaming-day lock: writes to a closed day are refused (later changes are adjustments).

On PostgreSQL a write to a day holds a shared transaction-level advisory lock on that day and the
close takes it exclusively, so a count committing while an accountant closes the day is either in
before the close looks (and counted by it) or refused after. SQLite's IMMEDIATE transactions already
run one writer at a time.
"""

import datetime as dt

from pit.core.db import advisory_xact_lock
from pit.core.errors import Conflict

from .selectors import day_is_closed

_LOCK_SPACE = 130008  # this app's first key of PostgreSQL's two-key advisory locks


def day_lock(*, gaming_day: dt.date, exclusive: bool = False) -> None:
    """Hold the gaming day's lock until the transaction ends (PostgreSQL; a no-op elsewhere)."""
    advisory_xact_lock((_LOCK_SPACE, gaming_day.toordinal()), shared=not exclusive)


def day_ensure_open(*, gaming_day: dt.date) -> None:
    """Raise Conflict if the gaming day is closed (call inside the writing transaction)."""
    day_lock(gaming_day=gaming_day)
    if day_is_closed(gaming_day):
        raise Conflict(
            f"Gaming day {gaming_day} is closed: its records are locked. Record an adjustment (with its reason) "
            "instead, or have an accountant re-open the day.",
            gaming_day=gaming_day.isoformat(),
        )
