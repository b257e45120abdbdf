"""Make the month partitions of coups, wagers and commission entries ahead (what beat does nightly)."""
from django.core.management.base import CommandError
from django.db import connection

from pit.archive.services import partitions_ensure
from pit.core.arguments import PitCommand, at_least


class Command(PitCommand):
    help = ("PostgreSQL: make the month partitions of this month and --months after it where missing "
            "(default PIT_PARTITION_MONTHS_AHEAD), and report months whose rows are held by a DEFAULT "
            "partition (exit 1 then). Safe to run again.")

    def add_arguments(self, parser):
        parser.add_argument("--months", type=at_least(0), default=None, help="months ahead of this one")

    def handle(self, *args, months=None, **options):
        if connection.vendor != "postgresql":
            self.stdout.write("SQLite keeps plain tables: nothing to partition")
            return
        result = partitions_ensure(months_ahead=months)
        for name in result.created:
            self.stdout.write(f"created {name}")
        if not result.created:
            self.stdout.write("every partition exists already")
        if result.held_by_default:
            held = "; ".join(f"{table}: {', '.join(months)}" for table, months in result.held_by_default.items())
            raise CommandError(f"rows held by the DEFAULT partition (no partition of their month): {held}")
