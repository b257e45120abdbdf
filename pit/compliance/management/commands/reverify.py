"""Re-verify every coup of a range of gaming days against the rules (e.g. after a rules fix)."""

import datetime as dt
import sys
import time

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from pit.compliance.checks import coups_in_range_count, coups_sweep
from pit.core.arguments import PitCommand, gaming_day
from pit.core.gaming_day import current_gaming_day


class Progress:
    """A one-line progress bar on stderr, redrawn at most a few times a second."""

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total, self.done, self.width = total, 0, width
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.drawn = 0.0

    def __call__(self, coups: int) -> None:
        self.done += coups
        now = time.monotonic()
        if now - self.drawn >= 0.2 or self.done >= self.total:
            self.drawn = now
            self.draw()

    def draw(self) -> None:
        share = self.done / self.total if self.total else 1.0
        filled = int(share * self.width)
        elapsed = max(time.monotonic() - self.started, 1e-9)
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {self.done:,}/{self.total:,} coups "
            f"{share:5.1%} {self.done / elapsed:,.0f} coups/s"
        )
        self.stream.flush()

    def close(self) -> None:
        self.draw()
        self.stream.write("\n")
        self.stream.flush()


class Command(PitCommand):
    help = (
        "Re-verify every coup dealt in a range of gaming days: record new findings once, clear those "
        "that no longer hold, restore those that hold again. Default: the last complete gaming day."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first", type=gaming_day, help="First gaming day, YYYY-MM-DD.")
        parser.add_argument("--to", dest="last", type=gaming_day, help="Last gaming day (default: --from).")
        parser.add_argument("--no-progress", action="store_true", help="No progress bar on stderr.")

    def handle(self, *args, first=None, last=None, no_progress=False, **options):
        first = first or current_gaming_day() - dt.timedelta(days=1)
        last = last or first
        if last < first:
            raise CommandError(_("--to %(last)s is before --from %(first)s") % {"last": last, "first": first})
        total = coups_in_range_count(first_day=first, last_day=last)
        progress = None if no_progress else Progress(total, stream=self.stderr._out)
        started = time.monotonic()
        totals = coups_sweep(first_day=first, last_day=last, progress=progress)
        if progress is not None:
            progress.close()
        seconds = time.monotonic() - started
        self.stdout.write(
            _(
                "Re-verified %(coups)s coups in %(shoes)s shoes (%(first)s to %(last)s) in %(seconds)ss: "
                "%(holding)s findings hold, %(created)s new, %(restored)s hold again, %(cleared)s cleared."
            )
            % {
                "coups": f"{totals.coups:,}",
                "shoes": f"{totals.shoes:,}",
                "first": first,
                "last": last,
                "seconds": f"{seconds:.1f}",
                "holding": f"{totals.holding:,}",
                "created": f"{totals.created:,}",
                "restored": f"{totals.restored:,}",
                "cleared": f"{totals.cleared:,}",
            }
        )
        for code, count in sorted(totals.codes.items()):
            self.stdout.write(f"  {code}: {count:,}")
