"""Roll up every complete gaming day of a range again from the detail (after an import, a restore, or
to cover days older than the beat catch-up's window)."""

import datetime as dt
import time

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

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
            raise CommandError(_("--to %(last)s is before --from %(first)s") % {"last": last, "first": first})
        started = time.monotonic()
        counts = rollups_rebuild(date_from=first, date_to=last)
        self.stdout.write(
            _("Rolled up %(days)s gaming days (%(table_days)s table-days) from %(first)s to %(last)s in %(seconds)ss.")
            % {
                "days": f"{counts['days']:,}",
                "table_days": f"{counts['table_days']:,}",
                "first": first,
                "last": min(last, current_gaming_day() - dt.timedelta(days=1)),
                "seconds": f"{time.monotonic() - started:.1f}",
            }
        )
