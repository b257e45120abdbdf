"""Celery tasks of the controls: the periodic check of cards, keys and handovers."""

import datetime as dt

from django.conf import settings
from django.db import transaction

from pit.core.gaming_day import current_gaming_day
from pit.core.tasks import pit_task

from .checks import controls_check


@pit_task("controls.controls_check")
def controls_check_recent() -> dict[str, int]:
    """Beat, every 15 minutes: every control check of the last PIT_CONTROLS_CHECK_DAYS gaming days
    (today's included); safe to run twice. Returns the findings that hold, per check."""
    today = current_gaming_day()
    held: dict[str, int] = {}
    for back in range(max(settings.PIT_CONTROLS_CHECK_DAYS, 1) - 1, -1, -1):
        with transaction.atomic():
            for found_by, count in controls_check(gaming_day=today - dt.timedelta(days=back)).items():
                held[found_by] = held.get(found_by, 0) + count
    return held
