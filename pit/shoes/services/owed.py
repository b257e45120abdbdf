"""What writes to a shoe owe after commit: tasks by their registered names (pit.core.queues), sent
through the outbox, so no task module is imported here; the rollups refresh a late coup's complete days."""

import datetime as dt
from typing import Any

from django.utils import timezone

from pit.core.derived import derived_follow, derived_owed
from pit.core.gaming_day import gaming_day_for
from pit.core.outbox import outbox_enqueue
from pit.core.queues import VERIFY_TASK
from pit.shoes.models import Coup, Shoe, ShoeStatus

# What a coup's recording inserts; corrections insert their correction beside the wagers.
COUP_FACTS = ("shoes.Coup", "shoes.Wager", "ledger.CommissionEntry")
CORRECTION_FACTS = ("shoes.CoupCorrection", "shoes.Wager", "ledger.CommissionEntry")


def coups_owe(shoe: Shoe, stored: list[Coup]) -> None:
    """Enqueue what coups just stored owe, in their transaction (`coups_owed`)."""
    days = {coup.gaming_day for coup in stored}
    for task, args in coups_owed(shoe, [coup.pk for coup in stored], min(days), days):
        outbox_enqueue(task, *args)


def coups_owed(
    shoe: Shoe, coup_ids: list[int], first_day: dt.date, days: set[dt.date] | None = None
) -> list[tuple[str, tuple[Any, ...]]]:
    """What coups just stored owe (task, args): their rule checks, and the re-run of every derived
    check reading coups (pit.core.derived): of a complete day's figures if one of them is late (the
    rollups, the win reconciliation of its table-days); a closed shoe's reconciliation."""
    owed: list[tuple[str, tuple[Any, ...]]] = [(VERIFY_TASK, (coup_ids,))]
    owed += derived_owed(
        COUP_FACTS,
        shoe_id=shoe.pk,
        shoe_closed=shoe.status == ShoeStatus.CLOSED,
        table_days=[(shoe.table_id, day) for day in sorted(days or {first_day})],
        live=first_day >= gaming_day_for(timezone.now()),
    )
    return owed


def corrections_owe(shoe: Shoe, coup: Coup) -> None:
    """What a correction or a void owes: every derived check reading coups is re-run, for its shoe
    and its table-day (a closed shoe's reconciliation makes its supplement), whatever the day."""
    derived_follow(
        CORRECTION_FACTS,
        shoe_id=shoe.pk,
        shoe_closed=shoe.status == ShoeStatus.CLOSED,
        table_days=[(shoe.table_id, coup.gaming_day)],
    )
