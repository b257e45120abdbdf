"""Segregation of duties by person, not only by role: each step of a fill or credit slip (requested,
issued, received) is by a different person, and each signature is by the person named, who either
acts from their own session (or device) or authenticates at the same screen (their password).

Configurable where a jurisdiction allows otherwise: `PIT_SEGREGATION_OF_DUTIES` off lets one person
do several steps and sign for another (the two signers of a tray count stay two people: the database
holds that). The system itself (a simulation, a migration) acts as no person and is not judged.
"""

from collections.abc import Mapping

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from pit.core.actors import Actor

RULE = "Segregation of duties (PIT_SEGREGATION_OF_DUTIES)"


def enforced(actor: Actor) -> bool:
    return bool(settings.PIT_SEGREGATION_OF_DUTIES) and (actor.user is not None or actor.device is not None)


def signature_check(*, field: str, signer, role: str, actor: Actor, secrets: Mapping[str, str]) -> None:
    """`signer` signs as `role`: from their own session (they are the acting user), or by their
    password given at the same screen (`secrets[field]`). ValidationError names `<field>_password`."""
    if signer is None or not enforced(actor) or (actor.user is not None and actor.user.pk == signer.pk):
        return
    secret = secrets.get(field) or ""
    if not secret:
        raise ValidationError(
            {
                f"{field}_password": f"{RULE}: {signer.username} signs as {role}; they enter their password here "
                "or sign from their own login."
            }
        )
    if not signer.is_active or not signer.check_password(secret):
        raise ValidationError(
            {
                f"{field}_password": _("%(rule)s: that is not %(username)s's password.")
                % {"rule": RULE, "username": signer.username}
            }
        )


def slip_person_check(*, slip, step: str, person, actor: Actor) -> None:
    """`person` takes `step` of `slip`: refused when they took another step of it already (requested,
    issued or received), naming the rule and the step. ValidationError names `signed_by`."""
    if person is None or not enforced(actor):
        return
    people = {"requested": slip.recorded_by_user_id}
    for taken in slip.steps.all():
        people[taken.step] = taken.signed_by_id or taken.recorded_by_user_id
    for other_step, other in people.items():
        if other_step != step and other == person.pk:
            raise ValidationError(
                {
                    "signed_by": f"{RULE}: {person.username} {other_step} {slip.kind} slip {slip.number}; "
                    f"another person signs it as {step}."
                }
            )
