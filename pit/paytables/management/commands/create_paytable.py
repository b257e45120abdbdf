"""Create a paytable from one of the engine's presets, for operators setting up a pit without a shell."""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit import game
from pit.core.arguments import PitCommand, text
from pit.core.errors import validation_message
from pit.paytables.services import paytable_create_from_preset


class Command(PitCommand):
    help = "Create a paytable (version 1 of a new family) from a preset of the game engine."

    def add_arguments(self, parser):
        parser.add_argument(
            "--preset",
            type=text,
            required=True,
            help=f"One of: {', '.join(sorted(game.PRESETS))}.",
        )
        parser.add_argument(
            "--code", type=text, default="", help="The family's code (default: the preset's, with dashes)."
        )
        parser.add_argument("--name", type=text, default="", help="A name pit bosses read (default: the preset's).")

    def handle(self, *args, preset: str, code: str, name: str, **options):
        try:
            paytable = paytable_create_from_preset(preset=preset, code=code, name=name)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        self.stderr.write(
            gettext("Paytable {paytable_code!r} version {paytable_version} ({paytable_name}) created:").format(
                paytable_code=paytable.code, paytable_version=paytable.version, paytable_name=paytable.name
            )
        )
        self.stdout.write(paytable.code)
