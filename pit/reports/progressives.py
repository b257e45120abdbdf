"""The progressive meters' liability: a report of its own, beside the commission report in the
catalog, and the lines the master game report shows after its totals. Both read
`pit.progressives.selectors.meters_liability`: every meter as it stands when the report runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext_lazy as _

from pit.core.money import from_minor
from pit.progressives.models import Meter
from pit.progressives.selectors import MeterFigures, meters_liability
from pit.tables.models import Table

from .definitions import Column, ColumnOptions, ReportDefinition, ReportFilters, Total
from .definitions import ColumnType as T

_money: ColumnOptions = {"type": T.MONEY, "total": Total.SUM, "width": 14}


def _meters(filters: ReportFilters) -> list[tuple[MeterFigures, list[str]]]:
    """The meters whose bank in force holds a table of the filters (every meter with no table named)."""
    codes = dict(Table.objects.values_list("pk", "code"))
    found = []
    for figures in meters_liability():
        tables = sorted(codes[table_id] for table_id in figures.table_ids)
        if filters.tables and not set(tables) & set(filters.tables):
            continue
        found.append((figures, tables))
    return found


def liability_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """One row per meter: its filing in force, what fed it, what it paid, what it stands at."""
    for figures, tables in _meters(filters):
        currency = figures.currency

        def money(minor, currency: str = currency):
            return from_minor(int(minor), currency)

        yield {
            "currency": currency,
            "meter": figures.meter.code,
            "name": figures.meter.name,
            "bet": figures.meter.bet,
            "tables": ", ".join(tables),
            "configuration": figures.configuration.version,
            "rate": figures.configuration.rate,
            "base": money(figures.base_minor),
            "reset": money(figures.configuration.reset_minor),
            "contributions": money(figures.contributions),
            "carried": money(figures.carried),
            "resets": money(figures.resets_minor),
            "paid": money(figures.paid_minor),
            "payouts": figures.payouts,
            "liability": money(figures.amount_minor),
        }


PROGRESSIVE_LIABILITY = ReportDefinition(
    slug="progressive-liability",
    title=_("Progressive liability"),
    description=_(
        "Per progressive meter, as it stands when the report runs: its filed configuration in force (bank, "
        "rate, base, reset), the contributions of the standing wagers, what corrections and voids withdrew "
        "and the meter carries, the resets and payouts of its hits, and the liability: what the meter shows. "
        "Base + contributions + carried + resets - paid = liability (to the cent below)."
    ),
    columns=(
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("meter", _("Meter"), T.TEXT, width=10),
        Column("name", _("Name"), T.TEXT, width=24),
        Column("bet", _("Bet"), T.TEXT, width=14),
        Column("tables", _("Bank"), T.TEXT, width=24),
        Column("configuration", _("Filed version"), T.INTEGER, width=8),
        Column("rate", _("Rate of progression"), T.DECIMAL, width=10, places=6),
        Column("base", _("Base"), **_money),
        Column("reset", _("Reset"), T.MONEY, width=14),
        Column("contributions", _("Contributions"), **_money),
        Column("carried", _("Carried (corrections, voids)"), **_money),
        Column("resets", _("Resets"), **_money),
        Column("paid", _("Paid"), **_money),
        Column("payouts", _("Hits paid"), T.INTEGER, Total.SUM, width=8),
        Column("liability", _("Liability (meter)"), **_money),
    ),
    rows=liability_rows,
    estimate=lambda filters: Meter.objects.count(),
    filters_used=("tables",),
    audience="accounting",
)


def master_game_liability(filters: ReportFilters, totals) -> Iterator[dict[str, Any]]:
    """The master game report's lines after its totals: each meter's liability as the report runs."""
    for figures, tables in _meters(filters):
        yield {
            "table": figures.meter.code,
            "status": f"Progressive {figures.meter.bet} ({', '.join(tables)})",
            "currency": figures.currency,
            "progressive_liability": from_minor(figures.amount_minor, figures.currency),
        }
