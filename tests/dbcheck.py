"""Assert that the database itself refuses a row (a named constraint or a trigger), not Python."""

from contextlib import contextmanager

import pytest
from django.db import IntegrityError, connection, transaction


@contextmanager
def refused(constraint: str):
    """The block must fail in the database with an IntegrityError naming `constraint`.

    SQLite names a CHECK constraint and a partial unique index in its message, but describes a
    plain UNIQUE constraint by its columns; PostgreSQL always names the constraint.
    """
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        yield
    message = str(caught.value)
    if connection.vendor == "sqlite" and "UNIQUE constraint failed" in message:
        return
    assert constraint in message, message
