"""Reads behind the reports: rows streamed from the ledger, the coups and wagers, and the violations.

Each selector yields plain dict rows in the order its report groups them, reading in batches with
`.iterator(chunk_size=...)`, so memory stays the same for a day or for a year.

The gaming day of a shoe is the gaming day of its last coup (the day its commission was won and
the day `pit.ledger.services.shoe_reconcile` files a box variance under). A shoe with no coup takes
the gaming day of its closing moment (`pit.core.gaming_day.gaming_day_for`), or of its shuffle
while it is still dealing. A shoe dealt across the start of a gaming day thus reports entirely
under the later day.
"""

from __future__ import annotations

import datetime as dt
import heapq
import itertools
from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import (
    BigIntegerField,
    BooleanField,
    Count,
    ExpressionWrapper,
    F,
    Func,
    Max,
    Min,
    Q,
    Sum,
    Value,
)
from django.db.models.functions import Cast, Coalesce
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_stubs_ext import StrOrPromise

from pit.compliance.models import RuleViolation, ViolationStatus
from pit.core.db import bytewise
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.core.money import exponent, from_minor
from pit.ledger.models import (
    BoxCount,
    CollectionReason,
    CommissionEntry,
    EntryKind,
    Reconciliation,
    ReconciliationStatus,
    ReconciliationSupplement,
)
from pit.rollups.results import TableDays, coup_scope, open_violation_counts, table_result_row, table_result_rows
from pit.rollups.selectors import day_segments, rolled_up_days, table_result_items
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import GAME_NAMES

from .definitions import ReportFilters, batched, variance_words

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.models.sql.compiler import SQLCompiler, _AsSqlType

CHUNK = 2000  # rows per database round trip when streaming

NO_ENTRIES = {"accrued": 0, "reversed": 0, "departed": 0, "shuffle": 0, "wagers": 0}
UNRECONCILED_STATUS = {ShoeStatus.DEALING: _("Dealing"), ShoeStatus.CLOSED: _("Awaiting reconciliation")}


# ------------------------------------------------------------------------------------ shoes


class DayOrdinal(Func):
    """A date as its proleptic Gregorian ordinal (Python's `date.toordinal()`), on either database."""

    template = "(%(expressions)s - DATE '0001-01-01' + 1)"  # PostgreSQL: date - date is whole days
    output_field = BigIntegerField()

    def as_sqlite(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any) -> _AsSqlType:
        return self.as_sql(compiler, connection, template="CAST(julianday(%(expressions)s) - 1721424.5 AS INTEGER)")


# A coup as one integer, number * DAYS + its gaming day's ordinal: a shoe's greatest is its last coup
# (numbers are unique in a shoe) and carries that coup's gaming day, in one integer aggregate.
DAYS = 10**7  # above date(9999, 12, 31).toordinal()


def _coup_key():
    return Cast("coups__number", BigIntegerField()) * Value(DAYS) + DayOrdinal("coups__gaming_day")


def shoes_in_range(filters: ReportFilters):
    """Shoes whose gaming day (see the module docstring) falls in the range, by table and sequence.

    Set-based at every size, with no per-shoe subquery: the candidates are the shoes with a coup in
    the range (the coups' (gaming day, shoe) index) and, for shoes without a coup, those whose
    closing (or shuffle) moment falls in it, one UNION that PostgreSQL joins by hashing. A candidate
    is kept when its last coup is one of the range's (the greatest key of its coups is the greatest
    of its coups in range, see `_coup_key`), or when it has no coup: one GROUP BY over the
    candidates' coups. (An `IN (coups in range)` inside an OR was run once per shoe past ~250 days:
    a 390k-row Materialize scanned 5,130 times.) Each shoe carries `last_coup`, the key of its
    last coup (None without coups): see `report_day`."""
    days = (filters.date_from, filters.date_to)
    start, _end = gaming_day_bounds(filters.date_from)
    _start, end = gaming_day_bounds(filters.date_to)
    candidates = (
        Coup.objects.filter(gaming_day__range=days)
        .order_by()
        .values("shoe_id")
        .union(
            Shoe.objects.alias(moment=Coalesce("closed_at", "shuffled_at"))
            .filter(moment__gte=start, moment__lt=end)
            .order_by()
            .values("pk"),
            all=True,
        )
    )
    shoes = Shoe.objects.filter(pk__in=candidates)
    if filters.tables:
        shoes = shoes.filter(table__code__in=filters.tables)
    if filters.game:
        shoes = shoes.filter(table__game=filters.game)
    shoes = shoes.annotate(
        last_coup=Max(_coup_key()),
        last_coup_in_range=Max(_coup_key(), filter=Q(coups__gaming_day__range=days)),
    ).filter(Q(last_coup=F("last_coup_in_range")) | Q(last_coup__isnull=True))
    return shoes.order_by(bytewise("table__code"), "sequence")


