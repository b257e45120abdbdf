"""Celery task of the progressive meters: the re-check a correction or void of a bank table's coup owes."""

from pit.core.queues import METERS_TASK
from pit.core.tasks import pit_task
from pit.shoes.models import Shoe

from .services import meters_read_for_table


@pit_task(METERS_TASK)
def shoe_meters_read(shoe_id: int) -> int:
    """Owed (outbox) by a correction or void of a coup of the shoe, and by a late coup: record the
    reading of every meter whose bank holds the shoe's table. Safe to run twice."""
    table_id = Shoe.objects.filter(pk=shoe_id).values_list("table_id", flat=True).first()
    if table_id is None:
        return 0
    return len(meters_read_for_table(table_id=table_id))
