"""Recompute the hash chains of a range of gaming days and report the first break of each shoe;
with --against, hold them to heads anchored outside the database too."""

import datetime as dt
import time

from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, file_path, gaming_day
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.records.anchors import AnchorError, anchors_check, anchors_read
from pit.records.selectors import chains_verify, shoe_ids_for_days, streams_verify
from pit.records.services import streams_seal

# Exit codes: 0 every chain holds (and reaches every anchor), 1 a finding (one line each on stderr),
# 2 an anchor file refused (its signature does not match, a line removed, not a heads file).
REFUSED = 2


class Command(PitCommand):
    help = (
        "Recompute the hash chains of the shoes of a range of gaming days (--from, --to; default the last "
        "complete day) and report, per shoe, the first row that does not match and what differs; then every "
        "other fact stream's links sealed in those days, each row never linked, and (PostgreSQL) each row "
        "changed around the audit trail. With --against FILE (a heads file or their directory, or the "
        "commission report's JSON or XLSX export with its .sig), the shoes the file anchors are verified too "
        "and each chain must reach the anchored hash at the anchored position: a rewrite re-hashed up to the "
        "chain head shows there; so must each stream's link a heads file anchors (a stream re-linked shows). "
        "Seals the streams first (--no-seal: reads only); verifies in one snapshot. "
        "Exits 1 when anything is broken or misses an anchor, 2 when a file is refused (a bad signature)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--from", dest="first_day", type=gaming_day, help="first gaming day, YYYY-MM-DD")
        parser.add_argument(
            "--to", dest="last_day", type=gaming_day, help="last gaming day, YYYY-MM-DD (default --from)"
        )
        parser.add_argument(
            "--against",
            action="append",
            type=file_path,
            default=[],
            metavar="FILE",
            help="a signed heads file, a directory of them (PIT_RECORDS_ANCHOR_DIR) or a signed commission report "
            "export (JSON or XLSX, with FILE.sig); repeatable. Without --from, only the shoes it anchors are verified",
        )
        parser.add_argument(
            "--unsigned",
            action="store_true",
            help="accept an export with no signature file (a copy whose integrity is vouched for outside pit)",
        )
        parser.add_argument("--no-seal", action="store_true", help="do not seal the streams first: reads only")

    def handle(self, *args, first_day=None, last_day=None, against=(), unsigned=False, no_seal=False, **options):
        if last_day and not first_day:
            raise CommandError(gettext("--to needs --from"))
        if not against or first_day:
            first_day = first_day or current_gaming_day() - dt.timedelta(days=1)
            last_day = last_day or first_day
            if last_day < first_day:
                raise CommandError(gettext("--to comes before --from"))
        started = time.monotonic()
        if not no_seal:
            streams_seal()
        shoe_ids = shoe_ids_for_days(first_day=first_day, last_day=last_day) if first_day else []
        if against:
            anchors = []
            for path in against:
                try:
                    anchors += anchors_read(path, unsigned=unsigned)
                except AnchorError as exc:
                    raise CommandError(gettext("REFUSED {exc}").format(exc=exc), returncode=REFUSED) from None
            check = anchors_check(anchors, shoe_ids=shoe_ids)
            result, findings = check.verification, check.findings
        else:
            result, findings = chains_verify(shoe_ids=shoe_ids), []
        if first_day:
            streams = streams_verify(since=gaming_day_bounds(first_day)[0], until=gaming_day_bounds(last_day)[1])
            stream_breaks = streams.breaks
        else:
            stream_breaks = []
        elapsed = time.monotonic() - started
        for found in result.breaks:
            self.stderr.write(gettext("BROKEN {found}").format(found=found))
        for stream_break in stream_breaks:
            self.stderr.write(gettext("BROKEN {stream_break}").format(stream_break=stream_break))
        for finding in findings:
            self.stderr.write(gettext("TAMPERED {finding}").format(finding=finding))
        scope = f"{first_day} to {last_day}" if first_day else "anchored shoes"
        summary = f"{scope}: {result.shoes} shoes, {result.rows} rows verified in {elapsed:.2f} s"
        if result.archived:
            months = sorted({month for shoe_months in result.archived.values() for month in shoe_months})
            summary += (
                f" ({len(result.archived)} shoes with rows archived in {', '.join(months)}: read from the heads "
                "their archives kept, verified when they were archived)"
            )
        if against:
            summary += f"; {check.anchors} anchors ({check.streams} streams) from {len(against)} files"
            if check.archived:
                summary += f" ({len(check.archived)} inside archived rows, verified when they were archived)"
        summary += f"; {len(result.breaks)} broken chains"
        if against:
            summary += f", {len(findings)} anchors not reached"
        if first_day:
            summary += f"; {streams.streams} streams, {streams.rows} rows, {len(stream_breaks)} broken"
        if result.breaks or findings or stream_breaks:
            raise CommandError(summary, returncode=1)
        self.stdout.write(gettext("OK {summary}").format(summary=summary))
