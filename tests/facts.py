"""Test-only ways past the insert-only triggers of pit.core.immutable, never used by the product.

pytest-django empties the database after a transactional test with Django's flush (TRUNCATE on
PostgreSQL, DELETE on SQLite), which the triggers refuse; and a few tests build a record the
services never would (a hand of four cards, an old gaming day). For those only:

- PostgreSQL: `SET session_replication_role = replica` for the duration (ordinary triggers do not
  fire). Only a superuser may set it: the test database's user is one; the runtime role of a
  deployment is not, and cannot (tests/core/test_immutable.py checks that it is refused).
- SQLite: the protection triggers are dropped and created again from their own SQL afterwards.
  SQLite has no roles: whoever can write the file can drop triggers, tests or not.
"""

from contextlib import contextmanager

from django.db import connection as default_connection
from django.db import models


@contextmanager
def protection_off(connection=default_connection):
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
            try:
                yield
            finally:
                cursor.execute("RESET session_replication_role")
            return
        cursor.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s ESCAPE '!'",
            ["%!_!_immutable!_%"],
        )
        triggers = cursor.fetchall()
        for name, _ in triggers:
            cursor.execute(f'DROP TRIGGER "{name}"')
        try:
            yield
        finally:
            for _, sql in triggers:
                cursor.execute(sql)


def rewrite(queryset, **values) -> int:
    """UPDATE facts as no service may: a record the services never write, to test what reads it.

    A coup moved to another gaming day takes its wagers and their commission entries with it: they
    carry its day, the month partition key on PostgreSQL, which the database checks (pit.core.partitions)."""
    with protection_off():
        ids = list(queryset.values_list("pk", flat=True))
        count = models.QuerySet.update(queryset, **values)
        if queryset.model._meta.label == "shoes.Coup" and "gaming_day" in values:
            from pit.ledger.models import CommissionEntry
            from pit.shoes.models import Wager

            wagers = list(Wager.objects.filter(coup_id__in=ids).values_list("pk", flat=True))
            models.QuerySet.update(Wager.objects.filter(pk__in=wagers), gaming_day=values["gaming_day"])
            accruals = list(CommissionEntry.objects.filter(wager_id__in=wagers).values_list("pk", flat=True))
            models.QuerySet.update(
                CommissionEntry.objects.filter(models.Q(pk__in=accruals) | models.Q(reverses_id__in=accruals)),
                gaming_day=values["gaming_day"],
            )
        return count
