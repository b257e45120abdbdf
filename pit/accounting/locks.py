"""The gaming-day lock: writes to a closed day are refused (later changes are adjustments)."""
import datetime as dt


def day_ensure_open(*, gaming_day: dt.date) -> None:
    """Raise Conflict if the gaming day is closed. Until the day close exists every day is open."""
