"""Typed arguments of the management commands: a bad date or number is one line naming the argument
and what is wrong (exit status 2), never a traceback and never a screen of usage.

    class Command(PitCommand):
        def add_arguments(self, parser):
            parser.add_argument("--from", type=gaming_day)
            parser.add_argument("--shoes", type=at_least(1), default=1)
            parser.add_argument("--name", type=text, default="")

Every pit command is a PitCommand, and every argument it declares that takes a value is typed by
one of the readers here (registered with `argument_type`, each with a value it refuses), or the
parser is not built: tests/core/test_command_arguments.py enumerates every command and sends each
argument the value its reader refuses.
"""

import argparse
import datetime as dt
import functools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

# The options every Django command has (BaseCommand.create_parser): Django types them itself.
DJANGO_OPTIONS = frozenset(
    {"help", "version", "verbosity", "settings", "pythonpath", "traceback", "no_color", "force_color", "skip_checks"}
)

# Each reader, and a value it refuses (what the enumerating test sends).
_REFUSED: dict[Callable[[str], Any], str] = {}


def argument_type(refused: str) -> Callable[[Callable[[str], Any]], Callable[[str], Any]]:
    """Register a reader of command arguments, with a value it refuses."""

    def register(reader: Callable[[str], Any]) -> Callable[[str], Any]:
        _REFUSED[reader] = refused
        return reader

    return register


def refused_value(reader: Callable[[str], Any]) -> str | None:
    """A value this reader refuses, or None when it is not one of the readers here."""
    return _REFUSED.get(reader)


class PitCommand(BaseCommand):
    """A management command whose argument errors are one line: `manage.py reverify: error: ...`.

    Building its parser fails (TypeError) when an argument it declares takes a value and is not
    typed by a reader of this module. `inherited_arguments`: the command is Django's own with pit's
    handling (migrate); its arguments are Django's, typed by Django, and only the one-line errors apply."""

    inherited_arguments = False

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        # --help still prints the whole usage. Django builds the parser itself, so the one instance's
        # method is replaced (there is no parser class to pass).
        parser.print_usage = lambda file=None: None  # type: ignore[method-assign]
        if not self.inherited_arguments:
            for action in parser._actions:  # noqa: SLF001 - argparse lists the arguments there only
                if action.dest in DJANGO_OPTIONS or action.nargs == 0:
                    continue
                if action.type not in _REFUSED:
                    name = "/".join(action.option_strings) or action.dest
                    raise TypeError(
                        f"manage.py {subcommand}: argument {name} takes a value but has no type from pit.core.arguments"
                    )
        return parser


@argument_type(refused="2026-02-30")
def gaming_day(text: str) -> dt.date:
    """A calendar date, YYYY-MM-DD (2026-02-30 is not one)."""
    try:
        if len(text) == 10 and text.isascii():
            return dt.date.fromisoformat(text)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a calendar date (YYYY-MM-DD)")


@argument_type(refused="2026-13")
def year_month(text: str) -> dt.date:
    """A month, YYYY-MM (its first day)."""
    try:
        if len(text) == 7 and text.isascii() and text[4] == "-" and text[:4].isdigit() and text[5:].isdigit():
            return dt.date(int(text[:4]), int(text[5:]), 1)
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not a month (YYYY-MM)")


@argument_type(refused="a\x00b")
def text(value: str) -> str:
    """Free text (a name, a code, a path, a URL): any characters but control characters (a NUL byte
    is refused by PostgreSQL, a terminal's escape sequences have no place in a record)."""
    if any(ord(char) < 32 or 127 <= ord(char) < 160 for char in value):
        raise argparse.ArgumentTypeError(f"{value!r} holds a control character")
    return value


@argument_type(refused="")
def file_path(value: str) -> Path:
    """A file or directory path: not empty, no control characters."""
    if not value:
        raise argparse.ArgumentTypeError("a path is needed, not an empty string")
    return Path(text(value))


def _ascii_int(text: str) -> int:
    stripped = text.strip()
    if not stripped.isascii() or not stripped.lstrip("+-").isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(stripped)


@argument_type(refused="eight")
def integer(text: str) -> int:
    """Any whole number, in ASCII digits."""
    return _ascii_int(text)


@functools.cache  # one reader per minimum, registered once
def at_least(minimum: int) -> Callable[[str], int]:
    """A whole number, `minimum` or more."""

    def parse(text: str) -> int:
        value = _ascii_int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text!r} is below the minimum of {minimum}")
        return value

    parse.__name__ = f"whole number >= {minimum}"
    return argument_type(refused=str(minimum - 1))(parse)


@argument_type(refused="80000")
def port(text: str) -> str:
    """A TCP port, 1 to 65535 (kept as text, as runserver takes it)."""
    value = _ascii_int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1 to 65535)")
    return str(value)


@argument_type(refused="0")
def positive_seconds(text: str) -> float:
    """A duration in seconds, above zero."""
    try:
        value = float(text) if text.strip().isascii() else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return value
