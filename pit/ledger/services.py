"""Writes to the commission ledger (append only) and the reconciliation at the shuffle.

Accruals are written by `pit.shoes.services` when a coup is settled. Here: collection from a seat
whose player leaves, reversing entries for corrections, the reconciliation of a closed shoe, and
the explanation of a variance.
"""

import datetime as dt
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import quarantine_hold, violation_record, violations_clear_missing
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
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
    ReconciliationSupplement,
    ReconciliationSupplementSeat,
)
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import shoe_lock

RECONCILIATION_CHECK = "reconciliation"


def seat_balance_minor(*, shoe: Shoe, seat: int) -> int:
    """What the seat owes the box now: the sum of its entries (balances are never stored)."""
    return CommissionEntry.objects.filter(shoe=shoe, seat=seat).aggregate(total=Sum("amount_minor"))["total"] or 0


@day_write(writes=("ledger.CommissionEntry",), day_of="the gaming day of the collection (the shoe deals)")
@transaction.atomic
def commission_collect(*, shoe: Shoe, seat: int, actor: Actor = SYSTEM, note: str = "") -> CommissionEntry | None:
    """The player at `seat` leaves: collect what the seat owes. None when it owes nothing."""
    shoe = shoe_lock(shoe.pk)
    if seat not in shoe.table.seats:
        raise ValidationError(
            {"seat": gettext("{seat} is not a seat at table {code}.").format(seat=seat, code=shoe.table.code)}
        )
    if shoe.status != ShoeStatus.DEALING:
        raise ValidationError(
            {"seat": gettext("{shoe} is closed; its commission was collected at the shuffle.").format(shoe=shoe)}
        )
    days_ensure_open([gaming_day_for(timezone.now())])
    balance = seat_balance_minor(shoe=shoe, seat=seat)
    if balance <= 0:
        return None
    return CommissionEntry.objects.create(
        shoe=shoe,
        seat=seat,
        kind=EntryKind.COLLECTED,
        collection_reason=CollectionReason.PLAYER_LEFT,
        currency=shoe.table.currency,
        amount_minor=-balance,
        note=note,
        **actor.recorded_fields(),
    )


@day_write(writes=("ledger.CommissionEntry",), day_of="the gaming day of the entry it reverses")
@transaction.atomic
def commission_entry_reverse(*, entry: CommissionEntry, note: str, actor: Actor = SYSTEM) -> CommissionEntry:
    """Correct an entry by a new one that cancels it; the original stays as it was."""
    if not note.strip():
        raise ValidationError({"note": gettext("Say why the entry is reversed.")})
    entry = CommissionEntry.objects.select_for_update().get(pk=entry.pk)
    days_ensure_open([entry.gaming_day or gaming_day_for(entry.recorded_at)])
    if entry.kind == EntryKind.REVERSAL:
        raise ValidationError({"entry": gettext("A reversal is not reversed; record a new entry instead.")})
    if hasattr(entry, "reversed_by"):
        raise ValidationError(
            {
                "entry": gettext("Entry {entry_pk} is reversed already (by entry {pk}).").format(
                    entry_pk=entry.pk, pk=entry.reversed_by.pk
                )
            }
        )
    # The reversal changes the table results, and a closed shoe's reconciliation (a supplement).
    closed = Shoe.objects.filter(pk=entry.shoe_id, status=ShoeStatus.CLOSED).exists()
    derived_follow(("ledger.CommissionEntry",), shoe_id=entry.shoe_id, shoe_closed=closed)
    return CommissionEntry.objects.create(
        shoe_id=entry.shoe_id,
        seat=entry.seat,
        kind=EntryKind.REVERSAL,
        currency=entry.currency,
        amount_minor=-entry.amount_minor,
        reverses=entry,
        note=note.strip(),
        **actor.recorded_fields(),
    )


def variance_tolerance_minor(currency: str) -> int:
    return to_minor(Decimal(settings.PIT_BOX_VARIANCE_TOLERANCE), currency)


def _seat_ledger(shoe: Shoe) -> dict[int, dict[str, int]]:
    """Per seat, the ledger split the way the reconciliation reads it (reversals go with what they
    reverse): `accrued`, `departed` (collected from seats whose player left; negative) and `shuffle`
    (collected at the shuffle and by supplements; negative). The balance is their sum."""
    figures: dict[int, dict[str, int]] = {}
    for seat, kind, reason, reversed_kind, reversed_reason, total in (
        CommissionEntry.objects.filter(shoe=shoe)
        .values_list("seat", "kind", "collection_reason", "reverses__kind", "reverses__collection_reason")
        .annotate(total=Sum("amount_minor"))
        .order_by()
    ):
        if kind == EntryKind.REVERSAL:
            kind, reason = reversed_kind, reversed_reason
        bucket = (
            "accrued"
            if kind == EntryKind.ACCRUED
            else "departed"
            if reason == CollectionReason.PLAYER_LEFT
            else "shuffle"
        )
        line = figures.setdefault(seat, {"accrued": 0, "departed": 0, "shuffle": 0})
        line[bucket] += total
    return figures


