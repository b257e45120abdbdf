"""The gaming day: the casino's accounting day, which starts at a set hour in its time zone."""

import datetime as dt

from django.conf import settings
from django.utils import timezone


def gaming_day_for(moment: dt.datetime) -> dt.date:
    """The gaming day a moment belongs to: before the start hour it is still the previous day."""
    local = timezone.localtime(moment)  # TIME_ZONE is the casino's time zone
    if local.hour < settings.PIT_GAMING_DAY_START_HOUR:
        return local.date() - dt.timedelta(days=1)
    return local.date()


def gaming_day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """The [start, end) moments of a gaming day, timezone-aware."""
    tz = timezone.get_current_timezone()
    start = dt.datetime.combine(day, dt.time(settings.PIT_GAMING_DAY_START_HOUR), tzinfo=tz)
    return start, start + dt.timedelta(days=1)


def current_gaming_day() -> dt.date:
    return gaming_day_for(timezone.now())
