"""Writes of the patrons' cash: the rules, the day's rates, cash transactions and their reversals,
the day's check (worksheets and patterns found, kept and cleared by fingerprint) and compliance's
review of a finding. Every write is atomic; a closed gaming day takes no new transaction."""

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from pit import game
from pit.cash import patterns, persistence
from pit.cash.models import (
    DIRECTIONS,
    CashFinding,
    CashKind,
    CashRules,
    CashTransaction,
    ExchangeRate,
    FindingStatus,
)
from pit.cash.presets import PRESETS, preset_values
from pit.cash.selectors import cash_in_today, exact_text, findings_due, patron_sessions, rate_for, rules_at
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.core.money import MoneyError, to_minor
from pit.core.rows import values_rows

if TYPE_CHECKING:
    from pit.players.models import BuyIn, Patron, SeatSession
    from pit.tables.models import Table

RATE_PLACES = 10


def _invalid(field: str, message: str) -> ValidationError:
    return ValidationError({field: [message]})


def rules_record(
    *,
    preset: str,
    effective_from: dt.datetime,
    overrides: dict | None = None,
    actor: Actor = SYSTEM,
) -> CashRules:
    """A new version of the cash-reporting rules: the preset's values, with `overrides` of any of them."""
    if preset not in PRESETS:
        raise _invalid(
            "preset",
            _("Unknown preset %(preset)s; presets: %(known)s.")
            % {"preset": preset, "known": ", ".join(sorted(PRESETS))},
        )
    values = preset_values(preset)
    values.pop("preset")
    unknown = sorted(set(overrides or {}) - {field.name for field in CashRules._meta.concrete_fields})
    if unknown:
        raise _invalid(unknown[0], _("Not a value of the cash rules."))
    values.update(overrides or {})
    rules = CashRules(preset=preset, effective_from=effective_from, **values, **actor.recorded_fields())
    rules.full_clean(exclude=["recorded_by_user", "recorded_by_device"], validate_unique=False)
    try:
        with transaction.atomic():
            rules.save()
    except IntegrityError:
        raise _invalid("effective_from", _("Rules take effect at this moment already.")) from None
    return rules


def _canonical_rate(rate) -> str:
    try:
        value = Decimal(str(rate))
    except InvalidOperation:
        raise _invalid("rate", _("Not a decimal rate.")) from None
    if not value.is_finite() or value <= 0:
        raise _invalid("rate", _("A rate is a positive decimal."))
    if -value.as_tuple().exponent > RATE_PLACES:  # type: ignore[operator]
        raise _invalid("rate", _("A rate has at most %(places)s decimal places.") % {"places": RATE_PLACES})
    return exact_text(value)


def rate_record(*, day: dt.date, currency: str, rate, actor: Actor = SYSTEM) -> ExchangeRate:
    """The day's rate of `currency` in the reporting currency of the rules standing that day."""
    rules = rules_at(gaming_day_bounds(day)[1] - dt.timedelta(microseconds=1))
    if currency == rules.reporting_currency:
        raise _invalid("currency", _("The reporting currency's rate is 1."))
    text = _canonical_rate(rate)
    try:
        with transaction.atomic():
            return ExchangeRate.objects.create(
                day=day,
                currency=currency,
                reporting_currency=rules.reporting_currency,
                rate=text,
                **actor.recorded_fields(),
            )
    except IntegrityError:
        raise _invalid(
            "day", _("The rate of %(currency)s on %(day)s is recorded already.") % {"currency": currency, "day": day}
        ) from None


def _rate(day: dt.date, currency: str, reporting_currency: str) -> str:
    found = rate_for(day, currency, reporting_currency)
    if found is None:
        raise _invalid(
            "currency",
            _("No exchange rate of %(currency)s into %(reporting)s is recorded on or before %(day)s.")
            % {"currency": currency, "reporting": reporting_currency, "day": day},
        )
    return found


@dataclass(frozen=True)
class CashInput:
    reference: str
    kind: str
    at: dt.datetime
    currency: str
    amount: Decimal
    table: "Table | None" = None  # None at the cage
    location: str = ""
    patron: "Patron | None" = None  # None for a person known only by description
    description: str = ""
    session: "SeatSession | None" = None
    buy_in: "BuyIn | None" = None


