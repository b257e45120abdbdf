"""The gaming-day lock: writes to a closed day are refused (later changes are adjustments).

On PostgreSQL a write to a day holds a shared transaction-level advisory lock on that day and the
close takes it exclusively, so a count committing while an accountant closes the day is either in
before the close looks (and counted by it) or refused after. SQLite's IMMEDIATE transactions already
run one writer at a time. `days_ensure_open` is the check every write service of a fact passes
through (`pit.core.daylock`: registered at start-up, so the shoes, the ledger and the dealers refuse
a closed day without importing this app).
"""

import datetime as dt

from django.utils.translation import gettext

from pit.core.db import advisory_xact_lock
from pit.core.errors import Conflict

from . import persistence
from .selectors import closed_among

_LOCK_SPACE = 130008  # this app's first key of PostgreSQL's two-key advisory locks


def day_lock(*, gaming_day: dt.date, exclusive: bool = False) -> None:
    """Hold the gaming day's lock until the transaction ends (PostgreSQL; a no-op elsewhere)."""
    advisory_xact_lock((_LOCK_SPACE, gaming_day.toordinal()), shared=not exclusive)


def days_ensure_open(days: list[dt.date]) -> None:
    """Raise Conflict naming the first of `days` that is closed; each day's shared lock is held until
    the transaction ends (taken in date order, as every writer takes them)."""
    closed = closed_among(persistence.day_actions(days, lock_space=_LOCK_SPACE))
    if closed:
        gaming_day = closed[0]
        raise Conflict(
            gettext(
                "Gaming day {gaming_day} is closed: its records are locked. Record an adjustment (with its reason) "
                "instead, or have an accountant re-open the day."
            ).format(gaming_day=gaming_day),
            gaming_day=gaming_day.isoformat(),
        )


def day_ensure_open(*, gaming_day: dt.date) -> None:
    """Raise Conflict if the gaming day is closed (call inside the writing transaction)."""
    days_ensure_open([gaming_day])
