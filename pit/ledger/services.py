"""Writes to the commission ledger (append only) and the reconciliation at the shuffle.

Accruals are written by `pit.shoes.services` when a coup is settled. Here: collection from a seat
whose player leaves, reversing entries for corrections, the reconciliation of a closed shoe, and
the explanation of a variance.
"""
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from pit import game
from pit.core.actors import SYSTEM, Actor
from pit.core.gaming_day import gaming_day_for
from pit.core.money import from_minor, to_minor
from pit.ledger.models import (
    BoxCount,
    CollectionReason,
    CommissionEntry,
    EntryKind,
    Reconciliation,
    ReconciliationSeat,
    ReconciliationStatus,
)
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import shoe_lock

RECONCILIATION_CHECK = "reconciliation"


def seat_balance_minor(*, shoe: Shoe, seat: int) -> int:
    """What the seat owes the box now: the sum of its entries (balances are never stored)."""
    return CommissionEntry.objects.filter(shoe=shoe, seat=seat).aggregate(total=Sum("amount_minor"))["total"] or 0


@transaction.atomic
def commission_collect(*, shoe: Shoe, seat: int, actor: Actor = SYSTEM, note: str = "") -> CommissionEntry | None:
    """The player at `seat` leaves: collect what the seat owes. None when it owes nothing."""
    shoe = shoe_lock(shoe.pk)
    if seat not in shoe.table.seats:
        raise ValidationError({"seat": f"{seat} is not a seat at table {shoe.table.code}."})
    if shoe.status != ShoeStatus.DEALING:
        raise ValidationError({"seat": f"{shoe} is closed; its commission was collected at the shuffle."})
    balance = seat_balance_minor(shoe=shoe, seat=seat)
    if balance <= 0:
        return None
    return CommissionEntry.objects.create(
        shoe=shoe, seat=seat, kind=EntryKind.COLLECTED, collection_reason=CollectionReason.PLAYER_LEFT,
        currency=shoe.table.currency, amount_minor=-balance, note=note, **actor.recorded_fields(),
    )


@transaction.atomic
def commission_entry_reverse(*, entry: CommissionEntry, note: str, actor: Actor = SYSTEM) -> CommissionEntry:
    """Correct an entry by a new one that cancels it; the original stays as it was."""
    if not note.strip():
        raise ValidationError({"note": "Say why the entry is reversed."})
    entry = CommissionEntry.objects.select_for_update().get(pk=entry.pk)
    if entry.kind == EntryKind.REVERSAL:
        raise ValidationError({"entry": "A reversal is not reversed; record a new entry instead."})
    if hasattr(entry, "reversed_by"):
        raise ValidationError({"entry": f"Entry {entry.pk} is reversed already (by entry {entry.reversed_by.pk})."})
    return CommissionEntry.objects.create(
        shoe_id=entry.shoe_id, seat=entry.seat, kind=EntryKind.REVERSAL, currency=entry.currency,
        amount_minor=-entry.amount_minor, reverses=entry, note=note.strip(), **actor.recorded_fields(),
    )


def variance_tolerance_minor(currency: str) -> int:
    return to_minor(Decimal(settings.PIT_BOX_VARIANCE_TOLERANCE), currency)


