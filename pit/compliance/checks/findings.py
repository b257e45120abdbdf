"""What the rule checks find, and a chunk's findings written as the difference from those recorded."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violations_clear_missing

COUP_CHECK = "coup_verification"


@dataclass(frozen=True, slots=True)
class Finding:
    fingerprint: str
    violation: game.Violation
    coup_id: int
    wager_id: int | None = None
    seat: int | None = None


@dataclass
class CheckTotals:
    """What a check run saw and changed."""

    shoes: int = 0
    coups: int = 0
    holding: int = 0
    created: int = 0
    restored: int = 0
    cleared: int = 0
    codes: Counter = field(default_factory=Counter)

    def add(self, other: CheckTotals) -> None:
        self.shoes += other.shoes
        self.coups += other.coups
        self.holding += other.holding
        self.created += other.created
        self.restored += other.restored
        self.cleared += other.cleared
        self.codes.update(other.codes)


def findings_write(found: dict[str, tuple[Finding, dict]], earlier: dict, selected_ids: set[int], *, shoes: int):
    """Write the difference between what holds now and what was recorded before."""
    totals = CheckTotals(shoes=shoes, coups=len(selected_ids), holding=len(found))
    new, restored, reworded = [], [], []
    for fingerprint, (finding, where) in found.items():
        totals.codes[finding.violation.code] += 1
        recorded = earlier.get(fingerprint)
        if recorded is None:
            violation = finding.violation
            new.append(
                RuleViolation(
                    code=violation.code,
                    message=violation.message,
                    severity=violation.severity,
                    fingerprint=fingerprint,
                    coup_id=finding.coup_id,
                    wager_id=finding.wager_id,
                    seat=finding.seat,
                    found_by=COUP_CHECK,
                    **where,
                )
            )
            continue
        pk, _, cleared_at, message = recorded
        if cleared_at is not None:
            restored.append(pk)
        if message != finding.violation.message:
            reworded.append(RuleViolation(pk=pk, message=finding.violation.message))
    stale = [
        pk
        for fingerprint, (pk, coup_id, cleared_at, _) in earlier.items()
        if coup_id in selected_ids and cleared_at is None and fingerprint not in found
    ]
    if new:
        # A concurrent check of the same coup may have recorded one meanwhile: the unique fingerprint holds.
        RuleViolation.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
        totals.created = len(new)
    if restored:
        totals.restored = RuleViolation.objects.filter(pk__in=restored).update(cleared_at=None)
    if reworded:
        RuleViolation.objects.bulk_update(reworded, ["message"], batch_size=500)
    if stale:
        totals.cleared = violations_clear_missing(
            scope=RuleViolation.objects.filter(pk__in=stale), found_by=COUP_CHECK, fingerprints_found=set()
        )
    return totals
