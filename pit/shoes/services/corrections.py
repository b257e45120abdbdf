"""Corrections of a recorded coup: its wagers corrected (a misread stake) or the coup voided (a misdeal),
each a new version beside what was recorded, its commission reversed and accrued anew."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.outbox import outbox_enqueue
from pit.core.queues import VERIFY_TASK
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import CorrectionKind, Coup, CoupCorrection, Wager
from pit.shoes.selectors import wagers_standing
from pit.shoes.services.owed import corrections_owe
from pit.shoes.services.settlement import coup_prepare
from pit.shoes.services.shoes import shoe_lock
from pit.shoes.services.values import CorrectionOutcome, CoupInput, SettledWager, WagerInput

MAX_REASON = 2000


def _paid_as_owed(wager: SettledWager) -> SettledWager:
    """A corrected wager with no paid figure was paid what the paytable owes on its corrected stake:
    the table paid the stake it saw, and the old paid figure belongs to the old stake."""
    if wager.paid_minor is None:
        wager.paid_minor = wager.payout_minor
    return wager


def _settle_correction(coup: Coup, table, wagers: tuple[WagerInput, ...]) -> list[SettledWager]:
    item = CoupInput(number=coup.number, player=coup.player_cards, banker=coup.banker_cards, wagers=tuple(wagers))
    return [_paid_as_owed(wager) for wager in coup_prepare(item, table, engine_paytable(coup.paytable)).wagers]


def coup_correction_preview(*, coup: Coup, wagers: tuple[WagerInput, ...]) -> list[SettledWager]:
    """What `coup_correct` would store for `wagers`, written nowhere: each wager settled by the engine
    under the coup's paytable version (its payout owed) and the paid figure it would keep (the one
    given, else the payout owed). ValidationError names the field, as `coup_correct` does."""
    coup = Coup.objects.select_related("paytable", "shoe__table").get(pk=coup.pk)
    return _settle_correction(coup, coup.shoe.table, wagers)


def _wager_key(wager: Wager | SettledWager) -> tuple[int, str, int, int]:
    """What a correction compares: a wager recorded with no paid figure counts as paid what it owed."""
    paid = wager.payout_minor if wager.paid_minor is None else wager.paid_minor
    return (wager.seat, wager.bet, wager.amount_minor, paid)


def _coup_correction_write(
    *, coup: Coup, kind: str, reason: str, wagers: tuple[WagerInput, ...], actor: Actor
) -> CorrectionOutcome:
    """A new version of a coup's wagers (none for a void), in one transaction: the correction, its
    wagers settled by the engine under the coup's paytable version, reversals of the commission
    accrued on the wagers it replaces and accruals on its own. Nothing recorded before is changed."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": gettext("Say why: a correction or a void is recorded with its reason.")})
    if len(reason) > MAX_REASON:
        raise ValidationError(
            {"reason": gettext("Keep the reason to {max_reason} characters.").format(max_reason=MAX_REASON)}
        )
    with transaction.atomic():
        shoe = shoe_lock(coup.shoe_id)  # one writer per shoe: its coups, their corrections, its reconciliation
        coup = Coup.objects.select_related("paytable").get(pk=coup.pk)
        days_ensure_open([coup.gaming_day])  # a closed day's coup changes only once the day is re-opened
        latest = coup.corrections.order_by("-sequence").first()
        standing = list(wagers_standing(coup.wagers.all()))
        settled: list[SettledWager] = []
        if kind == CorrectionKind.VOID:
            if latest is not None and latest.kind == CorrectionKind.VOID:
                return CorrectionOutcome(latest, created=False)
        else:
            settled = _settle_correction(coup, shoe.table, wagers)
            if sorted(map(_wager_key, settled)) == sorted(map(_wager_key, standing)):
                if latest is not None and latest.kind == CorrectionKind.CORRECT:
                    return CorrectionOutcome(latest, created=False)
                raise ValidationError(
                    {"wagers": gettext("These are the wagers that stand already: nothing to correct.")}
                )
        correction = CoupCorrection.objects.create(
            coup=coup,
            sequence=(latest.sequence if latest else 0) + 1,
            kind=kind,
            reason=reason,
            **actor.recorded_fields(),
        )
        stored = Wager.objects.bulk_create(wager.model(coup=coup, correction=correction) for wager in settled)
        note = f"{correction}: {reason}"
        replaced = CommissionEntry.objects.filter(
            wager__in=[wager.pk for wager in standing], kind=EntryKind.ACCRUED, reversed_by__isnull=True
        ).order_by("pk")
        CommissionEntry.objects.bulk_create(
            [
                *(
                    CommissionEntry(
                        shoe=shoe,
                        seat=entry.seat,
                        kind=EntryKind.REVERSAL,
                        currency=entry.currency,
                        amount_minor=-entry.amount_minor,
                        reverses=entry,
                        note=note,
                        **actor.recorded_fields(),
                    )
                    for entry in replaced
                ),
                *(
                    CommissionEntry(
                        shoe=shoe,
                        seat=wager.seat,
                        kind=EntryKind.ACCRUED,
                        currency=wager.currency,
                        amount_minor=wager.commission_minor,
                        wager=wager,
                        note=note,
                        **actor.recorded_fields(),
                    )
                    for wager in stored
                    if wager.commission_minor > 0
                ),
            ]
        )
        outbox_enqueue(VERIFY_TASK, [coup.pk])
        corrections_owe(shoe, coup)
    return CorrectionOutcome(correction, created=True)


_WRITES = ("shoes.CoupCorrection", "shoes.Wager", "ledger.CommissionEntry")


@day_write(writes=_WRITES, day_of="the corrected coup's gaming day")
def coup_correct(
    *, coup: Coup, wagers: tuple[WagerInput, ...], reason: str, actor: Actor = SYSTEM
) -> CorrectionOutcome:
    """Correct a coup's wagers (a misread stake): `wagers` is the whole set that stands from now on,
    each with what the table paid on it (None: what the paytable owes on the corrected stake).
    The same correction again returns the one recorded (created=False). ValidationError names the
    field (`reason`, `wagers[2].amount`); nothing is written then."""
    return _coup_correction_write(coup=coup, kind=CorrectionKind.CORRECT, reason=reason, wagers=wagers, actor=actor)


@day_write(writes=_WRITES, day_of="the voided coup's gaming day")
def coup_void(*, coup: Coup, reason: str, actor: Actor = SYSTEM) -> CorrectionOutcome:
    """Void a coup (a misdeal): no wager stands, every stake is returned, no win, no commission.
    Voiding it again returns the void recorded (created=False)."""
    return _coup_correction_write(coup=coup, kind=CorrectionKind.VOID, reason=reason, wagers=(), actor=actor)
