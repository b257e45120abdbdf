"""Create a table playing a paytable, for operators setting up a pit without a shell."""

import argparse
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, argument_type, text
from pit.core.errors import validation_message
from pit.paytables.models import PaytableConfiguration
from pit.tables.models import Game
from pit.tables.services import table_create, table_open


@argument_type(refused="1,two")
def _seats(text: str) -> list[int]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if parts and all(part.isascii() and part.isdigit() for part in parts):
        return [int(part) for part in parts]
    raise argparse.ArgumentTypeError(f"{text!r} is not a list of seat numbers, e.g. 1,2,3,5,6,7")


@argument_type(refused="banker=25")
def _limit(text: str) -> tuple[str, tuple[Decimal, Decimal]]:
    bet, _, amounts = text.partition("=")
    minimum, _, maximum = amounts.partition(":")
    try:
        if not bet or not (minimum.isascii() and maximum.isascii()):
            raise InvalidOperation
        return bet.strip(), (Decimal(minimum), Decimal(maximum))
    except InvalidOperation:
        raise argparse.ArgumentTypeError(f"{text!r} is not BET=MIN:MAX, e.g. banker=25:5000") from None


class Command(PitCommand):
    help = "Create a table under the current version of a paytable (and open it with --open)."

    def add_arguments(self, parser):
        parser.add_argument("--code", type=text, required=True, help="Table code, e.g. BB1.")
        parser.add_argument("--game", type=text, required=True, choices=Game.values)
        parser.add_argument("--paytable", type=text, required=True, help="Paytable code (its current version is used).")
        parser.add_argument("--name", type=text, default="", help="A name pit bosses read (default: the code).")
        parser.add_argument(
            "--seats", type=_seats, default=None, help="Seat numbers, e.g. 1,2,3,5,6,7 (default: the game's layout)."
        )
        parser.add_argument("--currency", type=text, default="", help="ISO 4217 code (default: PIT_DEFAULT_CURRENCY).")
        parser.add_argument("--squeeze", action="store_true", help="Cards are squeezed at this table.")
        parser.add_argument(
            "--limit",
            type=_limit,
            action="append",
            default=[],
            metavar="BET=MIN:MAX",
            help="A bet's table limits in the table's currency, e.g. banker=25:5000 (repeat for each bet).",
        )
        parser.add_argument("--open", action="store_true", help="Open the table once created.")

    def handle(self, *args, code, game, paytable, name, seats, currency, squeeze, limit, open, **options):
        configuration = (
            PaytableConfiguration.objects.filter(code=paytable, superseded_by__isnull=True).order_by("-version").first()
        )
        if configuration is None:
            known = (
                ", ".join(PaytableConfiguration.objects.order_by("code").values_list("code", flat=True).distinct())
                or "none yet: create one with `manage.py create_paytable --preset ...`"
            )
            raise CommandError(
                gettext("--paytable: there is no paytable {paytable!r} (known: {known}).").format(
                    paytable=paytable, known=known
                )
            )
        try:
            table = table_create(
                code=code,
                name=name or code,
                game=game,
                paytable=configuration,
                seats=seats,
                squeeze=squeeze,
                currency=currency or None,
                limits=dict(limit) or None,
            )
            if open:
                table = table_open(table=table)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        self.stderr.write(
            gettext(
                "Table {table_code} ({get_game_display}, seats {names}) plays "
                "{configuration_code} v{configuration_version}; it is {lower}."
            ).format(
                table_code=table.code,
                get_game_display=table.get_game_display(),
                names=", ".join(map(str, table.seats)),
                configuration_code=configuration.code,
                configuration_version=configuration.version,
                lower=table.get_status_display().lower(),
            )
        )
        self.stdout.write(table.code)
