"""The accounting app's hand-written statements, on PostgreSQL: whether gaming days are closed,
read by every write of a fact under the days' shared locks (taken in the same round trip), and
whether a device holds a scope, read by every request of a cage or count-room terminal. Compiling
the ORM's queries was most of their cost, so PostgreSQL runs statements written once per process;
SQLite runs the ORM's queries (the same answers, as tests/accounting/test_persistence.py checks).
Design: docs/design/persistence.md."""

from __future__ import annotations

import datetime as dt
from typing import cast

from django.db import connection

from pit.core.db import is_postgresql
from pit.core.rows import statement_form, statements_run

from .models import DeviceGrant, GamingDayEvent


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def day_actions(days: list[dt.date], *, lock_space: int | None = None) -> list[tuple[dt.date, str]]:
    """(gaming day, action) of every close and re-open of `days`, oldest first. `lock_space`: first
    each day's shared advisory lock (`lock_space`, the day's ordinal), held until the transaction
    ends, taken in the order of `days`; the read, a statement of its own, sees every close committed
    before the locks were granted (PostgreSQL; SQLite has no advisory locks)."""
    if not is_postgresql():
        return list(
            GamingDayEvent.objects.filter(gaming_day__in=days).order_by("id").values_list("gaming_day", "action")
        )
    locks = [] if lock_space is None else [(_lock_sql(), [lock_space, day.toordinal()]) for day in days]
    *_locked, actions = statements_run([*locks, (_day_actions_sql(), [days])])
    return cast(list[tuple[dt.date, str]], actions)


@statement_form
def _lock_sql() -> str:
    return "SELECT pg_advisory_xact_lock_shared(%s, %s)"


@statement_form
def _day_actions_sql() -> str:
    # Names from the model's metadata only; the days are one parameter, an array.
    day, action, pk = (_column(GamingDayEvent, name) for name in ("gaming_day", "action", "id"))
    table = connection.ops.quote_name(GamingDayEvent._meta.db_table)
    return f"SELECT {day}, {action} FROM {table} WHERE {day} = ANY(%s::date[]) ORDER BY {pk}"  # noqa: S608


def device_holds(device_id: int, scope: str) -> bool:
    """Whether the device is granted `scope`."""
    if not is_postgresql():
        return DeviceGrant.objects.filter(device_id=device_id, scope=scope).exists()
    with connection.cursor() as cursor:
        cursor.execute(_device_holds_sql(), [device_id, scope])
        return cursor.fetchone() is not None


@statement_form
def _device_holds_sql() -> str:
    device, scope = (_column(DeviceGrant, name) for name in ("device", "scope"))
    table = connection.ops.quote_name(DeviceGrant._meta.db_table)
    return f"SELECT 1 FROM {table} WHERE {device} = %s AND {scope} = %s LIMIT 1"  # noqa: S608
