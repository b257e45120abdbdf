"""PostgreSQL: the coups, wagers and commission entries partitioned by month of gaming day, the
checks of the keys into them and the partitions' ensure function, frozen as SQL beside this file
(`0002_partitioned_by_month.postgresql.sql`, which says what it makes and why); then the month
partitions from last month to PIT_PARTITION_MONTHS_AHEAD months ahead, made by that function (as
the beat task `archive.partitions_ensure` makes them later). SQLite keeps plain tables: nothing
runs there. Not reversible on PostgreSQL (a partitioned table is not turned back into a plain one)."""

import datetime as dt
from pathlib import Path

from django.conf import settings
from django.db import migrations
from django.db.migrations.exceptions import IrreversibleError
from django.utils import timezone

SQL = Path(__file__).with_name(f"{Path(__file__).stem}.postgresql.sql")


def _month(day: dt.date, count: int) -> dt.date:
    """The first day of the month `count` months after `day`'s."""
    year, index = divmod(day.year * 12 + day.month - 1 + count, 12)
    return dt.date(year, index + 1, 1)


def partition(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    for statement in connection.ops.prepare_sql_script(SQL.read_text()):
        schema_editor.execute(statement, params=None)
    now = timezone.localtime()  # the gaming day starts at PIT_GAMING_DAY_START_HOUR, local time
    today = now.date() - dt.timedelta(days=1 if now.hour < settings.PIT_GAMING_DAY_START_HOUR else 0)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pit_partitions_ensure(%s, %s)",
            [_month(today, -1), _month(today, settings.PIT_PARTITION_MONTHS_AHEAD)],
        )


def irreversible(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        raise IrreversibleError("the coups, wagers and commission entries stay partitioned")


class Migration(migrations.Migration):
    dependencies = [
        ("archive", "0001_initial"),
        ("core", "0002_facts_insert_only"),
    ]

    operations = [migrations.RunPython(partition, irreversible, elidable=False)]
