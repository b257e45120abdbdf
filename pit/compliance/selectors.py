"""Reads of the violation queue that the screens share, so that every count of "open" agrees: the
dashboard, the table list and the violation list filter all mean open and still holding (a
violation a re-check cleared is not open, whatever its review status says)."""

from django.db.models import Q

from pit.compliance.models import ViolationStatus

OPEN = Q(status=ViolationStatus.OPEN, cleared_at__isnull=True)

# The violation list's query string for the same set (see RuleViolationAdmin's filters).
OPEN_LIST_QUERY = {"status__exact": ViolationStatus.OPEN, "cleared": "no"}
