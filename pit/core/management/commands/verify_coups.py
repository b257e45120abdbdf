"""Verify dealt coups given as JSON lines (a file or stdin) and write one JSON result line per coup."""

import sys
from collections.abc import Iterable
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, text
from pit.game import VerifySummary, verify_json_lines


class Command(PitCommand):
    help = (
        "Read coups as JSON lines, e.g. "
        '{"player": ["5H","KD","2C"], "banker": ["9S","7D"], "reported_winner": "banker", "ref": 17}, '
        "and write one compact JSON line per coup: totals, winner, natural, pairs and rule violations. "
        'A line that cannot be read gets {"line": n, "error": ...} and the run goes on. '
        "A summary goes to stderr."
    )
    stealth_options = ("stdin",)
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "file", type=text, nargs="?", default="-", help="A JSON lines file, or - for stdin (default)."
        )

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        summary = VerifySummary()
        if file == "-":
            self._run(options.get("stdin") or sys.stdin, summary)
        else:
            try:
                # Undecodable bytes become a bad line that is reported, not a crash mid-stream.
                with open(file, encoding="utf-8", errors="replace") as stream:
                    self._run(stream, summary)
            except OSError as error:
                raise CommandError(
                    gettext("cannot read {file}: {value}").format(file=file, value=error.strerror or error)
                ) from None
        self.stderr.write(
            gettext(
                "{summary_coups} coups verified: {summary_with_violations} with rule "
                "violations ({summary_violations} in all), {summary_errors} lines "
                "could not be read."
            ).format(
                summary_coups=summary.coups,
                summary_with_violations=summary.with_violations,
                summary_violations=summary.violations,
                summary_errors=summary.errors,
            )
        )

    def _run(self, stream: Iterable[str], summary: VerifySummary) -> None:
        write = self.stdout.write
        for result in verify_json_lines(stream, summary):
            write(result)
