"""Writes to rule violations: recording a finding once, clearing one that no longer holds, and
the pit boss's review (acknowledge, resolve, dismiss), each with a required note."""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from pit import game
from pit.compliance.models import RuleViolation, ViolationStatus
from pit.compliance.selectors import shoes_quarantined


def violation_record(
    *,
    finding: game.Violation,
    fingerprint: str,
    table,
    gaming_day,
    found_by: str,
    shoe=None,
    coup=None,
    wager=None,
    seat: int | None = None,
) -> RuleViolation:
    """Record a finding once: the same fingerprint again returns the recorded violation (and marks it
    as holding again if a re-check had cleared it)."""
    existing = RuleViolation.objects.filter(fingerprint=fingerprint).first()
    if existing is None:
        try:
            with transaction.atomic():
                return RuleViolation.objects.create(
                    code=finding.code,
                    message=finding.message,
                    severity=finding.severity,
                    fingerprint=fingerprint,
                    table=table,
                    shoe=shoe,
                    coup=coup,
                    wager=wager,
                    seat=seat,
                    gaming_day=gaming_day,
                    found_by=found_by,
                )
        except IntegrityError:  # recorded meanwhile by a concurrent check: the unique fingerprint held
            existing = RuleViolation.objects.get(fingerprint=fingerprint)
    if existing.cleared_at is not None:
        existing.cleared_at = None
        existing.save(update_fields=["cleared_at"])
    return existing


def violations_clear_missing(*, scope, found_by: str, fingerprints_found: set[str]) -> int:
    """Mark as cleared the findings of `found_by` within `scope` (a queryset) that a re-check no
    longer finds; they are never deleted. Returns how many were cleared."""
    stale = scope.filter(found_by=found_by, cleared_at__isnull=True).exclude(fingerprint__in=fingerprints_found)
    return stale.update(cleared_at=timezone.now())


# status -> the statuses a violation may be marked it from; by value, as a review names its status.
_REVIEW_TRANSITIONS: dict[str, set[str]] = {
    ViolationStatus.ACKNOWLEDGED: {ViolationStatus.OPEN},
    ViolationStatus.RESOLVED: {ViolationStatus.OPEN, ViolationStatus.ACKNOWLEDGED},
    ViolationStatus.DISMISSED: {ViolationStatus.OPEN, ViolationStatus.ACKNOWLEDGED},
}


@transaction.atomic
def _violation_review(*, violation: RuleViolation, status: str, user, note: str) -> RuleViolation:
    if not (note or "").strip():
        raise ValidationError({"note": _("A note is required: say what was done or why.")})
    violation = RuleViolation.objects.select_for_update().get(pk=violation.pk)
    if violation.status not in _REVIEW_TRANSITIONS[status]:
        raise ValidationError(
            {
                "status": _("A violation that is %(now)s cannot be marked %(status)s.")
                % {"now": violation.get_status_display().lower(), "status": ViolationStatus(status).label.lower()}
            }
        )
    violation.status = status
    violation.status_note = note.strip()
    violation.status_changed_by = user
    violation.status_changed_at = timezone.now()
    violation.full_clean()
    violation.save(update_fields=["status", "status_note", "status_changed_by", "status_changed_at"])
    return violation


def violation_acknowledge(*, violation: RuleViolation, user, note: str) -> RuleViolation:
    return _violation_review(violation=violation, status=ViolationStatus.ACKNOWLEDGED, user=user, note=note)


def violation_resolve(*, violation: RuleViolation, user, note: str) -> RuleViolation:
    return _violation_review(violation=violation, status=ViolationStatus.RESOLVED, user=user, note=note)


def violation_dismiss(*, violation: RuleViolation, user, note: str) -> RuleViolation:
    return _violation_review(violation=violation, status=ViolationStatus.DISMISSED, user=user, note=note)


def quarantine_hold(*, shoe_ids, derived: str, what: str, table, gaming_day, shoe=None) -> RuleViolation | None:
    """If a shoe among `shoe_ids` is quarantined (pit.compliance.selectors.shoes_quarantined), record
    once per break that `derived` (its `what`, in words) was not computed, naming the quarantine, and
    return the violation that holds it; None: nothing is quarantined, derive away."""
    quarantined = shoes_quarantined(shoe_ids)
    if not quarantined:
        return None
    shoe_id, holding = min(quarantined.items())
    finding = game.violation(
        "derivation_quarantined",
        f"{what} was not derived: shoe {holding.shoe} is quarantined, its record chain is broken (violation "
        f"{holding.pk}). Nothing is derived from it until a person resolves or dismisses that violation.",
    )
    violation_record(
        finding=finding,
        fingerprint=f"quarantine:{derived}:{table.pk}:{gaming_day}:shoe{shoe_id}:{holding.pk}",
        table=table,
        shoe=shoe,
        gaming_day=gaming_day,
        found_by=derived,
    )
    return holding