@transaction.atomic
def shoe_reconcile(*, shoe_id: int) -> Reconciliation:
    """Reconcile a closed shoe's commission box against the ledger, once.

    Per seat: accrued (accruals and their reversals), collected earlier from seats whose player
    left, expected in the box (the difference), counted, and the variance. The shuffle collection
    is written to the ledger so that every seat's balance ends at zero. Running it again returns
    the reconciliation made the first time and writes nothing.
    """
    from pit.compliance.services import violation_record

    shoe = shoe_lock(shoe_id)
    if shoe.status != ShoeStatus.CLOSED:
        raise ValidationError(f"{shoe} is still dealing; it is reconciled when it is closed at the shuffle.")
    existing = Reconciliation.objects.filter(shoe=shoe).first()
    if existing is not None:
        return existing
    currency = shoe.table.currency
    entries = CommissionEntry.objects.filter(shoe=shoe)
    accrued: dict[int, int] = {}
    collected: dict[int, int] = {}
    for seat, kind, reverses_kind, total in (
        entries.values_list("seat", "kind", "reverses__kind").annotate(total=Sum("amount_minor")).order_by()
    ):
        accrual_side = kind == EntryKind.ACCRUED or (kind == EntryKind.REVERSAL and reverses_kind == EntryKind.ACCRUED)
        bucket = accrued if accrual_side else collected
        bucket[seat] = bucket.get(seat, 0) + total
    counted = dict(BoxCount.objects.filter(shoe=shoe).values_list("seat", "counted_minor"))
    tolerance = variance_tolerance_minor(currency)
    lines, findings = [], []
    for seat in sorted(set(accrued) | set(collected) | set(counted)):
        collected_earlier = -collected.get(seat, 0)
        expected = accrued.get(seat, 0) - collected_earlier
        line = ReconciliationSeat(
            seat=seat, accrued_minor=accrued.get(seat, 0), collected_earlier_minor=collected_earlier,
            expected_minor=expected, counted_minor=counted.get(seat, 0),
            variance_minor=counted.get(seat, 0) - expected,
        )
        lines.append(line)
        if abs(line.variance_minor) > tolerance:
            finding = game.check_box_count(
                from_minor(expected, currency), from_minor(line.counted_minor, currency), where=f"seat {seat}"
            )
            findings.append((seat, finding))
    reconciliation = Reconciliation.objects.create(
        shoe=shoe, currency=currency,
        accrued_minor=sum(line.accrued_minor for line in lines),
        collected_earlier_minor=sum(line.collected_earlier_minor for line in lines),
        expected_minor=sum(line.expected_minor for line in lines),
        counted_minor=sum(line.counted_minor for line in lines),
        variance_minor=sum(line.variance_minor for line in lines),
        status=ReconciliationStatus.VARIANCE if findings else ReconciliationStatus.BALANCED,
    )
    for line in lines:
        line.reconciliation = reconciliation
    ReconciliationSeat.objects.bulk_create(lines)
    CommissionEntry.objects.bulk_create(
        CommissionEntry(
            shoe=shoe, seat=line.seat, kind=EntryKind.COLLECTED, collection_reason=CollectionReason.SHUFFLE,
            currency=currency, amount_minor=-line.expected_minor,
        )
        for line in lines if line.expected_minor > 0
    )
    gaming_day = gaming_day_for(shoe.closed_at)  # the casino's day, which starts at its set hour
    last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
    if last_coup is not None:
        gaming_day = last_coup.gaming_day
    for seat, finding in findings:
        violation_record(
            finding=finding, fingerprint=f"box_variance:shoe{shoe.pk}:seat{seat}", table=shoe.table, shoe=shoe,
            seat=seat, gaming_day=gaming_day, found_by=RECONCILIATION_CHECK,
        )
    return reconciliation


@transaction.atomic
def reconciliation_explain(*, reconciliation: Reconciliation, user, note: str) -> Reconciliation:
    """Someone explains a variance (a miscount, a chip found later ...); the figures stay as counted."""
    if not (note or "").strip():
        raise ValidationError({"note": "Explain the variance: what happened and what was done."})
    reconciliation = Reconciliation.objects.select_for_update().get(pk=reconciliation.pk)
    if reconciliation.status == ReconciliationStatus.BALANCED:
        raise ValidationError({"status": "A balanced reconciliation has no variance to explain."})
    if reconciliation.status == ReconciliationStatus.EXPLAINED:
        # The first explanation stands (the audit trail keeps it); a second one would overwrite it.
        raise ValidationError(
            {"status": f"The variance was explained already by {reconciliation.explained_by} "
                       f"on {reconciliation.explained_at:%Y-%m-%d %H:%M}."}
        )
    reconciliation.status = ReconciliationStatus.EXPLAINED
    reconciliation.explanation = note.strip()
    reconciliation.explained_by = user
    reconciliation.explained_at = timezone.now()
    reconciliation.save(update_fields=["status", "explanation", "explained_by", "explained_at"])
    return reconciliation
