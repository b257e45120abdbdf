"""Make the month partitions of coups, wagers and commission entries ahead (what beat does nightly)."""

from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.archive.services import partitions_ensure
from pit.core.arguments import PitCommand, at_least
from pit.core.db import is_postgresql


class Command(PitCommand):
    help = (
        "PostgreSQL: make the month partitions of this month and --months after it where missing "
        "(default PIT_PARTITION_MONTHS_AHEAD); rows held by a DEFAULT partition are moved into partitions "
        "of their months, made for them. A month that cannot be (an archived month's detached table is "
        "still there) is reported, exit 1. Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--months", type=at_least(0), default=None, help="months ahead of this one")

    def handle(self, *args, months=None, **options):
        if not is_postgresql():
            self.stdout.write(gettext("SQLite keeps plain tables: nothing to partition"))
            return
        result = partitions_ensure(months_ahead=months)
        for name in result.created:
            self.stdout.write(gettext("created {name}").format(name=name))
        for table, rows in result.moved.items():
            self.stdout.write(
                gettext("moved {rows} rows of {table} out of its DEFAULT partition").format(rows=rows, table=table)
            )
        if not result.created:
            self.stdout.write(gettext("every partition exists already"))
        if result.held_by_default:
            held = "; ".join(f"{table}: {', '.join(months)}" for table, months in result.held_by_default.items())
            raise CommandError(
                gettext("rows held by the DEFAULT partition (their month's partition name is taken): {held}").format(
                    held=held
                )
            )
