"""Two signatures by two people: each signer acts from their own session (or device) or
authenticates at the same screen (their password). Table accounting's slips and tray counts and
the progressive payouts sign this way (segregation of duties, `PIT_SEGREGATION_OF_DUTIES`)."""

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from pit.core.actors import Actor

RULE = "Segregation of duties (PIT_SEGREGATION_OF_DUTIES)"


def enforced(actor: Actor) -> bool:
    return bool(settings.PIT_SEGREGATION_OF_DUTIES) and (actor.user is not None or actor.device is not None)


def signature_check(*, field: str, signer: Any, role: str, actor: Actor, secrets: Mapping[str, str]) -> None:
    """`signer` signs as `role`: from their own session (they are the acting user), or by their
    password given at the same screen (`secrets[field]`). ValidationError names `<field>_password`."""
    if signer is None or not enforced(actor) or (actor.user is not None and actor.user.pk == signer.pk):
        return
    secret = secrets.get(field) or ""
    if not secret:
        raise ValidationError(
            {
                f"{field}_password": gettext(
                    "{rule}: {signer} signs as {role}; they enter their password here or sign from their own login."
                ).format(rule=RULE, signer=signer.username, role=role)
            }
        )
    if not signer.is_active or not signer.check_password(secret):
        raise ValidationError(
            {
                f"{field}_password": gettext("{rule}: that is not {signer}'s password.").format(
                    rule=RULE, signer=signer.username
                )
            }
        )
