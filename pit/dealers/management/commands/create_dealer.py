"""Add a dealer to the roster (their badge number and name), for operators without a shell."""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, text
from pit.core.errors import validation_message
from pit.dealers.services import dealer_create


class Command(PitCommand):
    help = "Add a dealer to the roster: their badge number (--code D042) and name. Prints the code."

    def add_arguments(self, parser):
        parser.add_argument("--code", required=True, type=text, help="The dealer's badge number, e.g. D042.")
        parser.add_argument("--name", required=True, type=text, help="The dealer's name as the pit knows it.")

    def handle(self, *args, code: str, name: str, **options):
        try:
            dealer = dealer_create(code=code, name=name)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        self.stderr.write(
            gettext("Dealer {code} ({name}) added to the roster.").format(code=dealer.code, name=dealer.name)
        )
        self.stdout.write(dealer.code)
