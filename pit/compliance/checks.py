"""The checks run on every recorded coup, each a thin use of the game engine's rules.

`coups_check` is what the verification task and the re-verification sweep call.
"""
from django.db import transaction

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.shoes.models import Coup

DRAW_CHECK = "coup_verification"


def _draw_findings(coup: Coup) -> list[tuple[game.Violation, str]]:
    dealt = game.Coup.from_codes(player=coup.player_cards, banker=coup.banker_cards)
    findings = game.verify_coup(dealt, coup.reported_winner or None)
    return [(finding, f"{finding.code}:coup{coup.pk}") for finding in findings]


@transaction.atomic
def coups_check(*, coup_ids: list[int]) -> int:
    """Check coups and record each finding once; clear earlier findings that no longer hold.
    Returns the number of findings that hold."""
    coups = Coup.objects.filter(pk__in=coup_ids).select_related("shoe__table")
    holding = 0
    for coup in coups:
        fingerprints = set()
        for finding, fingerprint in _draw_findings(coup):
            violation_record(
                finding=finding, fingerprint=fingerprint, table=coup.shoe.table, shoe=coup.shoe, coup=coup,
                gaming_day=coup.gaming_day, found_by=DRAW_CHECK,
            )
            fingerprints.add(fingerprint)
        violations_clear_missing(
            scope=RuleViolation.objects.filter(coup=coup), found_by=DRAW_CHECK, fingerprints_found=fingerprints
        )
        holding += len(fingerprints)
    return holding
