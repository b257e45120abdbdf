"""Append the chain heads of gaming days, signed, to the heads files of PIT_RECORDS_ANCHOR_DIR."""

import datetime as dt

from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, gaming_day
from pit.records.anchors import AnchorError, anchor_dir, heads_anchor


class Command(PitCommand):
    help = (
        "Append each gaming day's chain heads as a signed line (HMAC-SHA256, PIT_RECORDS_SIGNING_KEY) to "
        "PIT_RECORDS_ANCHOR_DIR/heads-YYYY-MM-DD.jsonl: by default what beat does every 10 minutes (the open "
        "day's heads as they stand, and the final heads of the PIT_RECORDS_ANCHOR_DAYS ended days before it), "
        "or the days --from .. --to (ended days final). A day whose heads did not move since its last line gets "
        "none. Never rewrites a file."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first_day", type=gaming_day, help="first gaming day, YYYY-MM-DD")
        parser.add_argument(
            "--to", dest="last_day", type=gaming_day, help="last gaming day, YYYY-MM-DD (default --from)"
        )

    def handle(self, *args, first_day=None, last_day=None, **options):
        days = None
        if first_day:
            last_day = last_day or first_day
            if last_day < first_day:
                raise CommandError(gettext("--to comes before --from"))
            days = [first_day + dt.timedelta(days=n) for n in range((last_day - first_day).days + 1)]
        try:
            written = heads_anchor(days=days)
        except AnchorError as exc:
            raise CommandError(gettext("no heads anchored: {exc}").format(exc=exc)) from None
        except OSError as exc:
            raise CommandError(
                gettext("no heads anchored: {anchor_dir}: {exc_strerror}").format(
                    anchor_dir=anchor_dir(), exc_strerror=exc.strerror
                )
            ) from None
        for entry in written:
            self.stdout.write(
                gettext("{entry_gaming_day} {entry_state}: {entry_shoes} shoes -> {entry_path}").format(
                    entry_gaming_day=entry.gaming_day,
                    entry_state=entry.state,
                    entry_shoes=entry.shoes,
                    entry_path=entry.path,
                )
            )
        if not written:
            self.stdout.write(gettext("no heads moved since their last entry"))
