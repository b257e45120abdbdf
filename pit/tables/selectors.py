"""Reads of tables: whether players are seated, and since when a seat has played without a break.

A seat is seated while a seat session holds it (pit.players, read here through the table's reverse
relation: the players sit above tables), or, where none is recorded, while its wagers follow each
other with no gap longer than the jurisdiction's continuous-play gap."""

from __future__ import annotations

import datetime as dt

from pit.tables.models import Table


def players_seated(*, table: Table, at: dt.datetime, gap_minutes: int) -> bool:
    """Whether a seat session holds a seat of the table at `at` (sat down, not stood up; a break
    keeps the seat), or a coup with wagers was dealt at the table within `gap_minutes` before `at`
    (players not recorded as sessions). The shoes and the sessions sit above tables: read through
    the reverse relations, not an import."""
    seated = table.seat_sessions.filter(started_at__lte=at).exclude(events__kind="stand", events__at__lte=at)
    if seated.exists():
        return True
    since = at - dt.timedelta(minutes=gap_minutes)
    return table.shoes.filter(coups__dealt_at__gte=since, coups__dealt_at__lte=at, coups__wagers__isnull=False).exists()


def seat_sat_down_at(plays: list[dt.datetime], at: dt.datetime, gap: dt.timedelta) -> dt.datetime:
    """When a seat's continuous play that reaches `at` began: `plays` are the moments of the seat's
    wagers, newest first, up to `at`; walking back, the play is broken at the first gap longer than
    `gap`."""
    sat_down = at
    for moment in plays:
        if sat_down - moment > gap:
            break
        sat_down = min(sat_down, moment)
    return sat_down
