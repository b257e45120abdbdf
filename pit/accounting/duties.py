"""Segregation of duties by person, not only by role: each step of a fill or credit slip (requested,
issued, received) is by a different person, and each signature is by the person named, who either
acts from their own session (or device) or authenticates at the same screen (their password).

Configurable where a jurisdiction allows otherwise: `PIT_SEGREGATION_OF_DUTIES` off lets one person
do several steps and sign for another (the two signers of a tray count stay two people: the database
holds that). The system itself (a simulation, a migration) acts as no person and is not judged.
"""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from pit.core.actors import Actor
from pit.core.signatures import RULE, enforced, signature_check

__all__ = ["RULE", "enforced", "signature_check", "slip_person_check"]


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
                    "signed_by": gettext(
                        "{rule}: {person} {other_step} {kind} slip {number}; another person signs it as {step}."
                    ).format(
                        rule=RULE,
                        person=person.username,
                        other_step=other_step,
                        kind=slip.kind,
                        number=slip.number,
                        step=step,
                    )
                }
            )
