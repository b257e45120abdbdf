"""When the shifts change (PIT_CONTROLS_SHIFT_CHANGES, else the accounting shifts from the gaming
day's start), in casino time."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone


def change_times() -> list[dt.time]:
    """The clock times of the shift changes, ascending."""
    configured = [text.strip() for text in settings.PIT_CONTROLS_SHIFT_CHANGES if text.strip()]
    if configured:
        try:
            return sorted({dt.time.fromisoformat(text) for text in configured})
        except ValueError:
            raise ImproperlyConfigured(
                f"PIT_CONTROLS_SHIFT_CHANGES holds HH:MM times, comma-separated, not {configured!r}"
            ) from None
    hours = settings.PIT_ACCOUNTING_SHIFT_HOURS
    if hours not in (8, 12, 24):
        raise ImproperlyConfigured(f"PIT_ACCOUNTING_SHIFT_HOURS must be 8, 12 or 24, not {hours}")
    start = settings.PIT_GAMING_DAY_START_HOUR
    return sorted(dt.time((start + step * hours) % 24) for step in range(24 // hours))


def shift_changes(start: dt.datetime, end: dt.datetime) -> list[dt.datetime]:
    """Every shift change at or after `start` and before `end`."""
    zone = timezone.get_current_timezone()
    first, last = timezone.localtime(start, zone).date(), timezone.localtime(end, zone).date()
    times = change_times()
    changes = []
    day = first - dt.timedelta(days=1)
    while day <= last:
        for clock in times:
            moment = dt.datetime.combine(day, clock, tzinfo=zone)
            if start <= moment < end:
                changes.append(moment)
        day += dt.timedelta(days=1)
    return changes


def shift_change_near(moment: dt.datetime) -> dt.datetime | None:
    """The shift change within PIT_CONTROLS_HANDOVER_MINUTES of `moment` (the nearest), or None."""
    window = dt.timedelta(minutes=settings.PIT_CONTROLS_HANDOVER_MINUTES)
    near = shift_changes(moment - window, moment + window + dt.timedelta(microseconds=1))
    return min(near, key=lambda change: abs(change - moment)) if near else None