def _shoe_gaming_day(shoe: Shoe) -> dt.date:
    """The gaming day a shoe's box variance is filed under: its last coup's (else the day it closed)."""
    last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
    if last_coup is not None:
        return last_coup.gaming_day
    return gaming_day_for(shoe.closed_at or timezone.now())  # not closed yet: the current gaming day


def _box_variance_finding(expected: int, counted: int, seat: int, currency: str):
    return game.check_box_count(from_minor(expected, currency), from_minor(counted, currency), where=f"seat {seat}")


@transaction.atomic
def shoe_reconcile(*, shoe_id: int) -> Reconciliation | None:
    """Reconcile a closed shoe's commission box against the ledger, once; after that, supplement it.

    Per seat: accrued (accruals and their reversals), collected earlier from seats whose player
    left, expected in the box (the difference), counted, and the variance. The shuffle collection
    is written to the ledger so that every seat's balance ends at zero. Running it again returns
    the reconciliation made the first time and writes nothing, unless the ledger changed since
    (a coup recorded after the close, a correction, a void): then a supplement
    (`shoe_reconcile_supplement`) brings the balances back to zero. A quarantined shoe (its chain
    broken) is neither reconciled nor supplemented: a `derivation_quarantined` finding says so, and
    the reconciliation made before, if any, is returned.
    """
    shoe = shoe_lock(shoe_id)
    if shoe.status != ShoeStatus.CLOSED:
        raise ValidationError(
            gettext("{shoe} is still dealing; it is reconciled when it is closed at the shuffle.").format(shoe=shoe)
        )
    existing = Reconciliation.objects.filter(shoe=shoe).first()
    what = f"The {'supplement' if existing else 'reconciliation'} of the commission box of {shoe}"
    gaming_day = _shoe_gaming_day(shoe)
    if quarantine_hold(
        shoe_ids=[shoe.pk], derived=RECONCILIATION_CHECK, what=what, table=shoe.table, gaming_day=gaming_day, shoe=shoe
    ):
        return existing  # a broken chain's ledger is no base for a collection: nothing written
    if existing is not None:
        shoe_reconcile_supplement(shoe=shoe, reconciliation=existing)
        return existing
    currency = shoe.table.currency
    ledger = _seat_ledger(shoe)
    counted = dict(BoxCount.objects.filter(shoe=shoe).values_list("seat", "counted_minor"))
    tolerance = variance_tolerance_minor(currency)
    lines, findings = [], []
    for seat in sorted(set(ledger) | set(counted)):
        figures = ledger.get(seat, {"accrued": 0, "departed": 0, "shuffle": 0})
        collected_earlier = -figures["departed"]
        expected = figures["accrued"] - collected_earlier
        line = ReconciliationSeat(
            seat=seat,
            accrued_minor=figures["accrued"],
            collected_earlier_minor=collected_earlier,
            expected_minor=expected,
            counted_minor=counted.get(seat, 0),
            variance_minor=counted.get(seat, 0) - expected,
        )
        lines.append(line)
        if abs(line.variance_minor) > tolerance:
            findings.append((seat, _box_variance_finding(expected, line.counted_minor, seat, currency)))
    reconciliation = Reconciliation.objects.create(
        shoe=shoe,
        currency=currency,
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
    # Every seat's balance to zero: a seat that owes less than nothing (a correction after its
    # player left and paid) is paid back, a positive collection.
    CommissionEntry.objects.bulk_create(
        CommissionEntry(
            shoe=shoe,
            seat=line.seat,
            kind=EntryKind.COLLECTED,
            collection_reason=CollectionReason.SHUFFLE,
            currency=currency,
            amount_minor=-line.expected_minor,
        )
        for line in lines
        if line.expected_minor != 0
    )
    for seat, finding in findings:
        violation_record(
            finding=finding,
            fingerprint=f"box_variance:shoe{shoe.pk}:seat{seat}",
            table=shoe.table,
            shoe=shoe,
            seat=seat,
            gaming_day=gaming_day,
            found_by=RECONCILIATION_CHECK,
        )
    return reconciliation


def shoe_reconcile_supplement(*, shoe: Shoe, reconciliation: Reconciliation) -> ReconciliationSupplement | None:
    """Amend a reconciled shoe whose seats owe again (or are owed): None when every balance is zero.

    Call it inside the transaction that holds the shoe's lock (`shoe_reconcile` does). Per seat
    whose balance is not zero: the change (that balance), accrued, collected earlier and expected as
    the ledger stands now, counted (the box was counted once, at the shuffle) and the variance now,
    which the box count must explain: beyond the tolerance it is a `box_variance` violation (and the
    seat's earlier variance findings are cleared, the latest holds). A supplementary collection
    brings each balance to zero, so a second run finds nothing to do.
    """
    ledger = _seat_ledger(shoe)
    unsettled = {seat: figures for seat, figures in ledger.items() if sum(figures.values()) != 0}
    if not unsettled:
        return None
    currency = reconciliation.currency
    counted = dict(BoxCount.objects.filter(shoe=shoe).values_list("seat", "counted_minor"))
    tolerance = variance_tolerance_minor(currency)
    sequence = reconciliation.supplements.count() + 1
    entries, lines = [], []
    for seat, figures in sorted(unsettled.items()):
        expected = figures["accrued"] + figures["departed"]
        change = sum(figures.values())
        entries.append(
            CommissionEntry(
                shoe=shoe,
                seat=seat,
                kind=EntryKind.COLLECTED,
                collection_reason=CollectionReason.SUPPLEMENT,
                currency=currency,
                amount_minor=-change,
                note=f"supplement {sequence} of the reconciliation of {shoe}",
            )
        )
        lines.append(
            ReconciliationSupplementSeat(
                seat=seat,
                change_minor=change,
                accrued_minor=figures["accrued"],
                collected_earlier_minor=-figures["departed"],
                expected_minor=expected,
                counted_minor=counted.get(seat, 0),
                variance_minor=counted.get(seat, 0) - expected,
            )
        )
    CommissionEntry.objects.bulk_create(entries)
    expected_now = sum(figures["accrued"] + figures["departed"] for figures in ledger.values())
    counted_now = sum(counted.values())
    beyond = [line for line in lines if abs(line.variance_minor) > tolerance]
    supplement = ReconciliationSupplement.objects.create(
        reconciliation=reconciliation,
        sequence=sequence,
        currency=currency,
        change_minor=sum(line.change_minor for line in lines),
        expected_minor=expected_now,
        counted_minor=counted_now,
        variance_minor=counted_now - expected_now,
        status=ReconciliationStatus.VARIANCE if beyond else ReconciliationStatus.BALANCED,
    )
    for line, entry in zip(lines, entries, strict=True):
        line.supplement, line.entry = supplement, entry
    ReconciliationSupplementSeat.objects.bulk_create(lines)
    gaming_day = _shoe_gaming_day(shoe)
    for line in lines:
        found = set()
        if line in beyond:
            fingerprint = f"box_variance:shoe{shoe.pk}:seat{line.seat}:supplement{sequence}"
            violation_record(
                finding=_box_variance_finding(line.expected_minor, line.counted_minor, line.seat, currency),
                fingerprint=fingerprint,
                table=shoe.table,
                shoe=shoe,
                seat=line.seat,
                gaming_day=gaming_day,
                found_by=RECONCILIATION_CHECK,
            )
            found.add(fingerprint)
        violations_clear_missing(
            scope=RuleViolation.objects.filter(shoe=shoe, seat=line.seat, code="box_variance"),
            found_by=RECONCILIATION_CHECK,
            fingerprints_found=found,
        )
    return supplement


@transaction.atomic
def reconciliation_explain(*, reconciliation: Reconciliation, user, note: str) -> Reconciliation:
    """Someone explains a variance (a miscount, a chip found later ...); the figures stay as counted."""
    if not (note or "").strip():
        raise ValidationError({"note": gettext("Explain the variance: what happened and what was done.")})
    reconciliation = Reconciliation.objects.select_for_update().get(pk=reconciliation.pk)
    if reconciliation.status == ReconciliationStatus.BALANCED:
        raise ValidationError({"status": gettext("A balanced reconciliation has no variance to explain.")})
    if reconciliation.status == ReconciliationStatus.EXPLAINED:
        # The first explanation stands (the audit trail keeps it); a second one would overwrite it.
        raise ValidationError(
            {
                "status": gettext(
                    "The variance was explained already by {reconciliation_explained_by} "
                    "on {reconciliation_explained_at:%Y-%m-%d %H:%M}."
                ).format(
                    reconciliation_explained_by=reconciliation.explained_by,
                    reconciliation_explained_at=reconciliation.explained_at,
                )
            }
        )
    reconciliation.status = ReconciliationStatus.EXPLAINED
    reconciliation.explanation = note.strip()
    reconciliation.explained_by = user
    reconciliation.explained_at = timezone.now()
    reconciliation.save(update_fields=["status", "explanation", "explained_by", "explained_at"])
    return reconciliation
