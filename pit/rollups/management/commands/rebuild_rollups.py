"""Roll up every complete gaming day of a range again from the detail (after an import, a restore, or
to cover days older than the beat catch-up's window)."""

import datetime as dt
import time

from django.core.management.base import CommandError

from pit.core.arguments import PitCommand, gaming_day
from pit.core.gaming_day import current_gaming_day
from pit.rollups.services import rollups_rebuild


class Command(PitCommand):
    help = (
        "Rebuild the daily rollups of a range of gaming days from the detail (complete days only; the "
        "live day is always read from the detail). Default: the last complete gaming day."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first", type=gaming_day, help="First gaming day, YYYY-MM-DD.")
        parser.add_argument("--to", dest="last", type=gaming_day, help="Last gaming day (default: --from).")

    def handle(self, *args, first=None, last=None, **options):
        first = first or current_gaming_day() - dt.timedelta(days=1)
        last = last or first
        if last < first:
            raise CommandError(f"--to {last} is before --from {first}")
        started = time.monotonic()
        counts = rollups_rebuild(date_from=first, date_to=last)
        self.stdout.write(
            f"Rolled up {counts['days']:,} gaming days ({counts['table_days']:,} table-days) from {first} to "
            f"{min(last, current_gaming_day() - dt.timedelta(days=1))} in {time.monotonic() - started:.1f}s."
        )
