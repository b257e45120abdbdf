"""Reads of the commission ledger that more than one part of the pit needs."""

import datetime as dt

from django.db.models import F, Sum
from django.utils import timezone

from pit.core.models import FailedTask, FailedTaskState
from pit.core.queues import RECONCILE_TASK
from pit.ledger.models import CollectionReason, CommissionEntry
from pit.shoes.models import Shoe, ShoeStatus


def shoes_unsettled_after_reconciliation() -> list[int]:
    """Reconciled shoes where a seat's balance is not zero: the ledger changed after the
    reconciliation (a late coup, a correction, a void) and no supplement has collected it yet.
    Only shoes with entries written after their reconciliation are summed."""
    changed = (
        CommissionEntry.objects.filter(
            shoe__reconciliation__isnull=False, recorded_at__gt=F("shoe__reconciliation__reconciled_at")
        )
        .exclude(collection_reason=CollectionReason.SUPPLEMENT)
        .values("shoe_id")
    )
    unsettled = (
        CommissionEntry.objects.filter(shoe_id__in=changed)
        .values("shoe_id", "seat")
        .order_by()
        .annotate(balance=Sum("amount_minor"))
        .exclude(balance=0)
        .values_list("shoe_id", flat=True)
    )
    return sorted(set(unsettled))


# A shoe closed this recently still has its own reconciliation message on the way.
RECONCILE_GRACE = dt.timedelta(minutes=2)


def shoes_missing_reconciliation() -> list[int]:
    """Closed shoes (past the grace period) without a reconciliation, and reconciled shoes whose seats
    owe again (their supplement's message was lost), except those whose reconciliation was parked as
    failed: staff see those in the admin, and enqueueing them again would only fail again."""
    parked = {
        tuple(args)[0]
        for args in FailedTask.objects.filter(task_name=RECONCILE_TASK, state=FailedTaskState.PARKED).values_list(
            "args", flat=True
        )
        if args
    }
    closed = Shoe.objects.filter(
        status=ShoeStatus.CLOSED, closed_at__lt=timezone.now() - RECONCILE_GRACE, reconciliation__isnull=True
    ).order_by("pk")
    missing = [*closed.values_list("pk", flat=True), *shoes_unsettled_after_reconciliation()]
    return [pk for pk in missing if pk not in parked]
