"""The reports of the pit's internal controls, defined once for the report catalog
(pit/reports/catalog.py registers them): the daily card reconciliation (N.J.A.C. 13:69E-1.18) and
the key log. Both read pit.controls' selectors; nothing is computed again here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext_lazy as _

from pit.controls.models import KeyIssue
from pit.controls.selectors import card_days, key_log_rows
from pit.core.gaming_day import gaming_day_bounds
from pit.reports.definitions import Column, ColumnOptions, ReportDefinition, ReportFilters, Total
from pit.reports.definitions import ColumnType as T

_count: ColumnOptions = {"type": T.INTEGER, "total": Total.SUM, "width": 9}
_stock: ColumnOptions = {"type": T.INTEGER, "width": 10}


def card_reconciliation_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per gaming day: the day's movements, and at its end received = in storage + at
    tables + destroyed, each storage place's count beside its book, the decks in use too long."""
    for day in card_days(filters.date_from, filters.date_to):
        yield {
            "gaming_day": day.gaming_day,
            "received": day.received,
            "issued": day.issued,
            "returned": day.returned,
            "cancelled": day.cancelled,
            "destroyed": day.destroyed,
            "received_to_date": day.received_to_date,
            "in_storage": day.in_storage,
            "at_tables": day.at_tables,
            "destroyed_to_date": day.destroyed_to_date,
            "balanced": "yes" if day.balanced else "no",
            "by_place": ", ".join(f"{place}: {decks}" for place, decks in day.by_place.items()),
            "counted": ", ".join(f"{place}: {decks}" for place, decks in day.counted.items()),
            "count_difference": day.count_difference,
            "overdue": "; ".join(day.overdue),
        }


CARD_RECONCILIATION = ReportDefinition(
    slug="card-reconciliation",
    title=_("Card reconciliation"),
    description=(
        _(
            "Per gaming day: decks received, issued, returned, cancelled and destroyed; at the day's end decks "
            "received = in storage + at tables + destroyed, each storage place's count beside its book, and the "
            "decks in use longer than PIT_CONTROLS_DECK_MAX_HOURS named (N.J.A.C. 13:69E-1.18)."
        )
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, width=12),
        Column("received", _("Received"), **_count),
        Column("issued", _("Issued"), **_count),
        Column("returned", _("Returned"), **_count),
        Column("cancelled", _("Cancelled"), **_count),
        Column("destroyed", _("Destroyed"), **_count),
        Column("received_to_date", _("Received to date"), **_stock),
        Column("in_storage", _("In storage"), **_stock),
        Column("at_tables", _("At tables"), **_stock),
        Column("destroyed_to_date", _("Destroyed to date"), **_stock),
        Column("balanced", _("Balanced"), T.TEXT, width=9),
        Column("by_place", _("In storage by place"), T.TEXT, width=24),
        Column("counted", _("Counted"), T.TEXT, width=24),
        Column("count_difference", _("Count - book"), T.INTEGER, width=10),
        Column("overdue", _("In use too long"), T.TEXT, width=40),
    ),
    rows=card_reconciliation_rows,
    estimate=lambda filters: filters.days,
    filters_used=(),
    audience="floor",
    total_keys=(),
)


KEY_LOG = ReportDefinition(
    slug="key-log",
    title=_("Key log"),
    description=(
        _(
            "Every sensitive key drawn in the range: for which table, by whom, issued by whom, when it was due back, "
            "when it came back and who received it; whether the person was on its access list and whether it was late."
        )
    ),
    columns=(
        Column("issued_at", _("Issued at"), T.DATETIME, width=20),
        Column("key", _("Key"), T.TEXT, width=14),
        Column("kind", _("Kind"), T.TEXT, width=16),
        Column("table", _("Table"), T.TEXT, width=8),
        Column("issued_to", _("Issued to"), T.TEXT, width=14),
        Column("issued_by", _("Issued by"), T.TEXT, width=14),
        Column("purpose", _("Purpose"), T.TEXT, width=20),
        Column("due_at", _("Due back"), T.DATETIME, width=20),
        Column("returned_at", _("Returned at"), T.DATETIME, width=20),
        Column("returned_by", _("Returned by"), T.TEXT, width=14),
        Column("received_by", _("Received by"), T.TEXT, width=14),
        Column("minutes_out", _("Minutes out"), T.INTEGER, width=9),
        Column("on_list", _("On its list"), T.TEXT, width=8),
        Column("overdue", _("Late"), T.TEXT, width=6),
    ),
    rows=lambda filters: key_log_rows(filters.date_from, filters.date_to),
    estimate=lambda filters: KeyIssue.objects.filter(
        issued_at__gte=gaming_day_bounds(filters.date_from)[0], issued_at__lt=gaming_day_bounds(filters.date_to)[1]
    ).count(),
    filters_used=(),
    audience="floor",
    total_keys=(),
)

CONTROL_REPORTS = (CARD_RECONCILIATION, KEY_LOG)
