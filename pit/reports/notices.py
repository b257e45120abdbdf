"""The internal controls' reports (pit/reports/catalog.py registers them): the slip series (every
unused and voided number, every gap), the limit changes as announced, what the pit told
surveillance and when it was acknowledged, and the notices owed to the regulator with their filing.
Each reads the controls' facts; none computes a control again (the slip series is
pit.accounting.selectors.slip_series)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from pit.accounting.selectors import slip_series
from pit.core.gaming_day import gaming_day_bounds
from pit.core.money import from_minor
from pit.notices.models import RegulatorNotice, SurveillanceNotification
from pit.reports.definitions import Column, Level, ReportDefinition, ReportFilters, Total
from pit.reports.definitions import ColumnType as T
from pit.tables.models import LimitChange


def _range(filters: ReportFilters):
    start, _ = gaming_day_bounds(filters.date_from)
    _, end = gaming_day_bounds(filters.date_to)
    return start, end


def _tables(filters: ReportFilters) -> Q:
    query = Q()
    if filters.tables:
        query &= Q(table__code__in=filters.tables)
    if filters.game:
        query &= Q(table__game=filters.game)
    return query


def slip_series_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    """Per slip book: each voided number (reason, witness), each gap, each run of unused numbers.
    The series as it stands: not bounded by the report's days."""
    for state in slip_series():
        book = state.label
        for number, void in sorted(state.voided.items()):
            yield {
                "book": book,
                "numbers": str(number),
                "status": "void",
                "count": 1,
                "reason": void.reason,
                "witness": void.witness.username,
                "recorded_by": void.recorded_by,
                "recorded_at": void.recorded_at,
            }
        for gap in state.gaps:
            yield {
                "book": book,
                "numbers": str(gap.number),
                "status": "gap",
                "count": 1,
                "reason": f"neither used nor voided; {gap.next_number} after it was",
                "witness": "",
                "recorded_by": "",
                "recorded_at": None,
            }
        for first, last in state.unused:
            yield {
                "book": book,
                "numbers": f"{first}-{last}" if last > first else str(first),
                "status": "unused",
                "count": last - first + 1,
                "reason": "",
                "witness": "",
                "recorded_by": "",
                "recorded_at": None,
            }


SLIP_SERIES = ReportDefinition(
    slug="slip-series",
    title=gettext_lazy("Unused and voided slips"),
    description=(
        gettext_lazy(
            "The fill and credit slip series as it stands, per book: every voided number with its reason and "
            "witness, every gap (a finding), every run of unused numbers (Louisiana LAC 42:III.2717)."
        )
    ),
    columns=(
        Column("book", gettext_lazy("Book"), T.TEXT, Total.CARRY, width=14),
        Column("numbers", gettext_lazy("Numbers"), T.TEXT, width=16),
        Column("status", gettext_lazy("Status"), T.TEXT, width=8),
        Column("count", gettext_lazy("Forms"), T.INTEGER, Total.SUM, width=8),
        Column("reason", gettext_lazy("Reason"), T.TEXT, width=40),
        Column("witness", gettext_lazy("Witness"), T.TEXT, width=14),
        Column("recorded_by", gettext_lazy("By"), T.TEXT, width=16),
        Column("recorded_at", gettext_lazy("At"), T.DATETIME, width=20),
    ),
    rows=slip_series_rows,
    # A series holds a few books of a few hundred forms: its runs are counted by reading them.
    estimate=lambda filters: sum(1 for _ in slip_series_rows(filters)),
    levels=(Level("book", ("book",), "Book"),),
    filters_used=(),
    audience="accounting",
    total_keys=(),
)


def _limit_changes(filters: ReportFilters):
    start, end = _range(filters)
    return LimitChange.objects.filter(_tables(filters), announced_at__gte=start, announced_at__lt=end)


def limit_change_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    changes = _limit_changes(filters).select_related("table", "set_by").order_by("table__code", "announced_at", "id")
    for change in changes.iterator(chunk_size=2000):
        yield {
            "table": change.table.code,
            "announced_at": timezone.localtime(change.announced_at),
            "effective_from": timezone.localtime(change.effective_from),
            "tightens": "yes" if change.tightens else "no",
            "players_seated": "yes" if change.players_seated else "no",
            "notice_minutes": change.notice_minutes,
            "grandfathering": "yes" if change.grandfathering else "no",
            "rule": change.rule,
            "set_by": change.set_by.username if change.set_by else "",
        }


LIMIT_CHANGES = ReportDefinition(
    slug="limit-changes",
    title=gettext_lazy("Limit changes"),
    description=(
        gettext_lazy(
            "Each change of a table's limits as announced: when, from when it applied, whether it tightened the "
            "limits with players seated, the notice it took and the rule followed (e.g. COMAR 36.05.03.21)."
        )
    ),
    columns=(
        Column("table", gettext_lazy("Table"), T.TEXT, Total.CARRY, width=10),
        Column("announced_at", gettext_lazy("Announced"), T.DATETIME, width=20),
        Column("effective_from", gettext_lazy("In force from"), T.DATETIME, width=20),
        Column("tightens", gettext_lazy("Tightens"), T.TEXT, width=9),
        Column("players_seated", gettext_lazy("Players seated"), T.TEXT, width=9),
        Column("notice_minutes", gettext_lazy("Notice (min)"), T.INTEGER, width=9),
        Column("grandfathering", gettext_lazy("Grandfathering"), T.TEXT, width=9),
        Column("rule", gettext_lazy("Rule"), T.TEXT, width=40),
        Column("set_by", gettext_lazy("Set by"), T.TEXT, width=14),
    ),
    rows=limit_change_rows,
    estimate=lambda filters: _limit_changes(filters).count(),
    levels=(Level("table", ("table",), "Table"),),
    audience="floor",
    total_keys=(),
)


