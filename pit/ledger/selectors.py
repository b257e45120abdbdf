"""Reads of the commission ledger that more than one part of the pit needs."""

from django.db.models import F, Sum

from pit.ledger.models import CollectionReason, CommissionEntry


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
