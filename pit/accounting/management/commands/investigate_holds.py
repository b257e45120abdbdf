"""`manage.py investigate_holds --from 2026-11-01 --to 2026-11-30`: check the complete table-days of
a range against the win-to-drop investigation rule as configured now (after a rule change, say)."""

import datetime as dt

from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from pit.accounting.services import holds_investigate
from pit.core.arguments import PitCommand, gaming_day


class Command(PitCommand):
    help = "Flag the table-days of a range whose win-to-drop is outside the investigation rule (safe to re-run)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--from", dest="date_from", type=gaming_day, required=True, help="First gaming day (YYYY-MM-DD)."
        )
        parser.add_argument(
            "--to", dest="date_to", type=gaming_day, required=True, help="Last gaming day (YYYY-MM-DD)."
        )

    def handle(self, *args, date_from: dt.date, date_to: dt.date, **options):
        start, end = date_from, date_to
        if end < start:
            raise CommandError(
                _("The range ends (%(end)s) before it starts (%(start)s).") % {"end": end, "start": start}
            )
        flagged = 0
        day = start
        while day <= end:
            flagged += holds_investigate(gaming_day=day)
            day += dt.timedelta(days=1)
        self.stdout.write(
            _("%(flagged)s table-day(s) outside the rule from %(start)s to %(end)s.")
            % {"flagged": flagged, "start": start, "end": end}
        )