@day_write(writes=("cash.CashTransaction",), day_of="the gaming day of the transaction's moment")
def transaction_record(*, cash: CashInput, actor: Actor = SYSTEM) -> CashTransaction:
    """Record a cash transaction; the same reference again returns the recorded one (the caller
    compares). The amount is converted at the day's rate, kept on the row."""
    return transaction_record_once(cash=cash, actor=actor)[0]


@day_write(writes=("cash.CashTransaction",), day_of="the gaming day of the transaction's moment")
def transaction_record_once(*, cash: CashInput, actor: Actor = SYSTEM) -> tuple[CashTransaction, bool]:
    """`transaction_record`, and whether it recorded the transaction now (False: the reference was
    recorded already, and that record is returned).

    Inside a caller's transaction (the API's) its block takes no savepoint (two round trips of every
    transaction the cage posts): its refusals are raised after the block, before anything is written,
    and an error of the insert, the block's one write, fails the caller's transaction with it."""
    if cash.kind not in CashKind.values:
        raise _invalid("kind", _("Unknown kind; kinds: %(kinds)s.") % {"kinds": ", ".join(CashKind.values)})
    if cash.patron is None and not cash.description.strip():
        raise _invalid("description", _("Name the patron or describe the person."))
    try:
        minor = to_minor(cash.amount, cash.currency)
    except MoneyError as exc:
        raise _invalid("amount", str(exc)) from None
    if minor <= 0:
        raise _invalid("amount", _("An amount is more than zero."))
    if timezone.is_naive(cash.at):
        raise _invalid("at", _("A moment carries its time zone."))
    rules = rules_at(cash.at)
    day = gaming_day_for(cash.at)
    location = cash.location or (cash.table.code if cash.table is not None else "")
    if not location:
        raise _invalid("location", _("Say where: the table or the cage window."))
    rate = _rate(day, cash.currency, rules.reporting_currency)  # insert-only rates: read before the lock
    with transaction.atomic(savepoint=False):
        outcome = _record_once(cash, day, minor, location, rules.reporting_currency, rate, actor)
    if isinstance(outcome, Conflict):
        raise outcome
    return outcome


def _record_once(
    cash: CashInput, day: dt.date, minor: int, location: str, reporting_currency: str, rate: str, actor: Actor
) -> tuple[CashTransaction, bool] | Conflict:
    existing = CashTransaction.objects.filter(reference=cash.reference).order_by().first()
    if existing is not None:
        return existing, False
    try:
        days_ensure_open([day])
    except Conflict as closed:
        return closed
    created = CashTransaction.objects.create(
        reference=cash.reference,
        kind=cash.kind,
        direction=DIRECTIONS[cash.kind],
        at=cash.at,
        gaming_day=day,
        table=cash.table,
        location=location,
        patron=cash.patron,
        description=cash.description.strip(),
        session=cash.session,
        buy_in=cash.buy_in,
        currency=cash.currency,
        amount_minor=minor,
        reporting_currency=reporting_currency,
        rate=rate,
        **actor.recorded_fields(),
    )
    return created, True


@day_write(writes=("cash.CashTransaction",), day_of="the gaming day of the reversed transaction")
def transaction_reverse(*, reversed_: CashTransaction, reason: str, reference: str, actor: Actor = SYSTEM):
    """A reversing record of a mistaken transaction: the same kind, amount and rate, opposite effect."""
    if not reason.strip():
        raise _invalid("reason", _("Say why the transaction is reversed."))
    with transaction.atomic():
        locked = CashTransaction.objects.select_for_update().get(pk=reversed_.pk)
        if locked.reverses_id is not None:
            raise _invalid("reverses", _("A reversal is not reversed; record the transaction again."))
        if CashTransaction.objects.filter(reverses=locked).exists():
            raise _invalid("reverses", _("This transaction is reversed already."))
        days_ensure_open([locked.gaming_day])
        return CashTransaction.objects.create(
            reference=reference,
            kind=locked.kind,
            direction=locked.direction,
            at=timezone.now(),
            gaming_day=locked.gaming_day,
            table=locked.table,
            location=locked.location,
            patron=locked.patron,
            description=locked.description,
            session=locked.session,
            currency=locked.currency,
            amount_minor=locked.amount_minor,
            reporting_currency=locked.reporting_currency,
            rate=locked.rate,
            reverses=locked,
            reason=reason.strip(),
            **actor.recorded_fields(),
        )


