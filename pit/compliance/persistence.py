"""Reads of the rule checks whose statement differs by database, the PostgreSQL and SQLite forms side
by side; an equivalence test holds each pair to the same answer."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.db import connection
from django.db.models import F

from pit.core.rows import AnyOf, values_rows
from pit.protection.checks.rows import WAGER_COLUMNS, WagerRow, wager_rows
from pit.shoes.models import Wager

WAGER_ORDER = ("coup_id", "seat", "bet")


def chunk_wagers(coup_ids: Iterable[int], first_day: dt.date, last_day: dt.date) -> list[WagerRow]:
    """Every wager of these coups (dealt on gaming days `first_day` to `last_day`), in coup, seat
    and bet order. By the coup ids (an index probe per coup) rather than by joining the coups again
    (a scan of the month's wagers per chunk)."""
    if connection.vendor == "postgresql":
        return chunk_wagers_postgresql(coup_ids, first_day, last_day)
    return chunk_wagers_sqlite(coup_ids, first_day, last_day)


def chunk_wagers_postgresql(coup_ids: Iterable[int], first_day: dt.date, last_day: dt.date) -> list[WagerRow]:
    """Also by the coups' gaming days, the partition key (set on every row there), so that only
    their months' partitions are read."""
    wagers = Wager.objects.filter(AnyOf(F("coup_id"), coup_ids), gaming_day__range=(first_day, last_day))
    return wager_rows(values_rows(wagers.order_by(*WAGER_ORDER).values_list(*WAGER_COLUMNS)))


def chunk_wagers_sqlite(coup_ids: Iterable[int], first_day: dt.date, last_day: dt.date) -> list[WagerRow]:
    """By the coup ids alone: older SQLite rows may have no gaming day."""
    wagers = Wager.objects.filter(AnyOf(F("coup_id"), coup_ids))
    return wager_rows(values_rows(wagers.order_by(*WAGER_ORDER).values_list(*WAGER_COLUMNS)))
