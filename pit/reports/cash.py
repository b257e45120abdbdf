"""The compliance officer's cash reports: the multiple transaction log by gaming day, the CTR
worksheets, and the SAR candidates (every pattern finding), each CSV/XLSX/JSON like the others.
Patrons are named by card number (and a person not identified by the description recorded); their
name and nationality (as their details stand) are personal columns, only in the reports of a reader
who may see personal data (`ReportDefinition.for_reader`). Amounts in the reporting
currency are exact (amount x the rate kept on the row), as decimal text."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext_lazy as _

from pit.cash.models import CashFinding, FindingKind
from pit.cash.selectors import exact_text, mtl, mtl_count, rules_at
from pit.core.gaming_day import gaming_day_bounds
from pit.core.money import from_minor
from pit.players.models import PatronVersion
from pit.players.selectors import patrons_current
from pit.reports.definitions import Column, ReportDefinition, ReportFilters, Total
from pit.reports.definitions import ColumnType as T

CASH = "accounting"  # who runs them: the holders of accounts.run_reports (compliance among them)


def _personal(standing: dict[int, PatronVersion], patron_id: int | None) -> dict[str, str]:
    version = standing.get(patron_id) if patron_id is not None else None
    return {"name": version.name if version else "", "nationality": version.nationality if version else ""}


# A patron's name and nationality, beside the card number: personal columns (only for readers who may see them).
_PERSONAL_COLUMNS = (
    Column("name", _("Name"), T.TEXT, width=24, personal=True),
    Column("nationality", _("Nationality"), T.TEXT, width=8, personal=True),
)


def _days(filters: ReportFilters) -> Iterator[dt.date]:
    for offset in range(filters.days):
        yield filters.date_from + dt.timedelta(days=offset)


def mtl_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    for day in _days(filters):
        rules = rules_at(gaming_day_bounds(day)[1])
        rows = list(mtl(day, rules))
        standing = patrons_current(row.patron_id for row in rows if row.patron_id)
        for row in rows:
            yield {
                "gaming_day": row.gaming_day,
                "at": row.at,
                "card_number": row.patron.card_number if row.patron else "",
                **_personal(standing, row.patron_id),
                "description": row.description,
                "kind": row.get_kind_display(),
                "direction": row.direction,
                "currency": row.currency,
                "amount": from_minor(row.amount_minor, row.currency),
                "rate": row.rate,
                "reporting_amount": exact_text(row.reporting_amount),
                "reporting_currency": row.reporting_currency,
                "location": row.location,
                "employee": row.recorded_by,
                "reverses": row.reverses.reference if row.reverses else "",
            }


MTL = ReportDefinition(
    slug="cash-mtl",
    title=_("Multiple transaction log"),
    description=(
        _(
            "Every cash transaction over the MTL threshold of the rules standing that day (e.g. Indiana 68 IAC "
            "15-2-3): date and time, patron or description, type, amount, location and employee."
        )
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("at", _("Time"), T.DATETIME, width=20),
        Column("card_number", _("Card"), T.TEXT, width=12),
        *_PERSONAL_COLUMNS,
        Column("description", _("Description"), T.TEXT, width=24),
        Column("kind", _("Type"), T.TEXT, width=24),
        Column("direction", _("In/out"), T.TEXT, width=7),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("amount", _("Amount"), T.MONEY, width=14),
        Column("rate", _("Rate"), T.TEXT, width=12),
        Column("reporting_amount", _("Reporting amount"), T.TEXT, width=18),
        Column("reporting_currency", _("Reporting currency"), T.TEXT, width=9),
        Column("location", _("Location"), T.TEXT, width=16),
        Column("employee", _("Employee"), T.TEXT, width=20),
        Column("reverses", _("Reverses"), T.TEXT, width=14),
    ),
    rows=mtl_rows,
    estimate=lambda filters: mtl_count(filters.date_from, filters.date_to),
    filters_used=(),
    audience=CASH,
)


def _finding_rows(filters: ReportFilters, kinds: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    query = (
        CashFinding.objects.filter(gaming_day__range=(filters.date_from, filters.date_to), kind__in=kinds)
        .select_related("patron", "table")
        .order_by("gaming_day", "kind", "id")
    )
    findings = list(query)
    standing = patrons_current(finding.patron_id for finding in findings if finding.patron_id)
    for finding in findings:
        yield {
            "gaming_day": finding.gaming_day,
            "kind": finding.get_kind_display(),
            "card_number": finding.patron.card_number if finding.patron_id else "",
            **_personal(standing, finding.patron_id),
            "description": finding.description,
            "table": finding.table.code if finding.table_id else "",
            "cash_in": finding.cash_in,
            "cash_out": finding.cash_out,
            "currency": finding.reporting_currency,
            "transactions": " ".join(str(pk) for pk in finding.evidence.get("transactions", [])),
            "sessions": " ".join(str(pk) for pk in finding.evidence.get("sessions", [])),
            "deadline": finding.deadline,
            "status": finding.get_status_display(),
            "filing_reference": finding.filing_reference,
            "filed_on": finding.filed_on,
            "cleared": "yes" if finding.cleared_at else "",
        }


_FINDING_COLUMNS = (
    Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
    Column("kind", _("Finding"), T.TEXT, width=28),
    Column("card_number", _("Card"), T.TEXT, width=12),
    *_PERSONAL_COLUMNS,
    Column("description", _("Description"), T.TEXT, width=24),
    Column("table", _("Table"), T.TEXT, width=8),
    Column("cash_in", _("Cash in"), T.TEXT, width=16),
    Column("cash_out", _("Cash out"), T.TEXT, width=16),
    Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
    Column("transactions", _("Transactions"), T.TEXT, width=24),
    Column("sessions", _("Sessions"), T.TEXT, width=12),
    Column("deadline", _("Deadline"), T.DATE, width=12),
    Column("status", _("Status"), T.TEXT, width=12),
    Column("filing_reference", _("Filing reference"), T.TEXT, width=16),
    Column("filed_on", _("Filed on"), T.DATE, width=12),
    Column("cleared", _("No longer holds"), T.TEXT, width=8),
)

WORKSHEETS = (FindingKind.CTR, FindingKind.IDENTIFY)
PATTERNS = (
    FindingKind.STRUCTURING,
    FindingKind.MINIMAL_GAMING,
    FindingKind.CHIP_WALKING,
    FindingKind.CASH_OUT_FOR_OTHER,
)

CTR = ReportDefinition(
    slug="cash-ctr",
    title=_("Currency transaction report worksheets"),
    description=(
        _(
            "Each patron whose cash in or cash out of a gaming day passed the CTR threshold (31 CFR 1021.311, "
            "totalled apart by 1021.313), the transactions behind it, its deadline and filing; and each person "
            "known only by description who passed it (identification needed)."
        )
    ),
    columns=_FINDING_COLUMNS,
    rows=lambda filters: _finding_rows(filters, WORKSHEETS),
    estimate=lambda filters: CashFinding.objects.filter(
        gaming_day__range=(filters.date_from, filters.date_to), kind__in=WORKSHEETS
    ).count(),
    filters_used=(),
    audience=CASH,
)

SAR = ReportDefinition(
    slug="cash-sar",
    title=_("Suspicious activity candidates"),
    description=(
        _(
            "Structuring, minimal gaming, chip walking and cash out for another person, each with its evidence "
            "(docs/design/cash.md states each rule); filing a SAR is the casino's decision and act."
        )
    ),
    columns=_FINDING_COLUMNS,
    rows=lambda filters: _finding_rows(filters, PATTERNS),
    estimate=lambda filters: CashFinding.objects.filter(
        gaming_day__range=(filters.date_from, filters.date_to), kind__in=PATTERNS
    ).count(),
    filters_used=(),
    audience=CASH,
)

CASH_REPORTS = (MTL, CTR, SAR)
