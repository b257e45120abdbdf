"""Create a personal API token for a staff user and print it (shown this once, stored as a hash)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.accounts.audit import audit_context
from pit.accounts.services import staff_token_create
from pit.core.arguments import PitCommand, at_least, text


class Command(PitCommand):
    help = "Create a staff user's API token and print it (Authorization: Token <token>); it expires."

    def add_arguments(self, parser):
        parser.add_argument("username", type=text)
        parser.add_argument("--name", type=text, default="", help="What the token is for, e.g. 'reporting script'.")
        parser.add_argument(
            "--days",
            type=at_least(1),
            default=None,
            help=f"Days it is valid (default and at most PIT_STAFF_TOKEN_DAYS, now {settings.PIT_STAFF_TOKEN_DAYS}).",
        )

    def handle(self, *args, username: str, name: str, days: int | None, **options):
        try:
            user = get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist:
            raise CommandError(gettext("There is no user {username!r}.").format(username=username)) from None
        try:
            with audit_context(actor="system", command="create_staff_token"):
                token, key = staff_token_create(user=user, name=name, days=days)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stderr.write(
            gettext(
                "Token {token_key_prefix} for {get_username}, valid until "
                "{token_expires_at:%Y-%m-%d %H:%M %Z}. It is shown this once; send it "
                "as 'Authorization: Token <token>':"
            ).format(
                token_key_prefix=token.key_prefix, get_username=user.get_username(), token_expires_at=token.expires_at
            )
        )
        self.stdout.write(key)
