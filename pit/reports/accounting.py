"""The master game report, defined once for the report catalog (pit/reports/catalog.py registers it).

Per gaming day and table: opener, closer, fills, credits, drop, statutory win and win-to-drop,
beside pit's handle-based house win, theoretical win and commission (read through the table results
selector of pit.reports, not computed again here), and month- and year-to-date win and drop.
Subtotals per game, a total per gaming day (the pit), and a grand total per currency.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.accounting.models import Adjustment, Figure
from pit.accounting.selectors import PeriodFigures, period_figures, win_to_drop
from pit.core.money import from_minor
from pit.reports import selectors as report_selectors
from pit.reports.definitions import Column, ColumnOptions, Level, ReportDefinition, ReportFilters, Total, ratio
from pit.reports.definitions import ColumnType as T
from pit.reports.progressives import master_game_liability
from pit.shoes.models import Coup
from pit.tables.models import GAME_NAMES, Table

_money: ColumnOptions = {"type": T.MONEY, "total": Total.SUM, "width": 14}
TO_DATE = ("win_mtd", "drop_mtd", "win_ytd", "drop_ytd")


def _tables(filters: ReportFilters):
    tables = Table.objects.all()
    if filters.tables:
        tables = tables.filter(code__in=filters.tables)
    if filters.game:
        tables = tables.filter(game=filters.game)
    return {table.pk: table for table in tables}


def _to_date(key: str) -> Callable[[dict[str, Any]], Any]:
    """Month/year-to-date figures add up across tables of one gaming day, never across days."""

    def compute(sums: dict[str, Any]) -> Any:
        return sums.get(f"{key}_sum") if sums.get("days") == 1 else None

    return compute


def _to_date_ratio(numerator: str, denominator: str) -> Callable[[dict[str, Any]], Any]:
    plain = ratio(f"{numerator}_sum", f"{denominator}_sum")

    def compute(sums: dict[str, Any]) -> Any:
        return plain(sums) if sums.get("days") == 1 else None

    return compute


def _complete_only(key: str) -> Callable[[dict[str, Any]], Any]:
    """A subtotal or total of a wager figure over the complete rows only: the days the statutory
    win totals (an incomplete row, today's among them, has no statutory win)."""

    def compute(sums: dict[str, Any]) -> Any:
        return sums.get(f"{key}_complete")

    return compute


def _rows_words(complete: int, rows: int) -> str:
    return gettext("wins over %(complete)s complete of %(rows)s table-days") % {"complete": complete, "rows": rows}


def _status_words(missing: tuple[str, ...]) -> str:
    if not missing:
        return gettext("complete")
    names = {
        "opener": gettext("opener"),
        "closer": gettext("closer"),
        "drop": gettext("drop"),
        "a shift's count": gettext("a shift's count"),
    }
    return gettext("missing %(what)s") % {"what": ", ".join(names.get(name, name) for name in missing)}


# Text values worded where they are shown: English in CSV and JSON, the reader's language on screen,
# in XLSX and in the PDF (pit.reports.definitions.machine_text).
_rows_text = lazy(_rows_words, str)
_status_text = lazy(_status_words, str)
BEYOND_TOLERANCE = _("beyond tolerance")
WITHIN_TOLERANCE = _("within tolerance")


def _rows_totalled(sums: dict[str, Any]) -> Any:
    """What a subtotal or total line's wins cover, in its Records column."""
    return _rows_text(sums.get("complete_rows") or 0, sums.get("table_days") or 0)


def master_game_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per gaming day and table that has accounting records or coups, ordered by day,
    currency, game and table."""
    tables = _tables(filters)
    year_start = dt.date(filters.date_from.year, 1, 1)
    figures = period_figures(date_from=year_start, date_to=filters.date_to, table_ids=tables)
    wagers = {(row["gaming_day"], row["table"]): row for row in report_selectors.table_results(filters)}
    by_table: dict[int, list[PeriodFigures]] = defaultdict(list)
    for figure in figures.values():
        by_table[figure.table_id].append(figure)
    code_to_id = {table.code: pk for pk, table in tables.items()}
    keys = {(day, table_id) for (day, table_id, _currency) in figures if filters.date_from <= day <= filters.date_to}
    keys |= {(day, code_to_id[code]) for day, code in wagers if code in code_to_id}

    def to_date(table_id: int, day: dt.date, since: dt.date) -> tuple[int, int]:
        win = drop = 0
        for figure in by_table[table_id]:
            if since <= figure.gaming_day <= day and figure.win is not None and figure.drop is not None:
                win += figure.win
                drop += figure.drop
        return win, drop

    def order(key):
        day, table_id = key
        table = tables[table_id]
        return (day, table.currency, table.game, table.code)

    notes: dict[tuple, list[str]] = defaultdict(list)
    for adjustment in (
        Adjustment.objects.filter(gaming_day__range=(filters.date_from, filters.date_to), table_id__in=list(tables))
        .select_related("recorded_by_user", "recorded_by_device__table")
        .order_by("id")
    ):
        amount = from_minor(adjustment.amount_minor, adjustment.currency)
        notes[adjustment.gaming_day, adjustment.table_id].append(
            f"{adjustment.figure} {'+' if amount > 0 else ''}{amount}: {adjustment.reason} ({adjustment.recorded_by})"
        )
    previous_day = None
    tolerance = Decimal(settings.PIT_WIN_RECONCILIATION_TOLERANCE)
    for day, table_id in sorted(keys, key=order):
        table = tables[table_id]
        currency = table.currency
        item = figures.get((day, table_id, 0))

        def money(minor: int, currency: str = currency):
            return from_minor(minor, currency)

        missing = []
        if item is None or not item.complete:
            counted = item.counted if item is not None else {}
            missing = [name for name in ("opener", "closer", "drop") if not counted.get(name)]
            if not missing:
                missing = ["a shift's count"]
        played = wagers.get((day, table.code), {})
        win = item.win if item is not None else None
        mtd_win, mtd_drop = to_date(table_id, day, day.replace(day=1))
        ytd_win, ytd_drop = to_date(table_id, day, day.replace(month=1, day=1))
        statutory = money(win) if win is not None else None
        house_win = played.get("house_win") if played else money(0)
        difference = (statutory - house_win) if statutory is not None else None
        row = {
            "gaming_day": day,
            "currency": currency,
            "game": GAME_NAMES.get(table.game, table.game),
            "table": table.code,
            "status": _status_text(tuple(missing)),
            "opener": money(item.opener) if item and item.opener is not None else None,
            "closer": money(item.closer) if item and item.closer is not None else None,
            "fills": money(item.fills if item else 0),
            "credits": money(item.credits if item else 0),
            "drop": money(item.drop) if item and item.drop is not None else None,
            "win": statutory,
            "hold": win_to_drop(win, item.drop if item else None),
            "drop_for_hold": money(item.drop) if win is not None and item and item.drop is not None else None,
            "house_win": house_win,
            "theoretical_win": played.get("theoretical_win"),
            "commission": played.get("commission"),
            "adjustments": money(item.adjustments if item else 0),
            "adjustment_notes": "; ".join(notes[day, table_id]),
            "win_difference": difference,
            "reconciliation": ""
            if difference is None
            else (BEYOND_TOLERANCE if abs(difference) > tolerance else WITHIN_TOLERANCE),
            "win_mtd": money(mtd_win),
            "drop_mtd": money(mtd_drop),
            "hold_mtd": win_to_drop(mtd_win, mtd_drop),
            "win_ytd": money(ytd_win),
            "drop_ytd": money(ytd_drop),
            "hold_ytd": win_to_drop(ytd_win, ytd_drop),
            "days": 1 if day != previous_day else 0,
        }
        row.update({f"{key}_sum": row[key] for key in TO_DATE})
        row.update(
            complete_rows=0 if statutory is None else 1,
            table_days=1,
            house_win_complete=None if statutory is None else house_win,
        )
        yield row
        previous_day = day


def master_game_estimate(filters: ReportFilters) -> int:
    """The rows `master_game_rows` writes: table-days with accounting records or with coups."""
    tables = _tables(filters)
    keys = {
        (day, table_id)
        for (day, table_id, _currency) in period_figures(
            date_from=filters.date_from, date_to=filters.date_to, table_ids=tables
        )
    }
    keys |= set(
        Coup.objects.filter(
            gaming_day__gte=filters.date_from, gaming_day__lte=filters.date_to, shoe__table_id__in=list(tables)
        )
        .values_list("gaming_day", "shoe__table_id")
        .distinct()
    )
    return len(keys)


MASTER_GAME = ReportDefinition(
    slug="master-game",
    title=_("Master game report"),
    description=_(
        "Per gaming day and table: opener, closer, fills, credits, drop, statutory win (drop + closer + credits "
        "- opener - fills) and win-to-drop, beside the wager-based house win, theoretical win and commission; "
        "month- and year-to-date; subtotals per game and per gaming day (the pit)."
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("game", _("Game"), T.TEXT, Total.CARRY, width=14),
        Column("table", _("Table"), T.TEXT, width=10),
        Column("status", _("Records"), T.TEXT, _rows_totalled, width=16),
        Column("opener", _("Opener"), **_money),
        Column("closer", _("Closer"), **_money),
        Column("fills", _("Fills"), **_money),
        Column("credits", _("Credits"), **_money),
        Column("drop", _("Drop"), **_money),
        Column("win", _("Statutory win"), **_money),
        Column("hold", _("Win-to-drop %"), T.PERCENTAGE, ratio("win", "drop_for_hold"), width=9, places=2),
        Column("drop_for_hold", _("Drop of complete rows"), T.MONEY, Total.SUM, hidden=True),
        Column("adjustments", _("Adjustments (in the win)"), **_money),
        Column("adjustment_notes", _("Adjustments made after the close"), T.TEXT, width=40),
        # Totalled over the complete rows, the days the statutory win beside it totals.
        Column(
            "house_win", _("House win (wagers; totals: complete rows)"), T.MONEY, _complete_only("house_win"), width=14
        ),
        Column("theoretical_win", _("Theoretical win"), **_money),
        Column("commission", _("Commission owed"), **_money),
        Column("win_difference", _("Statutory - wager win"), **_money),
        Column("reconciliation", _("Win reconciliation"), T.TEXT, width=16),
        # Filled by the lines after the totals: each progressive meter's liability as the report runs.
        Column("progressive_liability", _("Progressive liability (meters now)"), T.MONEY, width=14),
        Column("win_mtd", _("Win MTD"), T.MONEY, _to_date("win_mtd"), width=14),
        Column("drop_mtd", _("Drop MTD"), T.MONEY, _to_date("drop_mtd"), width=14),
        Column("hold_mtd", _("Win-to-drop MTD %"), T.PERCENTAGE, _to_date_ratio("win_mtd", "drop_mtd"), width=9),
        Column("win_ytd", _("Win YTD"), T.MONEY, _to_date("win_ytd"), width=14),
        Column("drop_ytd", _("Drop YTD"), T.MONEY, _to_date("drop_ytd"), width=14),
        Column("hold_ytd", _("Win-to-drop YTD %"), T.PERCENTAGE, _to_date_ratio("win_ytd", "drop_ytd"), width=9),
        # Hidden sums: to-date columns total only within one gaming day (the `days` count tells).
        Column("days", _("Gaming days"), T.INTEGER, Total.SUM, hidden=True),
        Column("complete_rows", _("Complete table-days"), T.INTEGER, Total.SUM, hidden=True),
        Column("table_days", _("Table-days"), T.INTEGER, Total.SUM, hidden=True),
        Column("house_win_complete", _("House win of complete rows"), T.MONEY, Total.SUM, hidden=True),
        *(Column(f"{key}_sum", f"{key} (summed)", T.MONEY, Total.SUM, hidden=True) for key in TO_DATE),
    ),
    rows=master_game_rows,
    estimate=master_game_estimate,
    bridge=master_game_liability,
    levels=(Level("day", ("gaming_day", "currency"), _("Gaming day")), Level("game", ("game",), _("Game"))),
    audience="accounting",
    pdf_columns=(
        "gaming_day",
        "currency",
        "game",
        "table",
        "status",
        "opener",
        "closer",
        "fills",
        "credits",
        "drop",
        "win",
        "hold",
        "adjustments",
        "house_win",
        "win_difference",
        "reconciliation",
    ),
)


def adjustment_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Adjustments of closed days of at least PIT_ADJUSTMENT_REPORT_THRESHOLD (either way), by month."""
    tables = _tables(filters)
    threshold = Decimal(settings.PIT_ADJUSTMENT_REPORT_THRESHOLD)
    adjustments = (
        Adjustment.objects.filter(gaming_day__range=(filters.date_from, filters.date_to), table_id__in=list(tables))
        .select_related("table", "recorded_by_user", "recorded_by_device__table")
        .order_by("gaming_day", "table__code", "id")
    )
    for adjustment in adjustments.iterator(chunk_size=2000):
        amount = from_minor(adjustment.amount_minor, adjustment.currency)
        if abs(amount) < threshold:
            continue
        yield {
            "month": adjustment.gaming_day.strftime("%Y-%m"),
            "gaming_day": adjustment.gaming_day,
            "currency": adjustment.currency,
            "table": adjustment.table.code,
            "figure": Figure(adjustment.figure).label,
            "amount": amount,
            "reason": adjustment.reason,
            "recorded_by": adjustment.recorded_by,
            "recorded_at": adjustment.recorded_at,
        }


ADJUSTMENTS = ReportDefinition(
    slug="adjustments",
    title=_("Adjustments over the threshold"),
    description=_(
        "Changes to the figures of closed gaming days of at least PIT_ADJUSTMENT_REPORT_THRESHOLD (New Jersey: "
        "$2,000), with their reason, who made them and when; subtotals per month."
    ),
    columns=(
        Column("month", _("Month"), T.TEXT, Total.CARRY, width=9),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("gaming_day", _("Gaming day"), T.DATE, width=12),
        Column("table", _("Table"), T.TEXT, width=10),
        Column("figure", _("Figure"), T.TEXT, width=10),
        Column("amount", _("Amount"), **_money),
        Column("reason", _("Reason"), T.TEXT, width=40),
        Column("recorded_by", _("By"), T.TEXT, width=16),
        Column("recorded_at", _("At"), T.DATETIME, width=20),
    ),
    rows=adjustment_rows,
    estimate=lambda filters: Adjustment.objects.filter(gaming_day__range=(filters.date_from, filters.date_to)).count(),
    levels=(Level("month", ("month", "currency"), _("Month")),),
    audience="accounting",
)

ACCOUNTING_REPORTS = (MASTER_GAME, ADJUSTMENTS)
