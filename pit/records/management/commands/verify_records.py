"""Recompute the hash chains of a range of gaming days and report the first break of each shoe."""

import datetime as dt
import time

from django.core.management.base import CommandError

from pit.core.arguments import PitCommand, gaming_day
from pit.core.gaming_day import current_gaming_day
from pit.records.selectors import chains_verify, shoe_ids_for_days


class Command(PitCommand):
    help = (
        "Recompute the hash chains of the shoes of a range of gaming days (--from, --to; default the last "
        "complete day) and report, per shoe, the first row that does not match and what differs. Exits 1 "
        "when any chain is broken. Reads only."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first_day", type=gaming_day, help="first gaming day, YYYY-MM-DD")
        parser.add_argument(
            "--to", dest="last_day", type=gaming_day, help="last gaming day, YYYY-MM-DD (default --from)"
        )

    def handle(self, *args, first_day=None, last_day=None, **options):
        first_day = first_day or current_gaming_day() - dt.timedelta(days=1)
        last_day = last_day or first_day
        if last_day < first_day:
            raise CommandError("--to comes before --from")
        started = time.monotonic()
        result = chains_verify(shoe_ids=shoe_ids_for_days(first_day=first_day, last_day=last_day))
        elapsed = time.monotonic() - started
        for found in result.breaks:
            self.stderr.write(f"BROKEN {found}")
        summary = (
            f"{first_day} to {last_day}: {result.shoes} shoes, {result.rows} rows verified in {elapsed:.2f} s; "
            f"{len(result.breaks)} broken chains"
        )
        if result.breaks:
            raise CommandError(summary, returncode=1)
        self.stdout.write(f"OK {summary}")
