"""The SQL constructs that differ between PostgreSQL and SQLite, each said once: advisory locks,
exact sums of squares, byte-wise ordering. Design: docs/design/persistence.md."""

from __future__ import annotations

from django.db import connections
from django.db.models import BigIntegerField, DecimalField, F, Sum
from django.db.models.expressions import Combinable
from django.db.models.functions import Cast, Collate

# numeric(40, 0) holds the square of any bigint amount and any realistic sum of them exactly.
_EXACT = DecimalField(max_digits=40, decimal_places=0)


def is_postgresql(using: str = "default") -> bool:
    return connections[using].vendor == "postgresql"


def advisory_xact_lock(key: str | tuple[int, int], *, shared: bool = False, using: str = "default") -> None:
    """Hold a PostgreSQL advisory lock on `key` until the transaction ends (shared or exclusive).

    `key` is a text (hashed to PostgreSQL's 64-bit key space) or a pair of 32-bit keys (an app's own
    key space and a key in it). On SQLite it is a no-op: its IMMEDIATE transactions already run one
    writer at a time.
    """
    if not is_postgresql(using):
        return
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    with connections[using].cursor() as cursor:
        if isinstance(key, str):
            cursor.execute(f"SELECT {function}(hashtextextended(%s, 0))", [key])
        else:
            cursor.execute(f"SELECT {function}(%s, %s)", list(key))


def sum_of_squares(field: str) -> Sum:
    """Sum of `field`² over the rows, exact: numeric on PostgreSQL (a bigint's square overflows
    bigint); SQLite's 64-bit integers hold the sum of any realistic day's squared minor units."""
    if is_postgresql():
        amount = Cast(field, _EXACT)
        return Sum(amount * amount, output_field=_EXACT)
    return Sum(F(field) * F(field), output_field=BigIntegerField())


def bytewise(field: str) -> Combinable:
    """`field` ordered byte by byte, as Python compares strings (PostgreSQL's "C" collation; SQLite's
    default BINARY collation already does), for streams merged in Python."""
    if is_postgresql():
        return Collate(field, "C")
    return F(field)
