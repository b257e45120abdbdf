"""`manage.py controls_check --from 2026-11-01 --to 2026-11-30`: run the checks of the pit's
internal controls (cards, keys, handovers) for each gaming day of a range (safe to re-run)."""

import datetime as dt

from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.controls.checks import controls_check
from pit.core.arguments import PitCommand, gaming_day


class Command(PitCommand):
    help = "Check the card control, the sensitive keys and the shift handovers of a range of gaming days."

    def add_arguments(self, parser):
        parser.add_argument(
            "--from", dest="date_from", type=gaming_day, required=True, help="First gaming day (YYYY-MM-DD)."
        )
        parser.add_argument(
            "--to", dest="date_to", type=gaming_day, required=True, help="Last gaming day (YYYY-MM-DD)."
        )

    def handle(self, *args, date_from: dt.date, date_to: dt.date, **options):
        if date_to < date_from:
            raise CommandError(
                gettext("The range ends ({date_to}) before it starts ({date_from}).").format(
                    date_to=date_to, date_from=date_from
                )
            )
        day = date_from
        while day <= date_to:
            held = controls_check(gaming_day=day)
            self.stdout.write(f"{day}: " + ", ".join(f"{name} {count}" for name, count in held.items()))
            day += dt.timedelta(days=1)
