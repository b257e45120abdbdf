"""The checks of the controls: each lapse a RuleViolation of a registered code (pit.game), found
once by its fingerprint, cleared (never deleted) when a re-check no longer finds it.

- `shoe_cards_not_issued`: a shoe shuffled without as many decks issued for it as it holds
  (Shoe.decks), once PIT_CONTROLS_ISSUE_GRACE_MINUTES have passed;
- `deck_issued_twice`: a deck issued for a second shoe (found as it is recorded);
- `deck_in_use_overdue`: a deck at a table longer than PIT_CONTROLS_DECK_MAX_HOURS;
- `key_issued_unlisted`: a key drawn by someone not on its access list in force (found as it is recorded);
- `key_out_overdue`: a key out past its time (returned late, or still out);
- `shift_not_handed_over`: a shift change with tables open and no handover accepted within
  PIT_CONTROLS_HANDOVER_MINUTES.

`controls_check` runs them for a gaming day (beat, every 15 minutes, over the last
PIT_CONTROLS_CHECK_DAYS days; and `manage.py controls_check`). Design: docs/design/controls.md.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import Count, Min
from django.utils import timezone

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.shoes.models import Shoe

from .handover import tables_open_at
from .models import DeckIssue, HandoverAcceptance, KeyIssue, ShiftHandover
from .selectors import deck_max_age, key_access_at, key_returned
from .shifts import shift_changes

FOUND_BY_CARDS = "controls.cards"
FOUND_BY_KEYS = "controls.keys"
FOUND_BY_HANDOVER = "controls.handover"
FOUND_BY = (FOUND_BY_CARDS, FOUND_BY_KEYS, FOUND_BY_HANDOVER)


def _record(code: str, message: str, *, fingerprint: str, table, gaming_day, found_by: str, shoe=None) -> str:
    violation_record(
        finding=game.violation(code, message),
        fingerprint=fingerprint,
        table=table,
        gaming_day=gaming_day,
        found_by=found_by,
        shoe=shoe,
    )
    return fingerprint


# ---------------------------------------------------------------------------------------- cards


def deck_issue_check(issue: DeckIssue) -> str | None:
    """A deck issued before this issue: `deck_issued_twice`. Returns the fingerprint found, if any."""
    earlier = (
        DeckIssue.objects.filter(deck_id=issue.deck_id, issued_at__lte=issue.issued_at)
        .exclude(pk=issue.pk)
        .exclude(issued_at=issue.issued_at, pk__gt=issue.pk)
        .select_related("table")
        .order_by("issued_at", "pk")
        .first()
    )
    if earlier is None:
        return None
    return _record(
        "deck_issued_twice",
        f"Deck {issue.deck.serial} was issued to {issue.table.code} for shoe {issue.shoe_id} at "
        f"{timezone.localtime(issue.issued_at):%Y-%m-%d %H:%M}, after it had been issued to {earlier.table.code} "
        f"for shoe {earlier.shoe_id} at {timezone.localtime(earlier.issued_at):%Y-%m-%d %H:%M}.",
        fingerprint=f"deck_twice:{issue.pk}",
        table=issue.table,
        gaming_day=gaming_day_for(issue.issued_at),
        found_by=FOUND_BY_CARDS,
        shoe=issue.shoe,
    )


def cards_check(*, gaming_day: dt.date, now: dt.datetime) -> set[str]:
    """The card findings of a gaming day as they stand at `now`; returns their fingerprints."""
    start, end = gaming_day_bounds(gaming_day)
    found: set[str] = set()
    grace = dt.timedelta(minutes=settings.PIT_CONTROLS_ISSUE_GRACE_MINUTES)
    shoes = Shoe.objects.filter(shuffled_at__gte=start, shuffled_at__lt=min(end, now - grace)).select_related("table")
    issued = dict(
        DeckIssue.objects.filter(shoe__in=shoes)
        .values("shoe_id")
        .annotate(decks=Count("id"))
        .values_list("shoe_id", "decks")
    )
    for shoe in shoes.order_by("shuffled_at", "pk"):
        decks = issued.get(shoe.pk, 0)
        if decks != shoe.decks:
            found.add(
                _record(
                    "shoe_cards_not_issued",
                    f"Shoe {shoe} holds {shoe.decks} decks but {decks} were issued for it.",
                    fingerprint=f"shoe_cards:{shoe.pk}",
                    table=shoe.table,
                    gaming_day=gaming_day,
                    found_by=FOUND_BY_CARDS,
                    shoe=shoe,
                )
            )
    issues = DeckIssue.objects.filter(issued_at__gte=start, issued_at__lt=end).select_related("deck", "table", "shoe")
    twice = set(
        DeckIssue.objects.filter(deck__in=issues.values("deck"))
        .values("deck_id")
        .annotate(issues=Count("id"))
        .filter(issues__gt=1)
        .values_list("deck_id", flat=True)
    )
    for issue in issues.order_by("issued_at", "pk"):
        if issue.deck_id in twice and (fingerprint := deck_issue_check(issue)):
            found.add(fingerprint)
        back = issue.deck.events.filter(kind="returned", at__gte=issue.issued_at).aggregate(first=Min("at"))["first"]
        out_for = (back or now) - issue.issued_at
        if out_for > deck_max_age():
            state = (
                f"came back after {out_for.total_seconds() / 3600:.1f} hours"
                if back
                else f"has been there {out_for.total_seconds() / 3600:.1f} hours"
            )
            found.add(
                _record(
                    "deck_in_use_overdue",
                    f"Deck {issue.deck.serial} was issued to {issue.table.code} at "
                    f"{timezone.localtime(issue.issued_at):%Y-%m-%d %H:%M} and {state} (at most "
                    f"{settings.PIT_CONTROLS_DECK_MAX_HOURS}).",
                    fingerprint=f"deck_overdue:{issue.pk}",
                    table=issue.table,
                    gaming_day=gaming_day,
                    found_by=FOUND_BY_CARDS,
                    shoe=issue.shoe,
                )
            )
    return found


# ---------------------------------------------------------------------------------------- keys


def key_issue_check(issue: KeyIssue) -> str | None:
    """A key drawn by someone not on its access list in force: `key_issued_unlisted`."""
    access = key_access_at(issue.key_id, issue.issued_at)
    if access is not None and issue.issued_to_id in access.holders:
        return None
    listed = f"its access list v{access.version}" if access else "any access list (the key has none)"
    return _record(
        "key_issued_unlisted",
        f"Key {issue.key.code} was issued to {issue.issued_to} at {timezone.localtime(issue.issued_at):%Y-%m-%d %H:%M} "
        f"for {issue.table.code}, who is not on {listed}.",
        fingerprint=f"key_unlisted:{issue.pk}",
        table=issue.table,
        gaming_day=gaming_day_for(issue.issued_at),
        found_by=FOUND_BY_KEYS,
    )


def keys_check(*, gaming_day: dt.date, now: dt.datetime) -> set[str]:
    start, end = gaming_day_bounds(gaming_day)
    found: set[str] = set()
    issues = KeyIssue.objects.filter(issued_at__gte=start, issued_at__lt=end).select_related(
        "key", "table", "issued_to", "returned"
    )
    for issue in issues.order_by("issued_at", "pk"):
        if fingerprint := key_issue_check(issue):
            found.add(fingerprint)
        returned = key_returned(issue)
        back = returned.returned_at if returned else None
        if (back or now) > issue.due_at:
            state = f"came back at {timezone.localtime(back):%H:%M}" if back else "is still out"
            found.add(
                _record(
                    "key_out_overdue",
                    f"Key {issue.key.code}, issued to {issue.issued_to} at "
                    f"{timezone.localtime(issue.issued_at):%Y-%m-%d %H:%M} for {issue.table.code}, was due back at "
                    f"{timezone.localtime(issue.due_at):%H:%M} and {state}.",
                    fingerprint=f"key_overdue:{issue.pk}",
                    table=issue.table,
                    gaming_day=gaming_day,
                    found_by=FOUND_BY_KEYS,
                )
            )
    return found


# ---------------------------------------------------------------------------------------- handover


def handovers_check(*, gaming_day: dt.date, now: dt.datetime) -> set[str]:
    """Each shift change of the day whose window has passed, with tables open and no handover
    accepted within it; the finding is the first open table's (by code) and names them all."""
    start, end = gaming_day_bounds(gaming_day)
    window = dt.timedelta(minutes=settings.PIT_CONTROLS_HANDOVER_MINUTES)
    found: set[str] = set()
    for change in shift_changes(start, end):
        if change + window > now:
            continue
        tables = list(tables_open_at(change))
        if not tables:
            continue
        handovers = ShiftHandover.objects.filter(shift_change_at=change)
        accepted = HandoverAcceptance.objects.filter(handover__in=handovers, accepted_at__lte=change + window)
        if accepted.exists():
            continue
        state = "was handed over but not accepted in time" if handovers.exists() else "was not handed over"
        found.add(
            _record(
                "shift_not_handed_over",
                f"The shift change at {timezone.localtime(change):%Y-%m-%d %H:%M} {state}, with "
                f"{', '.join(table.code for table in tables)} open.",
                fingerprint=f"handover:{change.astimezone(dt.UTC):%Y%m%dT%H%M}",
                table=tables[0],
                gaming_day=gaming_day,
                found_by=FOUND_BY_HANDOVER,
            )
        )
    return found


# ---------------------------------------------------------------------------------------- all


CHECKS = ((FOUND_BY_CARDS, cards_check), (FOUND_BY_KEYS, keys_check), (FOUND_BY_HANDOVER, handovers_check))


def controls_check(*, gaming_day: dt.date, now: dt.datetime | None = None) -> dict[str, int]:
    """Every control check of a gaming day; a finding that no longer holds is cleared. Returns how
    many findings hold, per check."""
    now = now or timezone.now()
    held = {}
    for found_by, check in CHECKS:
        found = check(gaming_day=gaming_day, now=now)
        violations_clear_missing(
            scope=RuleViolation.objects.filter(gaming_day=gaming_day), found_by=found_by, fingerprints_found=found
        )
        held[found_by] = len(found)
    return held
