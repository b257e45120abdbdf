"""What a shift handover holds: a registry of sections, each a provider of rows as they stand at a
moment. A handover records every section of `HANDOVER_SECTIONS` (read when it is recorded, so an
app that adds one, e.g. the open ratings of the players at the table, appends its `HandoverSection`
at start-up with `handover_section_register`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import OuterRef, Subquery

from pit.accounting.models import InventoryCount, Slip, SlipStepKind
from pit.compliance.models import RuleViolation
from pit.compliance.selectors import OPEN
from pit.core.gaming_day import gaming_day_for
from pit.core.money import format_money
from pit.players.selectors import open_sessions, session_patron
from pit.protection.selectors import ALARM_CODES
from pit.tables.models import Table, TableEvent, TableEventKind


@dataclass(frozen=True)
class HandoverSection:
    name: str  # the key in a handover's `sections`
    title: str
    rows: Callable[[dt.datetime], list[dict[str, Any]]]  # JSON-ready rows as they stand at the moment


def tables_open_at(moment: dt.datetime):
    """The tables whose last open/close event at or before `moment` opened them, by code."""
    last = TableEvent.objects.filter(table=OuterRef("pk"), at__lte=moment).order_by("-at", "-id").values("kind")[:1]
    return Table.objects.annotate(last_event=Subquery(last)).filter(last_event=TableEventKind.OPENED).order_by("code")


def open_violations(moment: dt.datetime) -> list[dict[str, Any]]:
    """Violations found by then, still open and holding; alarms marked."""
    violations = RuleViolation.objects.filter(OPEN, found_at__lte=moment).select_related("table")
    return [
        {
            "id": violation.pk,
            "code": violation.code,
            "alarm": violation.code in ALARM_CODES,
            "table": violation.table.code,
            "gaming_day": violation.gaming_day.isoformat(),
            "message": violation.message,
        }
        for violation in violations.order_by("found_at", "pk")
    ]


def open_tables(moment: dt.datetime) -> list[dict[str, Any]]:
    """The tables open, each with its last chip tray count of the gaming day or before."""
    day = gaming_day_for(moment)
    rows = []
    for table in tables_open_at(moment):
        count = (
            InventoryCount.objects.filter(table=table, gaming_day__lte=day)
            .order_by("-gaming_day", "-shift", "kind")
            .first()
        )
        rows.append(
            {
                "table": table.code,
                "inventory": None
                if count is None
                else {
                    "gaming_day": count.gaming_day.isoformat(),
                    "shift": count.shift,
                    "kind": count.kind,
                    "total_minor": count.total_minor,
                    "total": format_money(count.total_minor, count.currency),
                },
            }
        )
    return rows


def outstanding_slips(moment: dt.datetime) -> list[dict[str, Any]]:
    """Fills and credits of the gaming day or before not received at the table yet."""
    day = gaming_day_for(moment)
    slips = (
        Slip.objects.filter(gaming_day__lte=day)
        .exclude(steps__step=SlipStepKind.RECEIVED)
        .select_related("table")
        .prefetch_related("steps")
    )
    return [
        {
            "kind": slip.kind,
            "number": slip.number,
            "table": slip.table.code,
            "gaming_day": slip.gaming_day.isoformat(),
            "total_minor": slip.total_minor,
            "total": format_money(slip.total_minor, slip.currency),
            "issued": any(step.step == SlipStepKind.ISSUED for step in slip.steps.all()),
        }
        for slip in slips.order_by("gaming_day", "kind", "number")
    ]


def open_ratings(moment: dt.datetime) -> list[dict[str, Any]]:
    """The seat sessions still open (seated or on a break) with their rating as it stands: the next
    pit boss takes them over. Patrons by card number (names stay on the patron's page)."""
    sessions = (
        open_sessions()
        .filter(started_at__lte=moment)
        .select_related("table", "patron", "rating", "identification__patron")
        .order_by("table__code", "seat")
    )
    rows = []
    for session in sessions:
        patron = session_patron(session)
        rating = getattr(session, "rating", None)
        rows.append(
            {
                "session": session.pk,
                "table": session.table.code,
                "seat": session.seat,
                "card_number": patron.card_number if patron else None,
                "description": session.description,
                "since": session.started_at.isoformat(),
                "handle": format_money(rating.handle_minor, rating.currency) if rating else None,
                "coups_played": rating.coups_played if rating else 0,
            }
        )
    return rows


HANDOVER_SECTIONS: tuple[HandoverSection, ...] = (
    HandoverSection("violations", "Open violations and alarms", open_violations),
    HandoverSection("tables", "Tables open and their inventories", open_tables),
    HandoverSection("slips", "Outstanding fills and credits", outstanding_slips),
    HandoverSection("ratings", "Open ratings (players seated or on a break)", open_ratings),
)


def handover_section_register(section: HandoverSection) -> None:
    """Add a section (an app above this one, at start-up); a name is registered once."""
    global HANDOVER_SECTIONS
    if any(known.name == section.name for known in HANDOVER_SECTIONS):
        raise ValueError(f"a handover section {section.name!r} is registered already")
    HANDOVER_SECTIONS = (*HANDOVER_SECTIONS, section)


def handover_snapshot(moment: dt.datetime) -> dict[str, list[dict[str, Any]]]:
    return {section.name: section.rows(moment) for section in HANDOVER_SECTIONS}
