"""Celery task of the pit's notices: it calls one service and is safe to run twice."""

from pit.core.tasks import pit_task
from pit.notices.services import notices_gather


@pit_task("notices.gather")
def notices_gather_task() -> dict:
    """Live alarms, large fills and off-schedule tables to surveillance; discrepancies to the
    regulator; late acknowledgements and near deadlines as findings."""
    return notices_gather()
