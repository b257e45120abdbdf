"""Celery tasks of the commission ledger: the reconciliation at the shuffle, and its safety net."""

import datetime as dt

from django.utils import timezone

from pit.core.models import FailedTask, FailedTaskState
from pit.core.tasks import pit_task
from pit.ledger.selectors import shoes_unsettled_after_reconciliation
from pit.ledger.services import shoe_reconcile as shoe_reconcile_service
from pit.shoes.models import Shoe, ShoeStatus

# A shoe closed this recently still has its own reconciliation message on the way.
RECONCILE_GRACE = dt.timedelta(minutes=2)


@pit_task("ledger.shoe_reconcile")
def shoe_reconcile(shoe_id: int) -> int:
    """Reconcile a closed shoe's commission box; safe to run twice (one reconciliation per shoe)."""
    return shoe_reconcile_service(shoe_id=shoe_id).pk


def shoes_missing_reconciliation() -> list[int]:
    """Closed shoes (past the grace period) without a reconciliation, and reconciled shoes whose seats
    owe again (their supplement's message was lost), except those whose reconciliation was parked as
    failed: staff see those in the admin, and enqueueing them again would only fail again."""
    parked = {
        tuple(args)[0]
        for args in FailedTask.objects.filter(task_name=shoe_reconcile.name, state=FailedTaskState.PARKED).values_list(
            "args", flat=True
        )
        if args
    }
    closed = Shoe.objects.filter(
        status=ShoeStatus.CLOSED, closed_at__lt=timezone.now() - RECONCILE_GRACE, reconciliation__isnull=True
    ).order_by("pk")
    missing = [*closed.values_list("pk", flat=True), *shoes_unsettled_after_reconciliation()]
    return [pk for pk in missing if pk not in parked]


@pit_task("ledger.shoes_reconcile_missing")
def shoes_reconcile_missing() -> list[int]:
    """Every few minutes (beat): a lost message is not a lost reconciliation."""
    shoe_ids = shoes_missing_reconciliation()
    for shoe_id in shoe_ids:
        shoe_reconcile.delay(shoe_id)
    return shoe_ids
