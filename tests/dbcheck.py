"""Assert that the database itself refuses a row (a named constraint or a trigger), not Python."""

from contextlib import contextmanager

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction
from django.db.models import UniqueConstraint


@contextmanager
def refused(*constraints: str):
    """The block must fail in the database with an IntegrityError naming one of `constraints`
    (several when no row can break one without another: a status outside the choices also breaks
    the constraints that list the valid statuses, and which one the database names first varies).

    SQLite names a CHECK constraint in its message, but describes a unique one by its columns;
    PostgreSQL always names the constraint. On SQLite the columns are taken back to the unique
    constraints on exactly those columns, named as PostgreSQL names them.
    """
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        yield
    message = str(caught.value)
    # SQLite's message of a unique constraint names its columns: what they make up is the constraint.
    names = _unique_by_columns(message) or [message, *_parent_indexes(caught.value)]
    assert any(constraint in name for constraint in constraints for name in names), message


def _unique_by_columns(message: str) -> list[str]:
    """The unique constraints SQLite's "UNIQUE constraint failed: table.a, table.b" describes: the
    model's `UniqueConstraint`s on exactly those columns (with a condition or not), or a unique
    field's (`<table>_<column>_key`)."""
    prefix = "UNIQUE constraint failed: "
    if connection.vendor != "sqlite" or not message.startswith(prefix) or message.startswith(prefix + "index "):
        return []
    described = [item.strip().partition(".") for item in message.removeprefix(prefix).split(",")]
    table, columns = described[0][0], {column for _table, _dot, column in described}
    names = []
    for model in apps.get_models(include_auto_created=True):
        meta = model._meta
        if meta.db_table != table:
            continue
        unique = [c for c in meta.constraints if isinstance(c, UniqueConstraint) and c.fields]
        names += [c.name for c in unique if {meta.get_field(name).column for name in c.fields} == columns]
        names += [f"{table}_{f.column}_key" for f in meta.local_fields if f.unique and {f.column} == columns]
    return names


def _parent_indexes(error) -> list[str]:
    """PostgreSQL names the index of a partition (shoes_wager_2026_11_coup_id_..._idx) in a unique
    violation on a partitioned table (pit.core.partitions): the constraint is its parent index."""
    name = getattr(getattr(error.__cause__, "diag", None), "constraint_name", None)
    if connection.vendor != "postgresql" or not name:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT a.relid::regclass::text FROM pg_partition_ancestors(to_regclass(%s)) a", [name])
        return [row[0] for row in cursor.fetchall()]