def surveillance_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    start, end = _range(filters)
    notifications = (
        SurveillanceNotification.objects.filter(_tables(filters), notified_at__gte=start, notified_at__lt=end)
        .select_related("table", "acknowledgement__acknowledged_by")
        .order_by("table__code", "notified_at", "id")
    )
    for notification in notifications.iterator(chunk_size=2000):
        acknowledgement = getattr(notification, "acknowledgement", None)
        late = acknowledgement is None or acknowledgement.acknowledged_at > notification.due_by
        yield {
            "table": notification.table.code,
            "kind": notification.get_kind_display(),
            "message": notification.message,
            "notified_at": timezone.localtime(notification.notified_at),
            "due_by": timezone.localtime(notification.due_by),
            "acknowledged_by": acknowledgement.acknowledged_by.username if acknowledgement else "",
            "acknowledged_at": timezone.localtime(acknowledgement.acknowledged_at) if acknowledgement else None,
            "late": 1 if late else 0,
        }


SURVEILLANCE = ReportDefinition(
    slug="surveillance-notifications",
    title=gettext_lazy("Surveillance notifications"),
    description=(
        gettext_lazy(
            "What the pit told surveillance (drops, decks leaving storage, tables off schedule, large fills, live "
            "alarms), when, and who acknowledged it when; late ones counted."
        )
    ),
    columns=(
        Column("table", gettext_lazy("Table"), T.TEXT, Total.CARRY, width=10),
        Column("kind", gettext_lazy("Kind"), T.TEXT, width=20),
        Column("message", gettext_lazy("Message"), T.TEXT, width=40),
        Column("notified_at", gettext_lazy("Notified"), T.DATETIME, width=20),
        Column("due_by", gettext_lazy("Acknowledge by"), T.DATETIME, width=20),
        Column("acknowledged_by", gettext_lazy("Acknowledged by"), T.TEXT, width=14),
        Column("acknowledged_at", gettext_lazy("Acknowledged"), T.DATETIME, width=20),
        Column("late", gettext_lazy("Late"), T.INTEGER, Total.SUM, width=6),
    ),
    rows=surveillance_rows,
    estimate=lambda filters: SurveillanceNotification.objects.count(),
    levels=(Level("table", ("table",), "Table"),),
    audience="floor",
    total_keys=(),
)


def regulator_rows(filters: ReportFilters) -> Iterator[dict[str, Any]]:
    notices = (
        RegulatorNotice.objects.filter(_tables(filters), gaming_day__range=(filters.date_from, filters.date_to))
        .select_related("table", "filing__filed_by")
        .order_by("gaming_day", "table__code", "id")
    )
    for notice in notices.iterator(chunk_size=2000):
        filing = getattr(notice, "filing", None)
        yield {
            "gaming_day": notice.gaming_day,
            "currency": notice.currency,
            "table": notice.table.code,
            "rule_code": notice.rule_code,
            "rule": notice.rule,
            "discrepancy": from_minor(notice.amount_minor, notice.currency),
            "message": notice.message,
            "due_at": timezone.localtime(notice.due_at),
            "reference": filing.reference if filing else "",
            "filed_at": timezone.localtime(filing.filed_at) if filing else None,
            "filed_by": filing.filed_by.username if filing else "",
        }


REGULATOR = ReportDefinition(
    slug="regulator-notices",
    title=gettext_lazy("Notices to the regulator"),
    description=(
        gettext_lazy(
            "Errors reported to the regulator by their deadline (e.g. WAC 230-15-495: opener/closer discrepancies "
            "over $200 within 24 hours), with the filing's reference, who filed and when."
        )
    ),
    columns=(
        Column("gaming_day", gettext_lazy("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("currency", gettext_lazy("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("table", gettext_lazy("Table"), T.TEXT, width=10),
        Column("rule_code", gettext_lazy("Rule"), T.TEXT, width=16),
        Column("rule", gettext_lazy("Rule cited"), T.TEXT, width=40),
        Column("discrepancy", gettext_lazy("Discrepancy"), T.MONEY, Total.SUM, width=14),
        Column("message", gettext_lazy("What"), T.TEXT, width=40),
        Column("due_at", gettext_lazy("Report by"), T.DATETIME, width=20),
        Column("reference", gettext_lazy("Reference"), T.TEXT, width=16),
        Column("filed_at", gettext_lazy("Filed"), T.DATETIME, width=20),
        Column("filed_by", gettext_lazy("Filed by"), T.TEXT, width=14),
    ),
    rows=regulator_rows,
    estimate=lambda filters: RegulatorNotice.objects.count(),
    levels=(Level("day", ("gaming_day", "currency"), "Gaming day"),),
    audience="accounting",
)

NOTICE_REPORTS = (SLIP_SERIES, LIMIT_CHANGES, SURVEILLANCE, REGULATOR)
