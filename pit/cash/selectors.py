"""Reads of the patrons' cash: the rules standing at a moment, the per-patron gaming-day aggregation
(cash in and cash out totalled apart, never netted: 31 CFR 1021.313), the multiple transaction log,
and the findings compliance works."""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import Q, QuerySet

from pit.cash.models import CashFinding, CashRules, CashTransaction, ExchangeRate, FindingStatus
from pit.cash.presets import preset_values
from pit.core.gaming_day import gaming_day_bounds
from pit.core.money import exponent
from pit.core.rows import version_at
from pit.players.models import SeatSession


def exact_text(value: Decimal) -> str:
    """An exact amount as canonical decimal text: no exponent, no trailing zeros ("12000", "0.5")."""
    return format(value.normalize(), "f") if value else "0"


def rules_at(moment: dt.datetime) -> CashRules:
    """The cash rules standing at `moment`: the latest version in effect by then; before any is
    recorded, the preset of the `PIT_CASH_JURISDICTION` setting (unsaved), so cash is never unjudged."""
    recorded = version_at(CashRules, moment)  # read by every cash transaction posted
    if recorded is not None:
        return recorded
    return CashRules(
        effective_from=dt.datetime.min.replace(tzinfo=dt.UTC), **preset_values(settings.PIT_CASH_JURISDICTION)
    )


def rate_for(day: dt.date, currency: str, reporting_currency: str) -> str | None:
    """The rate a transaction of `day` uses: 1 in the reporting currency, else that day's recorded
    rate, else the latest recorded before it; None where none is recorded."""
    if currency == reporting_currency:
        return "1"
    return (
        ExchangeRate.objects.filter(day__lte=day, currency=currency, reporting_currency=reporting_currency)
        .order_by("-day")
        .values_list("rate", flat=True)
        .first()
    )


def patron_sessions(patron_id: int, first: dt.date, last: dt.date) -> QuerySet[SeatSession]:
    """The patron's seat sessions of gaming days `first` to `last`, identified ones included."""
    return SeatSession.objects.filter(
        Q(patron_id=patron_id) | Q(identification__patron_id=patron_id), gaming_day__gte=first, gaming_day__lte=last
    ).select_related("table")


def _signed(row) -> Decimal:
    """A transaction's amount in the reporting currency, negative for a reversal (it takes back the
    reversed amount from the same total: a reversal is never netted against the other direction)."""
    amount = Decimal(row["amount_minor"]).scaleb(-exponent(row["currency"])) * Decimal(row["rate"])
    return -amount if row["reverses_id"] is not None else amount


_COLUMNS = (
    "id",
    "kind",
    "direction",
    "at",
    "gaming_day",
    "table_id",
    "location",
    "patron_id",
    "description",
    "session_id",
    "currency",
    "amount_minor",
    "rate",
    "reverses_id",
)


def day_rows(day: dt.date) -> list[dict]:
    """Every cash transaction of the gaming day, as plain rows (the aggregation's one read)."""
    return list(CashTransaction.objects.filter(gaming_day=day).order_by("at", "id").values(*_COLUMNS))


@dataclass
class PatronDay:
    """One person's cash of one gaming day, in the reporting currency, exactly."""

    patron_id: int | None
    description: str
    cash_in: Decimal = Decimal(0)
    cash_out: Decimal = Decimal(0)
    transactions: list[int] = field(default_factory=list)


def aggregate(rows: list[dict]) -> dict[tuple[int | None, str], PatronDay]:
    """Per person (a patron by id; one not identified by description), cash in and cash out apart."""
    days: dict[tuple[int | None, str], PatronDay] = {}
    for row in rows:
        key = (row["patron_id"], "" if row["patron_id"] is not None else row["description"])
        day = days.get(key)
        if day is None:
            day = days[key] = PatronDay(row["patron_id"], key[1])
        amount = _signed(row)
        if row["direction"] == "in":
            day.cash_in += amount
        else:
            day.cash_out += amount
        day.transactions.append(row["id"])
    return days


def cash_day(day: dt.date) -> dict[tuple[int | None, str], PatronDay]:
    return aggregate(day_rows(day))


def cash_in_today(*, patron_id: int, day: dt.date) -> Decimal:
    rows = CashTransaction.objects.filter(gaming_day=day, patron_id=patron_id, direction="in").values(*_COLUMNS)
    return sum((_signed(row) for row in rows), Decimal(0))


def mtl(day: dt.date, rules: CashRules) -> QuerySet[CashTransaction]:
    """The multiple transaction log of a gaming day: each transaction over the MTL threshold in the
    reporting currency (reversals included, marked), oldest first."""
    ids = [row["id"] for row in day_rows(day) if abs(_signed(row)) > rules.mtl_threshold]
    return (
        CashTransaction.objects.filter(pk__in=ids)
        .select_related("patron", "table", "recorded_by_user", "recorded_by_device")
        .order_by("at", "id")
    )


def mtl_count(first: dt.date, last: dt.date) -> int:
    """How many transactions the multiple transaction logs of gaming days `first` to `last` hold
    (an export's estimate: the same rule as `mtl`, without reading the rows' relations)."""
    count, day = 0, first
    while day <= last:
        limit = rules_at(gaming_day_bounds(day)[1]).mtl_threshold
        count += sum(1 for row in day_rows(day) if abs(_signed(row)) > limit)
        day += dt.timedelta(days=1)
    return count


def findings_open() -> QuerySet[CashFinding]:
    return CashFinding.objects.filter(
        status__in=(FindingStatus.OPEN, FindingStatus.ACKNOWLEDGED), cleared_at__isnull=True
    ).select_related("patron", "table")


def findings_due(*, today: dt.date, within_days: int) -> QuerySet[CashFinding]:
    """Open findings whose filing deadline is within `within_days` of `today` (or passed)."""
    return findings_open().filter(deadline__isnull=False, deadline__lte=today + dt.timedelta(days=within_days))
