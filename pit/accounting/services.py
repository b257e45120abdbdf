"""Writes of table accounting: tray counts, fill and credit slips and their steps, drops, holds, the day close.

Every write inserts facts and is idempotent. Design: docs/design/accounting.md."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from statistics import NormalDist

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.selectors import shoes_quarantined
from pit.compliance.services import quarantine_hold, violation_record, violations_clear_missing
from pit.core.actors import Actor
from pit.core.daylock import day_write
from pit.core.derived import DERIVED
from pit.core.errors import Conflict
from pit.core.money import format_money, to_minor
from pit.core.percent import round_percent
from pit.ledger.models import CommissionEntry, Reconciliation, ReconciliationStatus
from pit.ledger.services import shoe_reconcile
from pit.progressives.services import meters_read
from pit.ratings.services import ratings_refresh_day
from pit.records.services import streams_seal
from pit.rollups.services import rollup_day_rebuild
from pit.shoes.models import Shoe, ShoeStatus
from pit.tables.models import Table

from . import duties, selectors
from .locks import day_ensure_open, day_lock
from .models import (
    Adjustment,
    CountKind,
    DayAction,
    DropCount,
    Figure,
    GamingDayEvent,
    HoldFinding,
    HoldFlag,
    InventoryCount,
    Slip,
    SlipBook,
    SlipKind,
    SlipStep,
    SlipStepKind,
    SlipVoid,
)

FOUND_BY = "table_accounting"
MAX_PIECES = 10**7  # more pieces of one denomination than any tray or box holds: a typing error
MAX_AMOUNT = 10**15  # minor units: far beyond any table, well within a 64-bit column
MAX_DENOMINATION = 10**9  # in minor units: no chip or note is worth more ($10 million)


def shifts_per_day() -> int:
    hours = settings.PIT_ACCOUNTING_SHIFT_HOURS
    if hours not in (8, 12, 24):
        raise ValueError(f"PIT_ACCOUNTING_SHIFT_HOURS must be 8, 12 or 24, not {hours}")
    return 24 // hours


def chips_normalize(chips: Mapping, *, field: str = "chips") -> tuple[dict[str, int], int]:
    """{denomination in minor units: pieces} checked and in canonical form (string keys, ascending,
    no zero counts), with its total in minor units. ValidationError names the field and the entry."""
    if not isinstance(chips, Mapping):
        raise ValidationError({field: gettext('Give the pieces counted per denomination, e.g. {"2500": 40}.')})
    normalized: dict[int, int] = {}
    for key, pieces in chips.items():
        try:
            if not str(key).isascii():  # int() would read "٢٥٠٠" as 2500
                raise ValueError(key)
            denomination = int(str(key))
        except ValueError:
            raise ValidationError(
                {field: gettext("%(key)s is not a denomination in minor units.") % {"key": repr(key)}}
            ) from None
        if not 0 < denomination <= MAX_DENOMINATION:
            raise ValidationError(
                {
                    field: gettext("Denomination %(key)s must be positive and at most %(max_denomination)s.")
                    % {"key": key, "max_denomination": MAX_DENOMINATION}
                }
            )
        if isinstance(pieces, bool) or not isinstance(pieces, int) or not 0 <= pieces <= MAX_PIECES:
            raise ValidationError(
                {
                    field: gettext("Pieces of %(key)s must be a whole number from 0 to %(max_pieces)s.")
                    % {"key": key, "max_pieces": MAX_PIECES}
                }
            )
        if pieces:
            normalized[denomination] = normalized.get(denomination, 0) + pieces
    ordered = {str(denomination): normalized[denomination] for denomination in sorted(normalized)}
    return ordered, sum(denomination * pieces for denomination, pieces in normalized.items())


def chips_difference(expected: Mapping, counted: Mapping, currency: str) -> str:
    """The denominations where two counts differ, in words: "$25.00 x 38 instead of 40"."""
    parts = []
    for key in sorted({*expected, *counted}, key=int):
        want, got = expected.get(key, 0), counted.get(key, 0)
        if want != got:
            parts.append(f"{format_money(int(key), currency)} x {got} instead of {want}")
    return "; ".join(parts)


def _check_period(*, gaming_day: dt.date, shift: int) -> None:
    if not isinstance(gaming_day, dt.date):
        raise ValidationError({"gaming_day": gettext("A gaming day (a date) is required.")})
    count = shifts_per_day()
    if not 1 <= shift <= count:
        hours = settings.PIT_ACCOUNTING_SHIFT_HOURS
        raise ValidationError(
            {
                "shift": gettext("Shift must be from 1 to %(count)s (%(hours)s h shifts).")
                % {"count": count, "hours": hours}
            }
        )


def _period_before(day: dt.date, shift: int) -> Q:
    return Q(gaming_day__lt=day) | Q(gaming_day=day, shift__lt=shift)


def _period_after(day: dt.date, shift: int) -> Q:
    return Q(gaming_day__gt=day) | Q(gaming_day=day, shift__gt=shift)


def _create_once(model, lookup: dict, values: dict, compare: tuple[str, ...], what: str):
    """Insert a fact once: the same fact again returns the recorded row; other figures are a Conflict."""
    existing = model.objects.filter(**lookup).first()
    if existing is None:
        try:
            with transaction.atomic():
                return model.objects.create(**lookup, **values), True
        except IntegrityError:
            existing = model.objects.filter(**lookup).first()
            if existing is None:
                raise
    differing = [name for name in compare if getattr(existing, name) != values[name]]
    if differing:
        raise Conflict(
            gettext(
                "{what} is already recorded with other figures ({fields}); a recorded fact is never changed."
            ).format(what=what, fields=", ".join(differing)),
            existing_id=existing.pk,
        )
    return existing, False


# ---------------------------------------------------------------------------------------- inventory
def _chain_check(*, opener: InventoryCount, closer: InventoryCount | None) -> None:
    if closer is None or closer.chips == opener.chips:
        return
    table = opener.table
    finding = game.violation(
        "inventory_chain_break",
        f"The opener of {table.code} for {opener.gaming_day} shift {opener.shift} "
        f"({format_money(opener.total_minor, opener.currency)}) differs from the closer of "
        f"{closer.gaming_day} shift {closer.shift} ({format_money(closer.total_minor, closer.currency)}): "
        f"{chips_difference(closer.chips, opener.chips, opener.currency)}.",
    )
    violation_record(
        finding=finding,
        fingerprint=f"inventory_chain:{opener.pk}:{closer.pk}",
        table=table,
        gaming_day=opener.gaming_day,
        found_by=FOUND_BY,
    )


@day_write(writes=("accounting.InventoryCount",), day_of="the count's gaming day")
@transaction.atomic
def inventory_record(
    *,
    table,
    gaming_day: dt.date,
    shift: int = 1,
    kind: str,
    chips: Mapping,
    dealer,
    pit_boss,
    actor: Actor,
    secrets: Mapping[str, str] | None = None,
) -> InventoryCount:
    """Record a table's opener or closer for a period, signed by the dealer and the pit boss: each
    from their own session, or by their password at the same screen (`secrets`, keyed "dealer" and
    "pit_boss"; `pit.accounting.duties`).

    An opener is compared with the table's previous closer, a closer with the next opener already
    recorded (counts keyed in late); a difference is an `inventory_chain_break`. A closer also
    flags the period's slips never received at the table.
    """
    _check_period(gaming_day=gaming_day, shift=shift)
    if kind not in CountKind.values:
        raise ValidationError(
            {"kind": gettext("Kind must be one of %(kinds)s.") % {"kinds": ", ".join(CountKind.values)}}
        )
    if dealer is None or pit_boss is None:
        raise ValidationError({"dealer" if dealer is None else "pit_boss": gettext("Both signers are required.")})
    if dealer.pk == pit_boss.pk:
        raise ValidationError({"pit_boss": gettext("The dealer and the pit boss must be two different people.")})
    for field, signer, role in (("dealer", dealer, "the dealer"), ("pit_boss", pit_boss, "the pit boss")):
        duties.signature_check(field=field, signer=signer, role=role, actor=actor, secrets=secrets or {})
    chips, total = chips_normalize(chips)
    day_ensure_open(gaming_day=gaming_day)
    count, created = _create_once(
        InventoryCount,
        {"table": table, "gaming_day": gaming_day, "shift": shift, "kind": kind},
        {
            "currency": table.currency,
            "chips": chips,
            "total_minor": total,
            "dealer": dealer,
            "pit_boss": pit_boss,
            **actor.recorded_fields(),
        },
        ("chips", "dealer", "pit_boss"),
        f"The {kind} of {table.code} for {gaming_day} shift {shift}",
    )
    if not created:
        return count
    counts = InventoryCount.objects.filter(table=table).select_related("table")
    if kind == CountKind.OPENER:
        previous = counts.filter(_period_before(gaming_day, shift), kind=CountKind.CLOSER)
        _chain_check(opener=count, closer=previous.order_by("-gaming_day", "-shift").first())
    else:
        following = counts.filter(_period_after(gaming_day, shift), kind=CountKind.OPENER)
        later_opener = following.order_by("gaming_day", "shift").first()
        if later_opener is not None:
            earlier_closer = (
                counts.filter(_period_before(later_opener.gaming_day, later_opener.shift), kind=CountKind.CLOSER)
                .order_by("-gaming_day", "-shift")
                .first()
            )
            if earlier_closer is not None and earlier_closer.pk == count.pk:
                _chain_check(opener=later_opener, closer=count)
        slips_flag_unreceived(table=table, gaming_day=gaming_day, shift=shift)
    win_reconcile(table=table, gaming_day=gaming_day)
    return count


# ---------------------------------------------------------------------------------------- slips
@day_write(writes=("accounting.Slip",), day_of="the slip's gaming day")
@transaction.atomic
def slip_request(
    *,
    kind: str,
    number: str,
    table,
    gaming_day: dt.date,
    shift: int = 1,
    reason: str,
    chips: Mapping,
    actor: Actor,
) -> Slip:
    """The pit asks for a fill (chips from the cage) or a credit (chips back to the cage)."""
    if kind not in SlipKind.values:
        raise ValidationError(
            {"kind": gettext("Kind must be one of %(kinds)s.") % {"kinds": ", ".join(SlipKind.values)}}
        )
    number = (number or "").strip()
    if not number:
        raise ValidationError({"number": gettext("The slip number is required.")})
    if not (reason or "").strip():
        raise ValidationError({"reason": gettext("Say why the chips are needed or returned.")})
    _check_period(gaming_day=gaming_day, shift=shift)
    chips, total = chips_normalize(chips)
    if total <= 0:
        raise ValidationError({"chips": gettext("A slip moves at least one chip.")})
    day_ensure_open(gaming_day=gaming_day)
    _series_check_number(kind=kind, number=number)
    slip, _ = _create_once(
        Slip,
        {"kind": kind, "number": number},
        {
            "table": table,
            "gaming_day": gaming_day,
            "shift": shift,
            "currency": table.currency,
            "reason": reason.strip(),
            "chips": chips,
            "total_minor": total,
            **actor.recorded_fields(),
        },
        ("table", "gaming_day", "shift", "chips"),
        f"{kind.capitalize()} slip {number}",
    )
    return slip


# ---------------------------------------------------------------------------------------- the slip series
SERIES_CHECK = "slip_series"


def slip_series_book(number: str, *, lock: bool = False) -> SlipBook | None:
    """The book a slip number belongs to (a number of digits within a book's range), or None."""
    if not number.isdigit():
        return None
    books = SlipBook.objects.filter(first__lte=int(number), last__gte=int(number))
    return (books.select_for_update() if lock else books).first()


def _series_check_number(*, kind: str, number: str) -> None:
    """Once the casino keeps slip books, a new slip's number is one of a book's, not voided and not
    taken by a slip of the other kind (fills and credits share the series). A replay of a recorded
    slip passes (its number is its own)."""
    if not SlipBook.objects.exists() or Slip.objects.filter(kind=kind, number=number).exists():
        return
    book = slip_series_book(number, lock=True)  # numbers of one book are taken one at a time
    if book is None:
        raise ValidationError(
            {"number": gettext("%(number)s is not a number of any slip book received.") % {"number": number}}
        )
    if SlipVoid.objects.filter(number=int(number)).exists():
        raise ValidationError({"number": gettext("Slip number %(number)s was voided.") % {"number": number}})
    other = Slip.objects.filter(number=number).exclude(kind=kind).first()
    if other is not None:
        raise ValidationError(
            {
                "number": gettext("Slip number %(number)s is taken by %(slip)s: fills and credits share one series.")
                % {"number": number, "slip": other}
            }
        )


@transaction.atomic
def slip_book_record(*, first: int, last: int, actor: Actor, received_at=None, note: str = "") -> SlipBook:
    """Record a book of pre-numbered slip forms: numbers `first` to `last`, overlapping no other book."""
    if first < 1 or last < first:
        raise ValidationError(
            {"last": gettext("A book runs from a first number of at least 1 to a last not below it.")}
        )
    if last - first >= 100_000:
        raise ValidationError({"last": gettext("A book holds at most 100,000 forms.")})
    overlapping = SlipBook.objects.select_for_update().filter(first__lte=last, last__gte=first).first()
    if overlapping is not None:
        raise ValidationError(
            {
                "first": gettext("Numbers %(first)s-%(last)s overlap %(book)s.")
                % {"first": first, "last": last, "book": overlapping}
            }
        )
    book = SlipBook(
        first=first, last=last, received_at=received_at or timezone.now(), note=note.strip(), **actor.recorded_fields()
    )
    book.full_clean()
    book.save()
    return book


@transaction.atomic
def slip_number_void(*, number: int, reason: str, witness, actor: Actor) -> SlipVoid:
    """Void a slip number of a book (a spoiled or cancelled form), with the reason and a witness who
    is not the person voiding it. A number a slip used is not voided (the slip stays the record)."""
    if not (reason or "").strip():
        raise ValidationError({"reason": gettext("Say why the slip is voided.")})
    if witness is None or (actor.user is not None and witness.pk == actor.user.pk):
        raise ValidationError({"witness": gettext("A witness other than you signs the void.")})
    book = slip_series_book(str(number), lock=True)
    if book is None:
        raise ValidationError({"number": gettext("%(number)s is not a number of any slip book.") % {"number": number}})
    used = Slip.objects.filter(number=str(number)).first()
    if used is not None:
        raise ValidationError({"number": gettext("%(slip)s used this number.") % {"slip": used}})
    existing = SlipVoid.objects.filter(number=number).first()
    if existing is not None:
        return existing
    void = SlipVoid.objects.create(
        book=book, number=number, reason=reason.strip(), witness=witness, **actor.recorded_fields()
    )
    slip_series_check()
    return void


def slip_series_check() -> int:
    """Record `slip_number_gap` for each number of a book neither used nor voided while a later
    number of the book is (Louisiana LAC 42:III.2717: every number accounted for), against the table
    of the next slip after it; a gap since voided or used is cleared. Returns the gaps."""
    found: set[str] = set()
    for book in selectors.slip_series():
        for gap in book.gaps:
            finding = game.violation(
                "slip_number_gap",
                gettext(
                    "Slip number %(number)s of book %(book)s was neither used nor voided, but %(next)s after it was."
                )
                % {"number": gap.number, "book": book.label, "next": gap.next_number},
            )
            fingerprint = f"slip_gap:{gap.number}"
            violation_record(
                finding=finding,
                fingerprint=fingerprint,
                table=Table.objects.get(pk=gap.table_id),
                gaming_day=gap.gaming_day,
                found_by=SERIES_CHECK,
            )
            found.add(fingerprint)
    violations_clear_missing(
        scope=RuleViolation.objects.filter(code="slip_number_gap"), found_by=SERIES_CHECK, fingerprints_found=found
    )
    return len(found)


def _slip_step(
    *, slip: Slip, step: str, chips: Mapping, actor: Actor, signed_by=None, secrets: Mapping[str, str] | None = None
) -> SlipStep:
    chips, total = chips_normalize(chips)
    slip = Slip.objects.select_related("table").get(pk=slip.pk)
    day_ensure_open(gaming_day=slip.gaming_day)
    if step == SlipStepKind.RECEIVED and not slip.steps.filter(step=SlipStepKind.ISSUED).exists():
        raise Conflict(gettext("{slip} has not been issued by the cage yet.").format(slip=slip), slip=slip.number)
    recorded_step = slip.steps.filter(step=step).first()
    if recorded_step is None:  # a replay of a recorded step is answered as recorded, below
        duties.signature_check(field="signed_by", signer=signed_by, role=step, actor=actor, secrets=secrets or {})
        duties.slip_person_check(slip=slip, step=step, person=signed_by or actor.user, actor=actor)
    recorded, created = _create_once(
        SlipStep,
        {"slip": slip, "step": step},
        {"chips": chips, "total_minor": total, "signed_by": signed_by, **actor.recorded_fields()},
        ("chips",),
        f"The {step} step of {slip}",
    )
    if created and chips != slip.chips:
        finding = game.violation(
            "slip_amount_mismatch",
            f"{slip} was {step} with {format_money(total, slip.currency)} against "
            f"{format_money(slip.total_minor, slip.currency)} requested: "
            f"{chips_difference(slip.chips, chips, slip.currency)}.",
        )
        violation_record(
            finding=finding,
            fingerprint=f"slip_mismatch:{slip.pk}:{step}",
            table=slip.table,
            gaming_day=slip.gaming_day,
            found_by=FOUND_BY,
        )
    if created and step == SlipStepKind.RECEIVED:
        win_reconcile(table=slip.table, gaming_day=slip.gaming_day)
    return recorded


@day_write(writes=("accounting.SlipStep",), day_of="the slip's gaming day")
@transaction.atomic
def slip_issue(
    *, slip: Slip, chips: Mapping, actor: Actor, signed_by=None, secrets: Mapping[str, str] | None = None
) -> SlipStep:
    """The cage issues the chips of a slip (for a credit: the cage's count of what it takes back).
    The issuer (`signed_by`, else the acting user) is not who requested it; a signer other than the
    acting user gives their password (`secrets["signed_by"]`; `pit.accounting.duties`)."""
    return _slip_step(
        slip=slip, step=SlipStepKind.ISSUED, chips=chips, actor=actor, signed_by=signed_by, secrets=secrets
    )


@day_write(writes=("accounting.SlipStep",), day_of="the slip's gaming day")
@transaction.atomic
def slip_receive(
    *, slip: Slip, chips: Mapping, actor: Actor, signed_by=None, secrets: Mapping[str, str] | None = None
) -> SlipStep:
    """The table signs for the chips of an issued slip: what is received is what counts in the win.
    The receiver is neither who requested nor who issued it (`pit.accounting.duties`)."""
    return _slip_step(
        slip=slip, step=SlipStepKind.RECEIVED, chips=chips, actor=actor, signed_by=signed_by, secrets=secrets
    )


def slips_flag_unreceived(*, table=None, gaming_day: dt.date, shift: int | None = None) -> int:
    """Record `slip_not_received` for the period's slips that never reached the table. Returns how many."""
    slips = Slip.objects.filter(gaming_day=gaming_day).exclude(steps__step=SlipStepKind.RECEIVED)
    if table is not None:
        slips = slips.filter(table=table)
    if shift is not None:
        slips = slips.filter(shift=shift)
    found = 0
    for slip in slips.select_related("table"):
        finding = game.violation(
            "slip_not_received",
            f"{slip} ({format_money(slip.total_minor, slip.currency)}, requested for {slip.gaming_day} "
            f"shift {slip.shift}) was never received at the table.",
        )
        violation_record(
            finding=finding,
            fingerprint=f"slip_not_received:{slip.pk}",
            table=slip.table,
            gaming_day=slip.gaming_day,
            found_by=FOUND_BY,
        )
        found += 1
    return found


# ---------------------------------------------------------------------------------------- drop
@day_write(writes=("accounting.DropCount",), day_of="the drop's gaming day")
@transaction.atomic
def drop_record(
    *,
    table,
    gaming_day: dt.date,
    shift: int = 1,
    cash: Mapping,
    chips_minor: int = 0,
    markers_minor: int = 0,
    actor: Actor,
) -> DropCount:
    """The soft count of a table's drop box: notes by denomination, chips and markers found in it."""
    _check_period(gaming_day=gaming_day, shift=shift)
    cash, cash_minor = chips_normalize(cash, field="cash")
    for name, value in (("chips", chips_minor), ("markers", markers_minor)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_AMOUNT:
            raise ValidationError(
                {
                    name: gettext("An amount from zero to %(max_amount)s minor units is required.")
                    % {"max_amount": MAX_AMOUNT}
                }
            )
    if markers_minor and not settings.PIT_DROP_MARKERS:
        raise ValidationError(
            {"markers": gettext("This casino does not take markers in the drop box (PIT_DROP_MARKERS).")}
        )
    day_ensure_open(gaming_day=gaming_day)
    drop, _ = _create_once(
        DropCount,
        {"table": table, "gaming_day": gaming_day, "shift": shift},
        {
            "currency": table.currency,
            "cash": cash,
            "cash_minor": cash_minor,
            "chips_minor": chips_minor,
            "markers_minor": markers_minor,
            "total_minor": cash_minor + chips_minor + markers_minor,
            **actor.recorded_fields(),
        },
        ("cash", "chips_minor", "markers_minor"),
        f"The drop of {table.code} for {gaming_day} shift {shift}",
    )
    win_reconcile(table=table, gaming_day=gaming_day)
    return drop


# ---------------------------------------------------------------------------------------- win reconciliation
WIN_CHECK = "win_reconciliation"


def win_tolerance_minor(currency: str) -> int:
    return to_minor(Decimal(settings.PIT_WIN_RECONCILIATION_TOLERANCE), currency)


def win_reconcile(*, table, gaming_day: dt.date) -> int | None:
    """Compare a table-day's statutory win with the house win of its recorded wagers; beyond the
    tolerance it is a `win_reconciliation_variance` (one per difference: a finding that no longer
    holds after a later figure is cleared, never deleted). Returns the difference in minor units,
    or None while the day's figures are incomplete, or while a shoe of the table-day is quarantined (a
    `derivation_quarantined` finding says so; its hold investigation waits with it)."""
    shoe_ids = Shoe.objects.filter(table=table, coups__gaming_day=gaming_day).values_list("pk", flat=True).distinct()
    if quarantine_hold(
        shoe_ids=shoe_ids,
        derived=WIN_CHECK,
        what=f"The win reconciliation of {table.code} on {gaming_day}",
        table=table,
        gaming_day=gaming_day,
    ):
        return None
    difference = selectors.win_difference_minor(table=table, gaming_day=gaming_day)
    if difference is not None:
        hold_check(
            table_id=table.pk, gaming_day=gaming_day, win=difference[0], drop=difference[2], currency=table.currency
        )
    scope = RuleViolation.objects.filter(table=table, gaming_day=gaming_day, code="win_reconciliation_variance")
    found: set[str] = set()
    if difference is not None and abs(difference[0] - difference[1]) > win_tolerance_minor(table.currency):
        statutory, wagers, _ = difference
        fingerprint = f"{WIN_CHECK}:{table.pk}:{gaming_day}:{statutory}:{wagers}"
        found.add(fingerprint)
        gap = statutory - wagers
        finding = game.violation(
            "win_reconciliation_variance",
            f"The statutory win of {table.code} on {gaming_day} is {format_money(statutory, table.currency)}; "
            f"its recorded wagers won {format_money(wagers, table.currency)}: "
            f"{format_money(abs(gap), table.currency)} {'more' if gap > 0 else 'less'} in the tray and drop "
            "than the wagers account for.",
        )
        violation_record(
            finding=finding, fingerprint=fingerprint, table=table, gaming_day=gaming_day, found_by=WIN_CHECK
        )
    violations_clear_missing(scope=scope, found_by=WIN_CHECK, fingerprints_found=found)
    return None if difference is None else difference[0] - difference[1]


# ---------------------------------------------------------------------------------------- investigation
def hold_rule() -> tuple[str, Decimal, int]:
    """(kind, value, prior days) of the investigation rule, from the settings:
    `points`: flag a win-to-drop more than `value` points from the table's own over the prior days;
    `interval`: flag one outside the `value` % interval (normal) of its daily win-to-drop over them."""
    kind = settings.PIT_HOLD_RULE
    if kind not in ("points", "interval"):
        raise ValueError(f"PIT_HOLD_RULE must be 'points' or 'interval', not {kind!r}")
    return kind, Decimal(settings.PIT_HOLD_RULE_VALUE), settings.PIT_HOLD_RULE_PRIOR_DAYS


def hold_range(*, table_id: int, gaming_day: dt.date) -> tuple[Decimal, Decimal] | None:
    """The win-to-drop range (in percent) a table-day should fall in, from the prior days; None when
    the prior days give no base (fewer than two complete days with a drop)."""
    kind, value, prior_days = hold_rule()
    prior = selectors.daily_holds(
        table_id=table_id,
        date_from=gaming_day - dt.timedelta(days=prior_days),
        date_to=gaming_day - dt.timedelta(days=1),
    )
    if len(prior) < 2:
        return None
    hundred = Decimal(100)
    if kind == "points":
        base = Decimal(sum(win for _, win, _ in prior)) / Decimal(sum(drop for _, _, drop in prior)) * hundred
        return base - value, base + value
    holds = [Decimal(win) / Decimal(drop) * hundred for _, win, drop in prior]
    mean = sum(holds, Decimal(0)) / len(holds)
    deviation = (sum(((hold - mean) ** 2 for hold in holds), Decimal(0)) / (len(holds) - 1)).sqrt()
    # The normal quantile is not money: a float here, rounded to six places, is exact enough.
    z = Decimal(str(round(NormalDist().inv_cdf((1 + float(value) / 100) / 2), 6)))
    return mean - z * deviation, mean + z * deviation


def hold_check(*, table_id: int, gaming_day: dt.date, win: int | None, drop: int | None, currency: str):
    """Flag a complete table-day whose win-to-drop is outside the rule's range (once per rule)."""

    if win is None or not drop:
        return None
    bounds = hold_range(table_id=table_id, gaming_day=gaming_day)
    hold = Decimal(win) / Decimal(drop) * 100
    if bounds is None or bounds[0] <= hold <= bounds[1]:
        return None
    kind, value, prior_days = hold_rule()
    flag, _ = HoldFlag.objects.get_or_create(
        table_id=table_id,
        gaming_day=gaming_day,
        rule=f"{kind} {value} over {prior_days} prior days",
        defaults={
            "win_minor": win,
            "drop_minor": drop,
            "currency": currency,
            "hold_percent": round_percent(hold, 4),
            "low_percent": round_percent(bounds[0], 4),
            "high_percent": round_percent(bounds[1], 4),
        },
    )
    return flag


@transaction.atomic
def holds_investigate(*, gaming_day: dt.date) -> int:
    """Check every complete table-day of a gaming day against the rule (after a rule change, say);
    safe to run again. Returns how many table-days are flagged. A table-day with a quarantined shoe
    is skipped, as its win reconciliation is (a `derivation_quarantined` finding)."""
    flagged = 0
    for (_, table_id, _), item in selectors.period_figures(date_from=gaming_day, date_to=gaming_day).items():
        table = Table.objects.get(pk=table_id)
        if quarantine_hold(
            shoe_ids=Shoe.objects.filter(table_id=table_id, coups__gaming_day=gaming_day).values_list("pk", flat=True),
            derived=WIN_CHECK,
            what=f"The win reconciliation of {table.code} on {gaming_day}",
            table=table,
            gaming_day=gaming_day,
        ):
            continue  # the hold investigation waits with the win reconciliation
        if hold_check(table_id=table_id, gaming_day=gaming_day, win=item.win, drop=item.drop, currency=item.currency):
            flagged += 1
    return flagged


@transaction.atomic
def hold_finding_write(*, flag, text: str, user):
    """Record the written finding of an investigation (who, when, what)."""

    if not (text or "").strip():
        raise ValidationError({"text": gettext("Write what the investigation found.")})
    return HoldFinding.objects.create(flag=flag, text=text.strip(), written_by=user)


# ---------------------------------------------------------------------------------------- day close
_COUNTS = (("opener", gettext_lazy("opener")), ("closer", gettext_lazy("closer")), ("drop", gettext_lazy("drop")))


def day_close_blockers(*, gaming_day: dt.date) -> list[str]:
    """What still stands in the way of closing a gaming day, in words (empty: it may close)."""

    blockers: list[str] = []
    shoes = Shoe.objects.filter(coups__gaming_day=gaming_day).distinct().select_related("table")
    statuses = dict(Reconciliation.objects.filter(shoe__in=shoes).values_list("shoe_id", "status"))
    for shoe in shoes.order_by("table__code", "pk"):
        if shoe.status == ShoeStatus.DEALING:
            blockers.append(gettext("Shoe {shoe} is still dealing.").format(shoe=shoe))
            continue
        status = statuses.get(shoe.pk)
        if status is None:
            blockers.append(gettext("Shoe {shoe} is not reconciled yet.").format(shoe=shoe))
        elif status == ReconciliationStatus.VARIANCE:
            blockers.append(gettext("The commission box variance of shoe {shoe} is not explained.").format(shoe=shoe))
    figures = selectors.period_figures(date_from=gaming_day, date_to=gaming_day)
    played = {table_id for (_, table_id, _) in figures} | set(shoes.values_list("table_id", flat=True))
    codes = dict(Table.objects.filter(pk__in=played).values_list("pk", "code"))
    for table_id in sorted(played, key=lambda table_id: codes[table_id]):  # played tables exist
        item = figures.get((gaming_day, table_id, 0))
        missing = [str(word) for name, word in _COUNTS if item is None or item.counted[name] != item.shifts]
        if missing:
            blockers.append(
                gettext("Table {table} has no {counts} recorded for every shift.").format(
                    table=codes[table_id], counts=", ".join(missing)
                )
            )
    supplemented = RuleViolation.objects.filter(
        shoe__in=shoes.filter(reconciliation__supplements__isnull=False),
        code="box_variance",
        status="open",
        cleared_at__isnull=True,
        fingerprint__contains=":supplement",  # a supplement's finding (the first count's has its explanation)
    )
    for violation in supplemented.select_related("shoe__table").order_by("shoe_id", "seat"):
        blockers.append(
            gettext(
                "The commission box of shoe {shoe} differs from its ledger at seat {seat} since a supplement "
                "(violation {violation}) and awaits a pit boss's review."
            ).format(shoe=violation.shoe, seat=violation.seat, violation=violation.pk)
        )
    for _, holding in sorted(shoes_quarantined(shoes.values_list("pk", flat=True)).items()):
        blockers.append(
            gettext(
                "Shoe {shoe} is quarantined: its record chain is broken (violation {violation}) and awaits a "
                "person's review."
            ).format(shoe=holding.shoe, violation=holding.pk)
        )
    unreceived = Slip.objects.filter(gaming_day=gaming_day).exclude(steps__step=SlipStepKind.RECEIVED)
    for slip in unreceived.select_related("table"):
        blockers.append(gettext("{slip} was never received at the table.").format(slip=slip))
    unreviewed = RuleViolation.objects.filter(
        gaming_day=gaming_day, code="win_reconciliation_variance", status="open", cleared_at__isnull=True
    )
    for violation in unreviewed.select_related("table").order_by("table__code"):
        blockers.append(
            gettext(
                "The statutory win of {table} differs from its wagers (violation {violation}) and awaits a pit "
                "boss's review."
            ).format(table=violation.table.code, violation=violation.pk)
        )
    for flag in HoldFlag.objects.filter(gaming_day=gaming_day, findings__isnull=True).select_related("table"):
        blockers.append(
            gettext("The win-to-drop of {table} ({percent} %) awaits a finding.").format(
                table=flag.table.code, percent=round_percent(flag.hold_percent)
            )
        )
    return blockers


def _day_shoes(gaming_day: dt.date):
    return Shoe.objects.filter(coups__gaming_day=gaming_day).distinct().select_related("table").order_by("pk")


def _played_tables(gaming_day: dt.date) -> list[Table]:
    """The tables with figures or coups on the day, by code."""
    figures = selectors.period_figures(date_from=gaming_day, date_to=gaming_day)
    played = {table_id for (_, table_id, _) in figures} | set(_day_shoes(gaming_day).values_list("table_id", flat=True))
    return list(Table.objects.filter(pk__in=played).order_by("code"))


def _recheck_box_reconciliation(gaming_day: dt.date) -> None:
    """Each closed shoe of the day reconciled, or supplemented where its ledger moved since."""
    for shoe in _day_shoes(gaming_day).filter(status=ShoeStatus.CLOSED):
        shoe_reconcile(shoe_id=shoe.pk)


def _recheck_rollups(gaming_day: dt.date) -> None:
    """The day's rollups rebuilt from the detail (a day not complete yet is read from the detail)."""
    rollup_day_rebuild(day=gaming_day)


def _recheck_ratings(gaming_day: dt.date) -> None:
    """The ratings of every session of the day recomputed whole (their comps follow)."""
    ratings_refresh_day(gaming_day=gaming_day)


def _recheck_progressive_meters(gaming_day: dt.date) -> None:
    """Every progressive meter's reading as it stands (a correction or void of the day carried)."""
    meters_read()


def _recheck_win_reconciliation(gaming_day: dt.date) -> None:
    """Each played table-day's statutory win against its wagers, and its hold investigation."""
    for table in _played_tables(gaming_day):
        win_reconcile(table=table, gaming_day=gaming_day)


# The close's re-run of every derived check of pit.core.derived, by its name. The win reconciliation
# runs again under the day's exclusive lock; the others lock shoes (taken before a day's lock by
# every writer), so they run before it.
RECHECKS = {
    "box_reconciliation": _recheck_box_reconciliation,
    "progressive_meters": _recheck_progressive_meters,
    "rollups": _recheck_rollups,
    "ratings": _recheck_ratings,
    "win_reconciliation": _recheck_win_reconciliation,
}
RECHECKED_UNDER_LOCK = ("win_reconciliation",)


def day_recheck(*, gaming_day: dt.date) -> None:
    """Re-run every derived check of a gaming day from its facts as they stand (each in its own
    transaction: what a re-check finds is kept even when the close it precedes is refused)."""
    for derived in DERIVED:
        with transaction.atomic():
            RECHECKS[derived.name](gaming_day)


def _unsettled_shoes(gaming_day: dt.date) -> list[Shoe]:
    """Closed shoes of the day whose ledger moved after their reconciliation (a seat's balance not zero)."""
    shoes = {shoe.pk: shoe for shoe in _day_shoes(gaming_day).filter(status=ShoeStatus.CLOSED)}
    moved = (
        CommissionEntry.objects.filter(shoe_id__in=shoes)
        .values("shoe_id", "seat")
        .order_by()
        .annotate(balance=Sum("amount_minor"))
        .exclude(balance=0)
        .values_list("shoe_id", flat=True)
    )
    return [shoes[shoe_id] for shoe_id in sorted(set(moved))]


def gaming_day_close(*, gaming_day: dt.date, user, note: str = ""):
    """Close (lock) a gaming day: refused, naming every reason, until it is all counted and explained.

    Every derived check of the day is re-run first (`day_recheck`), and the win reconciliation once
    more under the day's exclusive lock, so a fact that came after a check ran is checked before the
    day locks; what a re-check finds is kept, and stands in the way of the close like any finding.
    Then every fact stream is sealed in full (`streams_seal`), the re-checks' findings with them, so
    the day's facts are in their chains before it locks (and before the next heads file pins them)."""
    day_recheck(gaming_day=gaming_day)
    streams_seal()
    with transaction.atomic():
        day_lock(gaming_day=gaming_day, exclusive=True)
        if selectors.day_is_closed(gaming_day):
            raise Conflict(
                gettext("Gaming day {gaming_day} is already closed.").format(gaming_day=gaming_day),
                gaming_day=gaming_day.isoformat(),
            )
        for name in RECHECKED_UNDER_LOCK:
            RECHECKS[name](gaming_day)
        blockers = day_close_blockers(gaming_day=gaming_day)
        blockers += [
            gettext(
                "The commission of shoe {shoe} changed after its reconciliation: it is reconciled again first."
            ).format(shoe=shoe)
            for shoe in _unsettled_shoes(gaming_day)
        ]
        if not blockers:
            return GamingDayEvent.objects.create(
                gaming_day=gaming_day, action=DayAction.CLOSED, note=note.strip(), by=user
            )
    raise ValidationError({"gaming_day": blockers})


@transaction.atomic
def gaming_day_reopen(*, gaming_day: dt.date, user, note: str):
    """Re-open a closed day (say why): its records take new facts again; the events keep the history."""

    if not (note or "").strip():
        raise ValidationError({"note": gettext("Say why the day is re-opened.")})
    day_lock(gaming_day=gaming_day, exclusive=True)
    if not selectors.day_is_closed(gaming_day):
        raise Conflict(
            gettext("Gaming day {gaming_day} is not closed.").format(gaming_day=gaming_day),
            gaming_day=gaming_day.isoformat(),
        )
    return GamingDayEvent.objects.create(gaming_day=gaming_day, action=DayAction.REOPENED, note=note.strip(), by=user)


@transaction.atomic
def adjustment_record(
    *,
    table,
    gaming_day: dt.date,
    figure: str,
    amount_minor: int,
    reason: str,
    actor: Actor,
    shift: int = 1,
):
    """Change a figure of a closed gaming day by an amount, with the reason; the win follows."""

    if figure not in Figure.values:
        raise ValidationError(
            {"figure": gettext("Figure must be one of %(figures)s.") % {"figures": ", ".join(Figure.values)}}
        )
    if isinstance(amount_minor, bool) or not isinstance(amount_minor, int) or not 0 < abs(amount_minor) <= MAX_AMOUNT:
        raise ValidationError({"amount": gettext("An adjustment is a non-zero amount.")})
    if not (reason or "").strip():
        raise ValidationError({"reason": gettext("Say why the figure changes.")})
    _check_period(gaming_day=gaming_day, shift=shift)
    day_lock(gaming_day=gaming_day)
    if not selectors.day_is_closed(gaming_day):
        raise Conflict(
            gettext(
                "Gaming day {gaming_day} is open: record the count, slip or drop itself, not an adjustment."
            ).format(gaming_day=gaming_day),
            gaming_day=gaming_day.isoformat(),
        )
    adjustment = Adjustment.objects.create(
        table=table,
        gaming_day=gaming_day,
        shift=shift,
        figure=figure,
        currency=table.currency,
        amount_minor=amount_minor,
        reason=reason.strip(),
        **actor.recorded_fields(),
    )
    win_reconcile(table=table, gaming_day=gaming_day)
    return adjustment