def threshold_near_check(*, cash: CashTransaction) -> None:
    """A seated patron's cash in today at the alert share of the CTR threshold or more (and not
    over it) is the alarm `cash_threshold_near` at the table, before the buy-in that crosses it."""
    if cash.patron_id is None or cash.table_id is None or cash.direction != "in":
        return
    rules = rules_at(cash.at)
    total = cash_in_today(patron_id=cash.patron_id, day=cash.gaming_day)
    limit = rules.ctr_threshold
    if not (limit * rules.alert_share <= total <= limit):
        return
    violation_record(
        finding=game.violation(
            "cash_threshold_near",
            _("Patron %(card)s has %(total)s %(currency)s cash in today, at %(share)s%% of the %(limit)s threshold.")
            % {
                "card": cash.patron.card_number if cash.patron else cash.description,
                "total": f"{total:,.2f}",
                "currency": rules.reporting_currency,
                "share": f"{(total / limit * 100):.0f}",
                "limit": f"{limit:,.2f}",
            },
        ),
        fingerprint=f"cash_threshold_near:{cash.patron_id}:{cash.gaming_day}",
        table=cash.table,
        gaming_day=cash.gaming_day,
        found_by="cash.threshold_near",
        seat=cash.session.seat if cash.session else None,
    )


DEADLINES_CHECK = "cash.deadlines"


def _finding_table(finding: CashFinding) -> "Table | None":
    """The table a finding's alarm shows at: its own, else the first of its transactions' tables,
    else that of the patron's session of the day; None for cash at the cage alone."""
    if finding.table is not None:
        return finding.table
    ids = (finding.evidence or {}).get("transactions", [])
    cash = CashTransaction.objects.filter(pk__in=ids, table__isnull=False).select_related("table").order_by("at")
    first = cash.first()
    if first is not None:
        return first.table
    if finding.patron_id is None:
        return None
    session = patron_sessions(finding.patron_id, finding.gaming_day, finding.gaming_day).order_by("started_at").first()
    return session.table if session is not None else None


def cash_deadlines_check(*, today: dt.date) -> int:
    """Alarm each open finding whose filing deadline is within `PIT_CASH_DEADLINE_WARNING_DAYS` of
    `today` or passed (`cash_filing_due`, on the dashboard's banner and the alarms API, at the
    finding's table); a finding filed, dismissed or cleared clears its alarm. Cash at the cage alone
    has no table to show at: its deadline shows on the findings' list only. Returns the alarms holding."""
    holding: set[str] = set()
    for finding in findings_due(today=today, within_days=settings.PIT_CASH_DEADLINE_WARNING_DAYS):
        table = _finding_table(finding)
        if table is None:
            continue
        fingerprint = f"cash_filing_due:{finding.pk}"
        who = finding.patron.card_number if finding.patron else finding.description
        violation_record(
            finding=game.violation(
                "cash_filing_due",
                _("%(kind)s of %(day)s (%(who)s) not filed; the deadline is %(deadline)s.")
                % {
                    "kind": finding.get_kind_display(),
                    "day": finding.gaming_day,
                    "who": who,
                    "deadline": finding.deadline,
                },
            ),
            fingerprint=fingerprint,
            table=table,
            gaming_day=finding.gaming_day,
            found_by=DEADLINES_CHECK,
        )
        holding.add(fingerprint)
    violations_clear_missing(
        scope=RuleViolation.objects.filter(code="cash_filing_due"), found_by=DEADLINES_CHECK, fingerprints_found=holding
    )
    return len(holding)


