"""Writes: dealers, rotations at the tables, and whose fault a violation was."""

import datetime as dt

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.dealers.models import Dealer, DealerRotation, Fault, ViolationFault
from pit.dealers.selectors import shift_length

MAX_NOTE = 2000
OVERDUE = "dealer_rotation_overdue"
OVERDUE_CHECK = "dealers"


@transaction.atomic
def dealer_create(*, code: str, name: str) -> Dealer:
    dealer = Dealer(code=(code or "").strip(), name=(name or "").strip())
    dealer.full_clean()
    dealer.save()
    return dealer


@day_write(writes=("dealers.DealerRotation",), day_of="the gaming day of the rotation's start")
def dealer_rotate(
    *, table, dealer: Dealer | None, started_at: dt.datetime, actor: Actor = SYSTEM
) -> tuple[DealerRotation, bool]:
    """`dealer` deals at `table` from `started_at` on (None: the dealer went out, nobody came in).
    Returns (rotation, created). The same rotation posted again is a replay (created=False); another
    dealer at the same moment is a Conflict naming the one recorded."""
    if timezone.is_naive(started_at):
        raise ValidationError({"started_at": _("Give the time with its UTC offset, e.g. 2026-03-01T14:00:00+01:00.")})
    if started_at > timezone.now() + dt.timedelta(minutes=5):
        raise ValidationError({"started_at": _("%(moment)s is in the future.") % {"moment": started_at.isoformat()}})
    recorded = DealerRotation.objects.filter(table=table, started_at=started_at).select_related("dealer").first()
    if recorded is None:
        try:
            with transaction.atomic():
                days_ensure_open([gaming_day_for(started_at)])
                return DealerRotation.objects.create(
                    table=table, dealer=dealer, started_at=started_at, **actor.recorded_fields()
                ), True
        except IntegrityError:  # the same start posted at the same moment by another device
            recorded = DealerRotation.objects.select_related("dealer").get(table=table, started_at=started_at)
    if recorded.dealer_id == (dealer.pk if dealer else None):
        return recorded, False
    raise Conflict(
        _("At {at} table {table} already has {dealer} coming in.").format(
            at=started_at.isoformat(),
            table=table.code,
            dealer=recorded.dealer.code if recorded.dealer_id else _("nobody"),
        ),
        rotation_id=recorded.pk,
    )


@transaction.atomic
def violation_attribute(*, violation, fault: str, user, note: str) -> ViolationFault:
    """Record whose fault a violation was (the latest attribution stands). A device fault or
    neither keeps the violation out of its dealer's error statistics."""
    note = (note or "").strip()
    errors = {}
    if fault not in Fault.values:
        errors["fault"] = _("%(fault)s is not one of %(faults)s.") % {
            "fault": repr(fault),
            "faults": ", ".join(Fault.values),
        }
    if not note:
        errors["note"] = _("Say why: the attribution is kept with its note.")
    elif len(note) > MAX_NOTE:
        errors["note"] = _("Keep the note to %(limit)s characters.") % {"limit": MAX_NOTE}
    if errors:
        raise ValidationError(errors)
    return ViolationFault.objects.create(violation=violation, fault=fault, note=note, decided_by=user)


@transaction.atomic
def rotations_overdue_record(*, day: dt.date, now: dt.datetime | None = None) -> int:
    """`dealer_rotation_overdue` for every rotation whose shift (`shift_length`) ran out on gaming day
    `day` before anyone was recorded coming in at its table: nobody ended it, so its dealer is charged
    with no coup after that (`pit.dealers.selectors`) and the pit boss is told. One finding per
    rotation, on the day its shift ran out; cleared if a rotation recorded later shows it ended in
    time. Returns the findings that hold."""
    now = now or timezone.now()
    start, end = gaming_day_bounds(day)
    shift = shift_length()
    found: set[str] = set()
    candidates = (
        DealerRotation.objects.filter(
            dealer__isnull=False, started_at__gte=start - shift, started_at__lt=min(end, now) - shift
        )
        .select_related("table", "dealer")
        .order_by("table_id", "started_at")
    )
    for rotation in candidates:
        ran_out = rotation.started_at + shift
        ended = DealerRotation.objects.filter(
            table_id=rotation.table_id, started_at__gt=rotation.started_at, started_at__lte=ran_out
        ).exists()
        if ended or gaming_day_for(ran_out) != day:
            continue
        hours = shift.total_seconds() / 3600
        finding = game.violation(
            OVERDUE,
            f"Dealer {rotation.dealer.code} came in at table {rotation.table.code} at "
            f"{rotation.started_at.isoformat()} and nobody was recorded coming in within {hours:g} hours: "
            "the rotation is charged no further; record who dealt.",
        )
        fingerprint = f"{OVERDUE}:rotation{rotation.pk}"
        violation_record(
            finding=finding, fingerprint=fingerprint, table=rotation.table, gaming_day=day, found_by=OVERDUE_CHECK
        )
        found.add(fingerprint)
    violations_clear_missing(
        scope=RuleViolation.objects.filter(code=OVERDUE, gaming_day=day),
        found_by=OVERDUE_CHECK,
        fingerprints_found=found,
    )
    return len(found)
