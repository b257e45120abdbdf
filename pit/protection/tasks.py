"""Celery tasks of game protection: they call one service and are safe to run twice."""

from pit.core.tasks import pit_task
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
