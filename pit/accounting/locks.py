"""The gaming-day lock: writes to a closed day are refused (later changes are adjustments)."""
import datetime as dt

from pit.core.errors import Conflict

from .selectors import day_is_closed


def day_ensure_open(*, gaming_day: dt.date) -> None:
    """Raise Conflict if the gaming day is closed."""
    if day_is_closed(gaming_day):
        raise Conflict(
            f"Gaming day {gaming_day} is closed: its records are locked. Record an adjustment (with its reason) "
            "instead, or have an accountant re-open the day.",
            gaming_day=gaming_day.isoformat(),
        )
