"""Recompute the hash chains of a range of gaming days and report the first break of each shoe."""

import datetime as dt
import time

from django.core.management.base import BaseCommand, CommandError

from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.records.selectors import chains_verify, shoe_ids_for_days, streams_verify
from pit.records.services import streams_seal


def _day(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a gaming day (YYYY-MM-DD)") from None


class Command(BaseCommand):
    help = (
        "Recompute the hash chains of the shoes of a range of gaming days (--from, --to; default the last "
        "complete day) and report, per shoe, the first row that does not match and what differs; then every "
        "other fact stream's links sealed in those days, each row never linked, and (PostgreSQL) each row "
        "changed around the audit trail. Seals the streams first (--no-seal: reads only). Exits 1 when "
        "anything is broken."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first_day", type=_day, help="first gaming day, YYYY-MM-DD")
        parser.add_argument("--to", dest="last_day", type=_day, help="last gaming day, YYYY-MM-DD (default --from)")
        parser.add_argument("--no-seal", action="store_true", help="do not seal the streams first: reads only")

    def handle(self, *args, first_day=None, last_day=None, no_seal=False, **options):
        first_day = first_day or current_gaming_day() - dt.timedelta(days=1)
        last_day = last_day or first_day
        if last_day < first_day:
            raise CommandError("--to comes before --from")
        started = time.monotonic()
        if not no_seal:
            streams_seal()
        result = chains_verify(shoe_ids=shoe_ids_for_days(first_day=first_day, last_day=last_day))
        streams = streams_verify(since=gaming_day_bounds(first_day)[0], until=gaming_day_bounds(last_day)[1])
        elapsed = time.monotonic() - started
        for found in result.breaks:
            self.stderr.write(f"BROKEN {found}")
        for stream_break in streams.breaks:
            self.stderr.write(f"BROKEN {stream_break}")
        summary = (
            f"{first_day} to {last_day}: {result.shoes} shoes, {result.rows} rows verified in {elapsed:.2f} s; "
            f"{len(result.breaks)} broken chains; {streams.streams} streams, {streams.rows} rows, "
            f"{len(streams.breaks)} broken"
        )
        if result.breaks or streams.breaks:
            raise CommandError(summary, returncode=1)
        self.stdout.write(f"OK {summary}")
