"""Reads of tables: whether players are seated, and since when a seat has played without a break.

Until seat sessions are recorded, a seat is known by its play: it is seated while its wagers follow
each other with no gap longer than the jurisdiction's continuous-play gap."""

from __future__ import annotations

import datetime as dt

from pit.tables.models import Table


def players_seated(*, table: Table, at: dt.datetime, gap_minutes: int) -> bool:
    """Whether a coup with wagers was dealt at the table within `gap_minutes` before `at`. The shoes
    sit above tables: read through the reverse relations, not an import."""
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