def cash_check_day(*, day: dt.date) -> dict[str, int]:
    """Find the day's worksheets and patterns (pit.cash.patterns), record the new ones, update the
    totals and evidence of those found before, clear those that no longer hold. Returns counts."""
    rules = rules_at(gaming_day_bounds(day)[1] - dt.timedelta(microseconds=1))
    found = persistence.findings_of_day(day=day, rules=rules)
    counts = {"found": 0, "updated": 0, "cleared": 0}
    with transaction.atomic():
        # The day's findings as plain values, in one read (locked: one check of a day at a time);
        # only those that changed are read as records and saved (their audit events follow).
        known = {
            fingerprint: (pk, (cash_in, cash_out, evidence), cleared_at)
            for pk, fingerprint, cash_in, cash_out, evidence, cleared_at in values_rows(
                CashFinding.objects.select_for_update()
                .filter(gaming_day=day)
                .order_by()
                .values_list("pk", "fingerprint", "cash_in", "cash_out", "evidence", "cleared_at")
            )
        }
        changed: dict[int, dict[str, object]] = {}
        for item in found:
            now = (exact_text(item.cash_in), exact_text(item.cash_out), item.evidence)
            row = known.get(item.fingerprint)
            if row is None:
                CashFinding.objects.create(
                    kind=item.kind,
                    fingerprint=item.fingerprint,
                    gaming_day=day,
                    patron_id=item.patron_id,
                    description=item.description,
                    table_id=item.table_id,
                    reporting_currency=rules.reporting_currency,
                    cash_in=now[0],
                    cash_out=now[1],
                    evidence=item.evidence,
                    deadline=patterns.deadline(day, item.kind, rules),
                )
                counts["found"] += 1
                continue
            pk, was, cleared_at = row
            changes: dict[str, object] = {}
            if was != now:
                changes.update(cash_in=now[0], cash_out=now[1], evidence=now[2])
            if cleared_at is not None:
                changes["cleared_at"] = None
            if changes:
                changed[pk] = changes
        for finding in CashFinding.objects.filter(pk__in=list(changed)) if changed else ():
            for name, value in changed[finding.pk].items():
                setattr(finding, name, value)
            finding.save(update_fields=list(changed[finding.pk]))
        counts["updated"] = len(changed)
        holding = {item.fingerprint for item in found}
        gone = [
            pk
            for fingerprint, (pk, _, cleared_at) in known.items()
            if fingerprint not in holding and cleared_at is None
        ]
        if gone:
            counts["cleared"] = CashFinding.objects.filter(pk__in=gone, cleared_at__isnull=True).update(
                cleared_at=timezone.now()
            )
    return counts


_REVIEWS: dict[str, set[str]] = {
    FindingStatus.ACKNOWLEDGED: {FindingStatus.OPEN},
    FindingStatus.FILED: {FindingStatus.OPEN, FindingStatus.ACKNOWLEDGED},
    FindingStatus.DISMISSED: {FindingStatus.OPEN, FindingStatus.ACKNOWLEDGED},
}


def finding_review(
    *,
    finding: CashFinding,
    status: str,
    note: str,
    actor: Actor,
    filing_reference: str = "",
    filed_on: dt.date | None = None,
) -> CashFinding:
    """Compliance works a finding: acknowledge, file (with the filing's reference and date) or
    dismiss, each with a note. Filing is the casino's act: pit records that it was done."""
    if status not in _REVIEWS:
        raise _invalid("status", _("A finding is acknowledged, filed or dismissed."))
    if not note.strip():
        raise _invalid("note", _("Say what was done and why."))
    if status == FindingStatus.FILED and (not filing_reference.strip() or filed_on is None):
        raise _invalid("filing_reference", _("A filed finding carries the filing's reference and date."))
    with transaction.atomic():
        locked = CashFinding.objects.select_for_update().get(pk=finding.pk)
        if locked.status == status:
            return locked
        if locked.status not in _REVIEWS[status]:
            raise _invalid(
                "status", _("A %(was)s finding is not marked %(status)s.") % {"was": locked.status, "status": status}
            )
        locked.status = status
        locked.status_note = note.strip()
        locked.status_changed_by = actor.user
        locked.status_changed_at = timezone.now()
        fields = ["status", "status_note", "status_changed_by", "status_changed_at"]
        if status == FindingStatus.FILED:
            locked.filing_reference = filing_reference.strip()
            locked.filed_on = filed_on
            fields += ["filing_reference", "filed_on"]
        locked.save(update_fields=fields)
        if status != FindingStatus.ACKNOWLEDGED:  # filed or dismissed: its deadline's alarm is over
            RuleViolation.objects.filter(fingerprint=f"cash_filing_due:{locked.pk}", cleared_at__isnull=True).update(
                cleared_at=timezone.now()
            )
        return locked