def report_day(shoe: dict[str, Any]) -> dt.date:
    """The gaming day of a shoe of `shoes_in_range` (values with last_coup, closed_at, shuffled_at)."""
    if shoe["last_coup"] is not None:
        return dt.date.fromordinal(shoe["last_coup"] % DAYS)
    return gaming_day_for(shoe["closed_at"] or shoe["shuffled_at"])


def _shoe_batches(filters: ReportFilters, dealing_last: bool = False) -> Iterator[list[dict[str, Any]]]:
    """The shoes in range, in batches; `dealing_last`: the shoes still dealing after the others
    (each part by table and sequence), in the same query."""
    shoes = shoes_in_range(filters)
    if dealing_last:
        dealing = ExpressionWrapper(Q(status=ShoeStatus.DEALING), output_field=BooleanField())
        shoes = shoes.order_by(dealing, *shoes.query.order_by)
    shoes = shoes.values(
        "pk",
        "sequence",
        "status",
        "closed_at",
        "shuffled_at",
        "last_coup",
        table_code=F("table__code"),
        table_game=F("table__game"),
        currency=F("table__currency"),
    )
    # A batch's ledger lines are read in one query, which scans the ledger once for what their
    # reversals reverse: as many shoes as a round trip's ids.
    for batch in batched(shoes.iterator(chunk_size=CHUNK), CHUNK):
        for shoe in batch:
            shoe["report_day"] = report_day(shoe)
        yield batch


# ------------------------------------------------------------------------------------ commission


def _reversal_of(**lookups) -> Q:
    return Q(kind=EntryKind.REVERSAL, **{f"reverses__{name}": value for name, value in lookups.items()})


# The ledger split the way the reconciliation splits it: accruals (and their reversals), what was
# collected from seats whose player left (and reversals of that), and the collection at the shuffle.
ACCRUED = Q(kind=EntryKind.ACCRUED) | _reversal_of(kind=EntryKind.ACCRUED)
COLLECTED_AT_DEPARTURE = Q(kind=EntryKind.COLLECTED, collection_reason=CollectionReason.PLAYER_LEFT) | _reversal_of(
    kind=EntryKind.COLLECTED, collection_reason=CollectionReason.PLAYER_LEFT
)
# Supplementary reconciliations collect after the shuffle what the seats came to owe since (or pay
# back what they no longer owe): with the shuffle's own collection, what the box count answers for.
AT_SHUFFLE_REASONS = (CollectionReason.SHUFFLE, CollectionReason.SUPPLEMENT)
COLLECTED_AT_SHUFFLE = Q(kind=EntryKind.COLLECTED, collection_reason__in=AT_SHUFFLE_REASONS) | _reversal_of(
    kind=EntryKind.COLLECTED, collection_reason__in=AT_SHUFFLE_REASONS
)


def commission_supplements_by_shoe(shoe_ids) -> dict[int, StrOrPromise]:
    """Per reconciled shoe that has supplementary reconciliations: how many and how the last stands,
    in words for the commission report's status column (e.g. "2 supplements, the last: Variance")."""
    latest: dict[int, tuple[int, str]] = {}
    for shoe_id, sequence, status in (
        ReconciliationSupplement.objects.filter(reconciliation__shoe_id__in=shoe_ids)
        .order_by("reconciliation__shoe_id", "sequence")
        .values_list("reconciliation__shoe_id", "sequence", "status")
    ):
        latest[shoe_id] = (sequence, status)
    return {shoe_id: _supplements_text(count, status) for shoe_id, (count, status) in latest.items()}


