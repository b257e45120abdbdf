"""Celery task of tables: it calls one service and is safe to run twice."""

from pit.core.tasks import pit_task
from pit.tables.services import table_limits_apply_due


@pit_task("tables.limits_apply_due")
def limits_apply_due_task() -> int:
    """Put in force the limit changes whose notice has run."""
    return table_limits_apply_due()
