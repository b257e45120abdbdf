"""Archive a month of gaming days past the retention window: COPY to files, verify, detach (PostgreSQL)."""

import getpass

from django.core.management.base import CommandError
from django.db import DatabaseError
from django.utils.translation import gettext

from pit.archive.services import ArchiveRefused, month_archive, month_archive_drop, month_archive_summary
from pit.core.arguments import PitCommand, year_month


class Command(PitCommand):
    help = (
        "PostgreSQL: archive the month YYYY-MM of coups, wagers and commission entries, once it is older "
        "than PIT_RETENTION_MONTHS and none of its shoes is still dealing: each partition is COPied to a "
        "CSV file under PIT_ARCHIVE_DIR/YYYY-MM with a manifest (rows, SHA-256), the files are read back "
        "and checked, then the partitions are detached (kept as insert-only tables) and the step is "
        "recorded. With --drop, a month archived before: its files are checked again, then the detached "
        "tables are dropped. Nothing is ever dropped without --drop. Run it as the schema's owner "
        "(DATABASE_URL=$DATABASE_MIGRATE_URL): the runtime role may not detach or drop."
    )

    def add_arguments(self, parser):
        parser.add_argument("month", type=year_month, help="YYYY-MM")
        parser.add_argument(
            "--drop",
            action="store_true",
            help="drop the detached tables of a month archived before (after verifying its files)",
        )

    def handle(self, *args, month, drop=False, **options):
        operator = getpass.getuser()
        try:
            if drop:
                archive = month_archive_drop(month=month, operator=operator)
            else:
                archive = month_archive(month=month, operator=operator)
        except ArchiveRefused as exc:
            raise CommandError(gettext("{month:%Y-%m} not archived: {exc}").format(month=month, exc=exc)) from None
        except DatabaseError as exc:
            raise CommandError(f"{month:%Y-%m} not archived (nothing changed): {exc}".strip()) from None
        self.stdout.write(f"{month:%Y-%m} {archive.get_action_display().lower()}: {archive.directory}")
        self.stdout.write(month_archive_summary(archive), ending="")
