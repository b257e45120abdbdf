"""Celery task of the archive: the month partitions made ahead, nightly (beat)."""

from pit.archive.services import partitions_ensure
from pit.core.tasks import pit_task


@pit_task("archive.partitions_ensure")
def partitions_ensure_task() -> dict:
    result = partitions_ensure()
    return {"created": result.created, "moved": result.moved, "held_by_default": result.held_by_default}
