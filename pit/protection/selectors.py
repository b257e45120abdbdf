"""Reads of game protection: the live alarms (unreviewed critical violations) for the dashboard's
banner and the floor API."""

from __future__ import annotations

import datetime as dt

from django.db.models import Case, Count, DateField, F, Max, Min, QuerySet, Value, When
from django.urls import reverse

from pit.compliance.models import RuleViolation, ViolationStatus
from pit.game import VIOLATION_CODES

# The codes that are alarms: surveillance looks at them now, not at the end of the day. Play at a
# closed table joins as soon as its code is registered in the engine (whichever of these names).
ALARM_CODES: tuple[str, ...] = tuple(
    code
    for code in (
        "shoe_sequence_repeat",
        "new_deck_order_run",
        "box_variance",
        "stale_feed",
        "coup_rate_high",
        "win_deviation",
        "dealer_error_rate",
        "coup_at_closed_table",
        "play_at_closed_table",
        "excluded_patron_seated",
        "patron_at_two_tables",
        "cash_threshold_near",
        "cash_filing_due",
        "regulator_notice_due",
        "regulator_notice_overdue",
    )
    if code in VIOLATION_CODES
)
BANNER_SIZE = 10


def alarms_unreviewed(
    *,
    table_code: str | None = None,
    code: str | None = None,
    since: dt.datetime | None = None,
    table_id: int | None = None,
) -> QuerySet[RuleViolation]:
    """Alarms still open (no pit boss has acknowledged, resolved or dismissed them) and holding
    (not cleared by a re-check), newest first."""
    alarms = RuleViolation.objects.filter(
        code__in=ALARM_CODES, status=ViolationStatus.OPEN, cleared_at__isnull=True
    ).select_related("table", "status_changed_by")
    if table_code is not None:
        alarms = alarms.filter(table__code=table_code)
    if table_id is not None:
        alarms = alarms.filter(table_id=table_id)
    if code is not None:
        alarms = alarms.filter(code=code)
    if since is not None:
        alarms = alarms.filter(found_at__gte=since)
    return alarms.order_by("-found_at", "-id")


def alarm_banner() -> list[dict]:
    """The newest unreviewed alarm events for the dashboard's banner (one per event, with its
    count), each with its newest violation's page and where to acknowledge the event."""
    return [
        {
            "id": event["violation"].pk,
            "code": event["violation"].code,
            "message": event["violation"].message,
            "table": event["violation"].table.code,
            "count": event["count"],
            "found_at": event["last_found_at"],
            "first_found_at": event["first_found_at"],
            "url": reverse("admin:compliance_ruleviolation_change", args=[event["violation"].pk]),
            "acknowledge_url": reverse(
                "admin:compliance_ruleviolation_alarm_acknowledge", args=[event["violation"].pk]
            ),
        }
        for event in alarm_events(alarm_groups(alarms_unreviewed())[:BANNER_SIZE])
    ]


# ---------------------------------------------------------------------------------------- one event, one alarm


def _event_day() -> Case:
    """An alarm with a shoe is one event per shoe (a replayed or unshuffled shoe raises one finding
    per coup); an alarm with no shoe is one event per table, code and gaming day."""
    return Case(When(shoe__isnull=True, then=F("gaming_day")), default=Value(None), output_field=DateField())


def alarm_groups(alarms: QuerySet[RuleViolation]) -> QuerySet:
    """The alarms grouped into events, newest first: per table, code and shoe (or gaming day when
    there is no shoe), with how many findings each holds, the first and the last found, and the
    newest finding's id (the one shown for the group)."""
    return (
        alarms.order_by()
        .annotate(event_day=_event_day())
        .values("table_id", "code", "shoe_id", "event_day")
        .annotate(count=Count("id"), first_found_at=Min("found_at"), last_found_at=Max("found_at"), latest_id=Max("id"))
        .order_by("-last_found_at", "-latest_id")
    )


def alarm_events(groups) -> list[dict]:
    """Groups of `alarm_groups` (a page of them) as rows: the newest violation of each event with
    the event's count and first and last finding, in one query."""
    groups = list(groups)
    newest = RuleViolation.objects.select_related("table", "status_changed_by").in_bulk(
        [group["latest_id"] for group in groups]
    )
    return [
        {
            "violation": newest[group["latest_id"]],
            "count": group["count"],
            "first_found_at": group["first_found_at"],
            "last_found_at": group["last_found_at"],
        }
        for group in groups
    ]


def alarm_event_members(violation: RuleViolation) -> QuerySet[RuleViolation]:
    """Every unreviewed finding of the event this alarm belongs to (what acknowledging it acknowledges)."""
    members = alarms_unreviewed(table_id=violation.table_id, code=violation.code)
    if violation.shoe_id is None:
        return members.filter(shoe__isnull=True, gaming_day=violation.gaming_day)
    return members.filter(shoe_id=violation.shoe_id)