def _supplements_words(count: int, status: str) -> str:
    words = ngettext("%(count)s supplement, the last: %(status)s", "%(count)s supplements, the last: %(status)s", count)
    return words % {"count": count, "status": ReconciliationStatus(status).label}


# Lazy: worded in the language in force where it is shown (English in CSV and JSON).
_supplements_text = lazy(_supplements_words, str)


# The commission report's two sections: closed shoes, whose box was counted (counted - expected =
# variance on every line and total: a short box is negative), then shoes still dealing, with what they owe so far and
# nothing counted, totalled apart so they never sit in the reconciled figures.
# Text values of rows, marked: CSV and JSON carry them in English (definitions.machine_text), the
# screen, XLSX and the PDF in the reader's language.
SECTION_CLOSED = _("Closed shoes")
SECTION_DEALING = _("Still dealing")


def commission_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per shoe and seat: accrued, collected when the player left, expected in the box,
    counted, variance, collected at the shuffle, and the reconciliation's status and explanation.
    Closed shoes first, then those still dealing (see SECTION_CLOSED)."""
    for shoes in _shoe_batches(filters, dealing_last=True):
        ids = [shoe["pk"] for shoe in shoes]
        ledger: dict[int, dict[int, dict[str, int]]] = defaultdict(dict)  # shoe -> seat -> figures
        lines = (
            CommissionEntry.objects.filter(shoe_id__in=ids)
            .values("shoe_id", "seat")
            .order_by()
            .annotate(
                accrued=Coalesce(Sum("amount_minor", filter=ACCRUED), 0),
                reversed=Coalesce(Sum("amount_minor", filter=_reversal_of(kind=EntryKind.ACCRUED)), 0),
                departed=Coalesce(Sum("amount_minor", filter=COLLECTED_AT_DEPARTURE), 0),
                shuffle=Coalesce(Sum("amount_minor", filter=COLLECTED_AT_SHUFFLE), 0),
                # The wagers whose commission the accrued money counts: accruals less those reversed
                # (a corrected wager's, a voided coup's, a comp), as accrued nets the reversals.
                wagers=Count("pk", filter=Q(kind=EntryKind.ACCRUED))
                - Count("pk", filter=_reversal_of(kind=EntryKind.ACCRUED)),
            )
        )
        for line in lines:
            ledger[line["shoe_id"]][line["seat"]] = line
        counted: dict[int, dict[int, int]] = defaultdict(dict)  # shoe -> seat -> counted
        for shoe_id, seat, minor in (
            BoxCount.objects.filter(shoe_id__in=ids).order_by().values_list("shoe_id", "seat", "counted_minor")
        ):
            counted[shoe_id][seat] = minor
        reconciliations = {
            item["shoe_id"]: item
            for item in Reconciliation.objects.filter(shoe_id__in=ids).values(
                "pk",
                "shoe_id",
                "status",
                "explanation",
                "explained_at",
                explained_by_name=F("explained_by__username"),
            )
        }
        supplements = commission_supplements_by_shoe(ids)
        for shoe in shoes:
            currency = shoe["currency"]
            reconciliation = reconciliations.get(shoe["pk"])
            if reconciliation is not None:
                # Lazily, so that CSV and JSON carry it in English and people read it in their language.
                status: StrOrPromise = ReconciliationStatus(reconciliation["status"]).label
                if shoe["pk"] in supplements:
                    status = format_lazy("{}; {}", status, supplements[shoe["pk"]])
            else:
                status = UNRECONCILED_STATUS.get(shoe["status"], shoe["status"])
            closed = shoe["status"] == ShoeStatus.CLOSED
            section = SECTION_DEALING if shoe["status"] == ShoeStatus.DEALING else SECTION_CLOSED
            shoe_ledger, shoe_counted = ledger.get(shoe["pk"], {}), counted.get(shoe["pk"], {})
            for seat in sorted(shoe_ledger.keys() | shoe_counted.keys()):
                line = shoe_ledger.get(seat, NO_ENTRIES)
                expected = line["accrued"] + line["departed"]  # collections are negative entries
                counted_minor = shoe_counted.get(seat, 0) if closed else None
                variance = None if counted_minor is None else counted_minor - expected
                if filters.only_variances and not variance:
                    continue
                yield {
                    "section": section,
                    "gaming_day": shoe["report_day"],
                    "table": shoe["table_code"],
                    "game": GAME_NAMES.get(shoe["table_game"], shoe["table_game"]),
                    "shoe": shoe["sequence"],
                    "seat": seat,
                    "currency": currency,
                    "commission_wagers": line["wagers"],
                    "accrued": from_minor(line["accrued"], currency),
                    "reversed": from_minor(-line["reversed"], currency),
                    "collected_at_departure": from_minor(-line["departed"], currency),
                    "expected": from_minor(expected, currency),
                    "counted": from_minor(counted_minor, currency),
                    "variance": from_minor(variance, currency),
                    "collected_at_shuffle": from_minor(-line["shuffle"], currency),
                    # A seat's own box against its ledger as it stands, beside the shoe's status: a seat
                    # whose accrual was reversed after the count reads "over" even in a "Balanced" shoe.
                    "over_short": variance_words(variance),
                    "status": status,
                    "explained_by": (reconciliation or {}).get("explained_by_name") or "",
                    "explanation": (reconciliation or {}).get("explanation") or "",
                    "reconciliation_id": (reconciliation or {}).get("pk"),  # for the link on screen, not a column
                }


def commission_estimate(filters: ReportFilters) -> int:
    """The report's detail rows, exactly: one per shoe and seat with a ledger entry or a box count
    (what the progress of a background export counts; box counts alone missed the seats of shoes
    still dealing and of players who left)."""
    rows = 0
    shoes = shoes_in_range(filters).values_list("pk", flat=True)  # read once, not in two subqueries
    for ids in batched(shoes.iterator(chunk_size=CHUNK), CHUNK):
        seats = CommissionEntry.objects.filter(shoe_id__in=ids).order_by().values_list("shoe_id", "seat")
        counted = BoxCount.objects.filter(shoe_id__in=ids).order_by().values_list("shoe_id", "seat")
        rows += seats.union(counted).count()
    return rows


# ------------------------------------------------------------------------------------ the bridge
# (pit.reports.catalog: the bridge lines of the commission report and table results)


def _table_scope(queryset, prefix: str, filters: ReportFilters):
    if filters.tables:
        queryset = queryset.filter(**{f"{prefix}table__code__in": filters.tables})
    if filters.game:
        queryset = queryset.filter(**{f"{prefix}table__game": filters.game})
    return queryset


def _accrued_by_currency(entries) -> dict[str, int]:
    """The accruals net of their reversals among `entries`, per currency, in minor units."""
    sums = entries.filter(ACCRUED).values("currency").order_by().annotate(total=Sum("amount_minor"))
    return {item["currency"]: item["total"] for item in sums}


def _ledger_entries(filters: ReportFilters):
    """Commission entries with the gaming day of their coup (`coup_day`; a reversal, its accrual's)."""
    coup_day = Coalesce("wager__coup__gaming_day", "reverses__wager__coup__gaming_day")
    return _table_scope(CommissionEntry.objects.alias(coup_day=coup_day), "shoe__", filters)


def commission_crossing(filters: ReportFilters) -> dict[str, tuple[int, int]]:
    """Why the commission report and table results can both be right and still differ: the
    commission report files a shoe's commission under the shoe's gaming day (its last coup's), table
    results under each coup's, so a shoe dealt across the start of a gaming day moves commission
    across a range's edge. Per currency (minor units, accruals net of their reversals): (on coups
    in range of shoes filed on a day outside it, on coups outside the range of shoes filed in it).
    Only the shoes across an edge are read: a few, whatever the range."""
    days = (filters.date_from, filters.date_to)
    entries = _ledger_entries(filters)
    # Shoes with a coup in range whose last coup is not: the commission report files them elsewhere.
    elsewhere = (
        Shoe.objects.filter(pk__in=Coup.objects.filter(gaming_day__range=days).values("shoe_id"))
        .alias(last_coup=Max(_coup_key()), last_coup_in_range=Max(_coup_key(), filter=Q(coups__gaming_day__range=days)))
        .exclude(last_coup=F("last_coup_in_range"))
    )
    # Shoes in range with a coup dealt on a day before or after it.
    straddling = (
        shoes_in_range(filters)
        .alias(first_day=Min("coups__gaming_day"), last_day=Max("coups__gaming_day"))
        .filter(Q(first_day__lt=filters.date_from) | Q(last_day__gt=filters.date_to))
    )
    # The few shoes are read first: given them as a list, the planner reads their entries (and the
    # coups those name) by index; as subqueries it hashed every wager and coup of the year (2.4 s of a
    # year's report, for no shoe at all).
    elsewhere, straddling = list(elsewhere.values_list("pk", flat=True)), list(straddling.values_list("pk", flat=True))
    moved_out = _accrued_by_currency(entries.filter(shoe__in=elsewhere, coup_day__range=days)) if elsewhere else {}
    moved_in = (
        _accrued_by_currency(entries.filter(shoe__in=straddling).exclude(coup_day__range=days)) if straddling else {}
    )
    return {currency: (moved_out.get(currency, 0), moved_in.get(currency, 0)) for currency in moved_out | moved_in}


def commission_by_shoe_day(filters: ReportFilters) -> dict[str, int]:
    """Accrued (net of reversals) on the shoes in range, per currency: the commission report's."""
    return _accrued_by_currency(_ledger_entries(filters).filter(shoe__in=shoes_in_range(filters).values("pk")))


def commission_by_coup_day(filters: ReportFilters) -> dict[str, int]:
    """Accrued (net of reversals) on the coups in range, per currency: the ledger's part of table
    results' commission (the rest was deducted from payouts)."""
    days = (filters.date_from, filters.date_to)
    shoes = Coup.objects.filter(gaming_day__range=days).values("shoe_id")  # by the coups' index
    return _accrued_by_currency(_ledger_entries(filters).filter(shoe__in=shoes, coup_day__range=days))


def _shoes_stream(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    for shoes in _shoe_batches(filters):
        yield from shoes


def commission_detail_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per commission ledger entry of the shoes in range: every accrual (with its coup and
    wager), every collection and every reversal, in the order they were written per seat.

    One streamed query for the entries, walked beside the stream of shoes in the same order (the
    shoe's gaming day and table come from there): no per-row subquery, no batch re-planning."""
    shoes = _shoes_stream(filters)
    entries = (
        CommissionEntry.objects.filter(shoe__in=shoes_in_range(filters).values("pk"))
        .order_by(bytewise("shoe__table__code"), "shoe__sequence", "seat", "pk")
        .values_list(
            "pk",
            "shoe_id",
            "seat",
            "kind",
            "collection_reason",
            "amount_minor",
            "recorded_at",
            "reverses_id",
            "wager__coup__number",
            "wager__bet",
            "wager__amount_minor",
            "note",
        )
    )
    shoe: dict[str, Any] = {"pk": None}
    places = 0
    for (
        pk,
        shoe_id,
        seat,
        kind,
        reason,
        amount,
        recorded_at,
        reverses_id,
        coup_number,
        bet,
        stake,
        note,
    ) in entries.iterator(chunk_size=CHUNK):
        while shoe["pk"] != shoe_id:
            shoe = next(shoes)  # both streams are in (table, sequence) order
            places = exponent(shoe["currency"])
        yield {
            "gaming_day": shoe["report_day"],
            "table": shoe["table_code"],
            "shoe": shoe["sequence"],
            "seat": seat,
            "currency": shoe["currency"],
            "entry": pk,
            "kind": kind,
            "reason": reason,
            "reverses": reverses_id,
            "coup": coup_number,
            "bet": bet or "",
            "stake": None if stake is None else _major(stake, places),
            "amount": _major(amount, places),
            "recorded_at": recorded_at,
            "note": note,
        }


def _major(minor: int, places: int) -> Decimal:
    """Minor units to a Decimal with the currency's places (pit.core.money.from_minor, minus the
    quantize an integer never needs: 12550 -> Decimal("125.50"), 0 -> Decimal("0.00"))."""
    return Decimal(minor).scaleb(-places)


def commission_detail_estimate(filters: ReportFilters) -> int:
    return CommissionEntry.objects.filter(shoe__in=shoes_in_range(filters).values("pk")).count()


# ------------------------------------------------------------------------------------ table results


def _violation_scope(filters: ReportFilters):
    violations = RuleViolation.objects.filter(gaming_day__range=(filters.date_from, filters.date_to))
    if filters.tables:
        violations = violations.filter(table__code__in=filters.tables)
    if filters.game:
        violations = violations.filter(table__game=filters.game)
    return violations


def table_results_estimate(filters: ReportFilters) -> int:
    return (
        coup_scope(Coup.objects.all(), "", _table_days(filters))
        .values("gaming_day", "shoe__table_id")
        .distinct()
        .count()
    )


# ------------------------------------------------------------------------------------ violations

STATUS_COLUMNS = tuple(ViolationStatus.values)


def violation_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per gaming day, table and violation code: counts by review status, and how many a
    re-check has cleared since."""
    counts = {status: Count("pk", filter=Q(status=status)) for status in STATUS_COLUMNS}
    rows = (
        _violation_scope(filters)
        .values(
            day=F("gaming_day"),
            table_code=F("table__code"),
            violation=F("code"),
            severity_level=F("severity"),
            game=F("table__game"),
        )
        .order_by("day", bytewise("table__code"), "violation", "severity_level")
        .annotate(**counts, total=Count("pk"), cleared=Count("pk", filter=Q(cleared_at__isnull=False)))
    )
    for item in rows.iterator(chunk_size=CHUNK):
        yield {
            "gaming_day": item["day"],
            "table": item["table_code"],
            "game": GAME_NAMES.get(item["game"], item["game"]),
            "code": item["violation"],
            "severity": item["severity_level"],
            **{status: item[status] for status in STATUS_COLUMNS},
            "cleared": item["cleared"],
            "total": item["total"],
        }


def violations_estimate(filters: ReportFilters) -> int:
    return _violation_scope(filters).values("gaming_day", "table_id", "code").distinct().count()


# ------------------------------------------------------------------------------------ table results over rollups


def _table_days(filters: ReportFilters) -> TableDays:
    return TableDays(filters.date_from, filters.date_to, filters.tables, filters.game)


def table_results(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Table results as `table_result_rows` gives them, reading the daily rollups (pit.rollups) for
    the complete days they cover and are fresh for, and the detail for the other days: the same
    rows, figure for figure, from thousands of rollup rows instead of a year of wagers.
    PIT_ROLLUPS_READ=False reads the detail only."""
    from dataclasses import replace

    from django.conf import settings

    rolled_up = (
        rolled_up_days(date_from=filters.date_from, date_to=filters.date_to) if settings.PIT_ROLLUPS_READ else set()
    )
    edges_cache: dict[tuple[int, int], dict[str, tuple[Decimal, Decimal]]] = {}
    for from_rollups, first, last in day_segments(
        date_from=filters.date_from, date_to=filters.date_to, rolled_up=rolled_up
    ):
        segment = replace(filters, date_from=first, date_to=last)
        if not from_rollups:
            yield from table_result_rows(_table_days(segment))
            continue
        items = table_result_items(date_from=first, date_to=last, tables=filters.tables, game=filters.game)
        merged = heapq.merge(items, open_violation_counts(_table_days(segment)), key=lambda entry: (entry[0], entry[1]))
        for (day, _middle, table), entries in itertools.groupby(merged, key=lambda entry: entry[0]):
            row = table_result_row(day, table, [item for _day, _key, item in entries], edges_cache)
            if row is not None:
                yield row
