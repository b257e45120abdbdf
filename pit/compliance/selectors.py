"""Reads of the violation queue that the screens share, so that every count of "open" agrees: the
dashboard, the table list and the violation list filter all mean open and still holding (a
violation a re-check cleared is not open, whatever its review status says)."""

from django.db.models import Q

from pit.compliance.models import RuleViolation, ViolationStatus

OPEN = Q(status=ViolationStatus.OPEN, cleared_at__isnull=True)

# The violation list's query string for the same set (see RuleViolationAdmin's filters).
OPEN_LIST_QUERY = {"status__exact": ViolationStatus.OPEN, "cleared": "no"}


# A shoe whose hash chain is broken is quarantined: nothing new is derived from its rows (its box
# reconciliation and supplements, the win reconciliation of its table-days, its rollups' refresh)
# while a `record_chain_broken` violation of it stands open or acknowledged. A person clears it by
# resolving or dismissing that violation (with a note, in the violation's review: who, when, why).
QUARANTINE_CODE = "record_chain_broken"
QUARANTINED = Q(
    code=QUARANTINE_CODE,
    status__in=(ViolationStatus.OPEN, ViolationStatus.ACKNOWLEDGED),
    cleared_at__isnull=True,
)


def shoes_quarantined(shoe_ids) -> dict[int, RuleViolation]:
    """The quarantined shoes among `shoe_ids`, each with the first violation that holds it."""
    found: dict[int, RuleViolation] = {}
    for violation in RuleViolation.objects.filter(QUARANTINED, shoe_id__in=list(shoe_ids)).order_by("pk"):
        found.setdefault(violation.shoe_id, violation)
    return found
