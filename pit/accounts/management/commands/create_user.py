"""Create a staff user with one role (pit boss, accountant, auditor), for operators without a shell."""

import getpass
import os
import sys

from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.core.arguments import PitCommand, text
from pit.core.errors import validation_message

PASSWORD_ENV = "PIT_NEW_USER_PASSWORD"
STAFF_ROLES = [role for role in Role.values if role != Role.FLOOR_DEVICE]


class Command(PitCommand):
    help = (
        "Create a staff user who signs in to the admin with one role. The password is asked for at the "
        f"terminal, or read from {PASSWORD_ENV} (never from the command line, where `ps` would show it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", type=text, required=True)
        parser.add_argument(
            "--role", type=text, required=True, choices=STAFF_ROLES, help="Quote it: --role 'pit boss'."
        )
        parser.add_argument("--email", type=text, default="")

    def handle(self, *args, username: str, role: str, email: str, **options):
        if get_user_model().objects.filter(username=username).exists():
            raise CommandError(gettext("--username: a user {username!r} exists already.").format(username=username))
        password = self._password()
        try:
            password_validation.validate_password(password, get_user_model()(username=username, email=email))
            user = user_create_with_role(username=username, password=password, role=role, email=email)
        except ValidationError as exc:
            raise CommandError(validation_message(exc)) from None
        self.stderr.write(
            gettext("User {user_username!r} created with the role {role!r}; they sign in at /admin/.").format(
                user_username=user.username, role=role
            )
        )
        self.stdout.write(user.username)

    def _password(self) -> str:
        password = os.environ.get(PASSWORD_ENV)
        if password:
            return password
        if not sys.stdin.isatty():
            raise CommandError(
                gettext("No password: run it at a terminal to be asked, or set {password_env}.").format(
                    password_env=PASSWORD_ENV
                )
            )
        password = getpass.getpass("Password: ")
        if password != getpass.getpass("Password (again): "):
            raise CommandError(gettext("The two passwords differ."))
        return password
