"""Celery tasks of the daily rollups: the refresh a write owes, and the catch-up (beat)."""

from django.conf import settings

from pit.core.queues import REFRESH_TASK
from pit.core.tasks import pit_task

from .services import rollups_catch_up, rollups_shoe_refresh


@pit_task(REFRESH_TASK)
def shoe_refresh(shoe_id: int) -> int:
    """Owed (outbox) by every write of coups, corrections and reversals of a shoe: refresh the rollups
    of the complete days its coups belong to. Safe to run twice."""
    return rollups_shoe_refresh(shoe_id=shoe_id)


@pit_task("rollups.catch_up")
def catch_up() -> dict:
    """Every 15 minutes (beat): the last PIT_ROLLUPS_CATCH_UP_DAYS complete days rolled up and fresh."""
    return rollups_catch_up(days=settings.PIT_ROLLUPS_CATCH_UP_DAYS)
