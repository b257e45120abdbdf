"""What writes to a shoe owe after commit: tasks by their registered names (pit.core.queues), sent
through the outbox, so no task module is imported here; the rollups refresh a late coup's complete days."""

import datetime as dt
from typing import Any

from django.utils import timezone

from pit.core.gaming_day import gaming_day_for
from pit.core.outbox import outbox_enqueue
from pit.core.queues import RECONCILE_TASK, REFRESH_TASK, VERIFY_TASK
from pit.shoes.models import Coup, Shoe, ShoeStatus


def coups_owe(shoe: Shoe, stored: list[Coup]) -> None:
    """Enqueue what coups just stored owe, in their transaction (`coups_owed`)."""
    for task, args in coups_owed(shoe, [coup.pk for coup in stored], min(coup.gaming_day for coup in stored)):
        outbox_enqueue(task, *args)


def coups_owed(shoe: Shoe, coup_ids: list[int], first_day: dt.date) -> list[tuple[str, tuple[Any, ...]]]:
    """What coups just stored owe (task, args): their rule checks; the daily rollups of a complete
    day if one of them is late; a closed shoe's reconciliation."""
    owed: list[tuple[str, tuple[Any, ...]]] = [(VERIFY_TASK, (coup_ids,))]
    if first_day < gaming_day_for(timezone.now()):
        owed.append((REFRESH_TASK, (shoe.pk,)))
    if shoe.status == ShoeStatus.CLOSED:  # as reconcile_late
        owed.append((RECONCILE_TASK, (shoe.pk,)))
    return owed


def reconcile_late(shoe: Shoe) -> None:
    """Commission that changed after the shuffle (a coup recorded after the close, a correction or
    a void of a closed shoe's coup) is reconciled again after commit: the reconciliation job makes
    the reconciliation if there is none yet, else a supplement that brings the seats back to zero."""
    if shoe.status == ShoeStatus.CLOSED:
        outbox_enqueue(RECONCILE_TASK, shoe.pk)
