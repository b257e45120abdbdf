"""Hand-written statements of game protection over the shingle index, each with its PostgreSQL
form and its ORM form (SQLite) side by side; an equivalence test holds each pair to the same answer."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db import connection

from pit.protection.models import CardShingle

# The columns a shingle row is read with: (shoe, position, digest, gaming day, coup).
SHINGLE_COLUMNS = ("shoe_id", "position", "digest", "gaming_day", "coup_id")
ORM_DIGESTS_PER_QUERY = 500


def digests_held_by_two_shoes(first_day: dt.date, last_day: dt.date) -> set[int]:
    """The digests that two or more shoes hold in the index on these gaming days (one GROUP BY,
    the same text on every database)."""
    table = CardShingle._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT digest FROM {table} WHERE gaming_day BETWEEN %s AND %s "  # noqa: S608
            "GROUP BY digest HAVING min(shoe_id) <> max(shoe_id)",
            [first_day, last_day],
        )
        return {digest for (digest,) in cursor.fetchall()}


def shingles_matching(digests: list[int], first_day: dt.date, last_day: dt.date) -> list[tuple]:
    """(shoe, position, digest, gaming day, coup) of every indexed shingle of these gaming days with
    one of `digests` that more than one shoe holds."""
    if connection.vendor == "postgresql":
        return shingles_matching_postgresql(digests, first_day, last_day)
    return shingles_matching_orm(digests, first_day, last_day)


def shingles_matching_postgresql(digests: list[int], first_day: dt.date, last_day: dt.date) -> list[tuple]:
    """One array parameter, not one placeholder per digest, written as the array's text (the digests
    are ints: joined in C, not dumped one by one by the driver); the shoes are counted in the database."""
    table = CardShingle._meta.db_table
    sql = (
        f"SELECT shoe_id, position, digest, gaming_day, coup_id FROM {table} "  # noqa: S608
        "WHERE digest = ANY(%(digests)s::bigint[]) AND gaming_day BETWEEN %(first)s AND %(last)s "
        f"AND digest IN (SELECT digest FROM {table} WHERE digest = ANY(%(digests)s::bigint[]) "
        "AND gaming_day BETWEEN %(first)s AND %(last)s GROUP BY digest HAVING count(DISTINCT shoe_id) > 1)"
    )
    array = "{" + ",".join(map(str, digests)) + "}"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"digests": array, "first": first_day, "last": last_day})
        return cursor.fetchall()


def shingles_matching_orm(digests: list[int], first_day: dt.date, last_day: dt.date) -> list[tuple]:
    """The digests ORM_DIGESTS_PER_QUERY at a time (SQLite's limit on parameters); the shoes counted here."""
    rows: list[tuple] = []
    for start in range(0, len(digests), ORM_DIGESTS_PER_QUERY):
        rows += CardShingle.objects.filter(
            digest__in=digests[start : start + ORM_DIGESTS_PER_QUERY],
            gaming_day__gte=first_day,
            gaming_day__lte=last_day,
        ).values_list(*SHINGLE_COLUMNS)
    holders: defaultdict[int, set[int]] = defaultdict(set)
    for row in rows:
        holders[row[2]].add(row[0])
    return [row for row in rows if len(holders[row[2]]) > 1]
