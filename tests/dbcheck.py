"""Assert that the database itself refuses a row (a named constraint or a trigger), not Python."""

from contextlib import contextmanager

import pytest
from django.db import IntegrityError, connection, transaction


@contextmanager
def refused(*constraints: str):
    """The block must fail in the database with an IntegrityError naming one of `constraints`
    (several when no row can break one without another: a status outside the choices also breaks
    the constraints that list the valid statuses, and which one the database names first varies).

    SQLite names a CHECK constraint and a partial unique index in its message, but describes a
    plain UNIQUE constraint by its columns; PostgreSQL always names the constraint.
    """
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        yield
    message = str(caught.value)
    if connection.vendor == "sqlite" and "UNIQUE constraint failed" in message:
        return
    assert any(constraint in message for constraint in (*constraints, *_parent_indexes(caught.value))), message


def _parent_indexes(error) -> list[str]:
    """PostgreSQL names the index of a partition (shoes_wager_2026_11_coup_id_..._idx) in a unique
    violation on a partitioned table (pit.core.partitions): the constraint is its parent index."""
    name = getattr(getattr(error.__cause__, "diag", None), "constraint_name", None)
    if connection.vendor != "postgresql" or not name:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT a.relid::regclass::text FROM pg_partition_ancestors(to_regclass(%s)) a", [name])
        return [row[0] for row in cursor.fetchall()]
