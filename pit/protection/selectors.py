"""Reads of game protection: the live alarms (unreviewed critical violations) for the dashboard's
banner and the floor API."""

from __future__ import annotations

import datetime as dt

from django.db.models import QuerySet
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
    """The newest unreviewed alarms for the dashboard's banner, each with its violation's page."""
    return [
        {
            "code": alarm.code,
            "message": alarm.message,
            "table": alarm.table.code,
            "found_at": alarm.found_at,
            "url": reverse("admin:compliance_ruleviolation_change", args=[alarm.pk]),
        }
        for alarm in alarms_unreviewed()[:BANNER_SIZE]
    ]
