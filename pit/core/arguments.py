"""Typed arguments of the management commands: a bad date or number is one line naming the argument
and what is wrong (exit status 2), never a traceback and never a screen of usage.

    class Command(PitCommand):
        def add_arguments(self, parser):
            parser.add_argument("--from", type=gaming_day)
            parser.add_argument("--shoes", type=at_least(1), default=1)
"""

import argparse
import datetime as dt
import math
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class PitCommand(BaseCommand):
    """A management command whose argument errors are one line: `manage.py reverify: error: ...`."""

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        # --help still prints the whole usage. Django builds the parser itself, so the one instance's
        # method is replaced (there is no parser class to pass).
        parser.print_usage = lambda file=None: None  # type: ignore[method-assign]
        return parser


def gaming_day(text: str) -> dt.date:
    """A calendar date, YYYY-MM-DD (2026-02-30 is not one)."""
    try:
        if len(text) == 10 and text.isascii():
            return dt.date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a calendar date (YYYY-MM-DD)")


def _ascii_int(text: str) -> int:
    stripped = text.strip()
    if not stripped.isascii() or not stripped.lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(stripped)


def integer(text: str) -> int:
    """Any whole number, in ASCII digits."""
    return _ascii_int(text)


def at_least(minimum: int) -> Callable[[str], int]:
    """A whole number, `minimum` or more."""

    def parse(text: str) -> int:
        value = _ascii_int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} is below the minimum of {minimum}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return parse


def port(text: str) -> str:
    """A TCP port, 1 to 65535 (kept as text, as runserver takes it)."""
    value = _ascii_int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1 to 65535)")
    return str(value)


def positive_seconds(text: str) -> float:
    """A duration in seconds, above zero."""
    try:
        value = float(text) if text.strip().isascii() else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value
