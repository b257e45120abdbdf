"""Celery tasks of game protection: they call one service and are safe to run twice."""

import datetime as dt

from django.conf import settings

from pit.core.gaming_day import current_gaming_day
from pit.core.tasks import pit_task
from pit.protection.checks.by_patron import patron_checks
from pit.protection.dealer_errors import dealer_error_rates_check
from pit.protection.services import stale_feeds_check


@pit_task("protection.stale_feeds_check")
def stale_feeds_check_task() -> int:
    """Look for open tables whose dealing shoe went silent (each silence recorded once)."""
    return stale_feeds_check()


@pit_task("protection.dealer_error_rates_check")
def dealer_error_rates_check_task() -> int:
    """Judge each dealer's errors per 1,000 coups over the previous and the current gaming day."""
    return dealer_error_rates_check()


@pit_task("protection.patron_checks")
def patron_checks_task() -> int:
    """Nightly: the by-patron tests over the last PIT_PROTECTION_PATRON_DAYS complete gaming days."""
    last = current_gaming_day() - dt.timedelta(days=1)
    return patron_checks(first_day=last - dt.timedelta(days=settings.PIT_PROTECTION_PATRON_DAYS - 1), last_day=last)
