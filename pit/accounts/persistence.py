"""The accounts' hand-written statement: a device and its table by key prefix, in one read.
Design: docs/design/persistence.md."""

from __future__ import annotations

from django.db import connection

from pit.core.db import is_postgresql
from pit.core.rows import model_columns, model_from_row, statement_form
from pit.tables.models import Table

from .models import Device


def device_by_prefix(prefix: str) -> Device | None:
    """The device with this key prefix, its table loaded, or None. Every device request
    authenticates, and compiling the ORM's query was most of its cost, so PostgreSQL runs a
    statement written once per process; SQLite runs the ORM's query (the same row, as
    tests/accounts/test_persistence.py checks). Only the text is kept: a revoked key is refused at once."""
    if not is_postgresql():
        return Device.objects.select_related("table").filter(key_prefix=prefix).first()
    with connection.cursor() as cursor:
        cursor.execute(_device_by_prefix_sql(), [prefix])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    device = model_from_row(Device, values)
    device.table = model_from_row(Table, values)
    return device


@statement_form
def _device_by_prefix_sql() -> str:
    # Names from the models' metadata only; the prefix is a parameter.
    quote = connection.ops.quote_name
    return (
        f"SELECT {', '.join(model_columns(Device, 'd') + model_columns(Table, 't'))} "  # noqa: S608
        f"FROM {quote(Device._meta.db_table)} d "
        f"JOIN {quote(Table._meta.db_table)} t ON t.id = d.table_id WHERE d.key_prefix = %s"
    )
