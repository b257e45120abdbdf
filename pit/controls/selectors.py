"""Reads of the controls: where a deck is, the card reconciliation of a gaming day, whether a key
is out and who may draw it, the key log."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from pit.core.gaming_day import gaming_day_bounds

from .models import Deck, DeckEvent, DeckEventKind, DeckIssue, KeyAccessList, KeyIssue, SensitiveKey, StorageCount

STORAGE, TABLE, DESTROYED = "storage", "table", "destroyed"


@dataclass(frozen=True)
class Location:
    kind: str  # STORAGE, TABLE or DESTROYED
    place: str  # the storage place's or the table's code
    cancelled: bool = False
    since: dt.datetime | None = None  # at a table: issued at
    issue_id: int | None = None

    def __str__(self) -> str:
        if self.kind == DESTROYED:
            return "destroyed"
        if self.kind == TABLE:
            return f"at table {self.place}"
        return f"in storage {self.place}{', cancelled' if self.cancelled else ''}"


# The order of same-moment movements of one deck.
_RECEIVED, _ISSUED, _RETURNED, _CANCELLED, _DESTROYED = range(5)
_EVENT_ORDER = {
    DeckEventKind.RETURNED: _RETURNED,
    DeckEventKind.CANCELLED: _CANCELLED,
    DeckEventKind.DESTROYED: _DESTROYED,
}


def _movements(*, until: dt.datetime, deck_ids=None) -> list[tuple]:
    """(moment, order, deck id, what, place code, issue id) of every movement at or before `until`."""
    decks = Deck.objects.filter(received_at__lte=until)
    issues = DeckIssue.objects.filter(issued_at__lte=until)
    events = DeckEvent.objects.filter(at__lte=until)
    if deck_ids is not None:
        decks, issues, events = (
            decks.filter(pk__in=deck_ids),
            issues.filter(deck_id__in=deck_ids),
            events.filter(deck_id__in=deck_ids),
        )
    moves = [
        (at, _RECEIVED, deck_id, "received", code, None)
        for deck_id, at, code in decks.values_list("pk", "received_at", "storage__code")
    ]
    moves += [
        (at, _ISSUED, deck_id, "issued", code, issue_id)
        for issue_id, deck_id, at, code in issues.values_list("pk", "deck_id", "issued_at", "table__code")
    ]
    moves += [
        (at, _EVENT_ORDER[kind], deck_id, kind, code, None)
        for deck_id, at, kind, code in events.values_list("deck_id", "at", "kind", "storage__code")
    ]
    moves.sort(key=lambda move: (move[0], move[2], move[1]))
    return moves


def _apply(locations: dict[int, Location], move: tuple) -> Location | None:
    """Move one deck; returns where it was before (None: not received yet)."""
    at, _, deck_id, what, code, issue_id = move
    before = locations.get(deck_id)
    if what == "received":
        locations[deck_id] = Location(STORAGE, code)
    elif what == "issued":
        locations[deck_id] = Location(TABLE, code, since=at, issue_id=issue_id)
    elif what == DeckEventKind.RETURNED:
        locations[deck_id] = Location(STORAGE, code)
    elif what == DeckEventKind.CANCELLED and before is not None:
        locations[deck_id] = Location(STORAGE, before.place, cancelled=True)
    elif what == DeckEventKind.DESTROYED and before is not None:
        locations[deck_id] = Location(DESTROYED, before.place, cancelled=before.cancelled)
    return before


def deck_location(deck: Deck, at: dt.datetime) -> Location:
    """Where a deck is at a moment (a deck not received by then is reported in its storage place)."""
    locations: dict[int, Location] = {}
    for move in _movements(until=at, deck_ids=[deck.pk]):
        _apply(locations, move)
    return locations.get(deck.pk, Location(STORAGE, deck.storage.code))


def deck_max_age() -> dt.timedelta:
    return dt.timedelta(hours=settings.PIT_CONTROLS_DECK_MAX_HOURS)


@dataclass
class CardDay:
    """One gaming day's card reconciliation (N.J.A.C. 13:69E-1.18), the pit's and per storage place."""

    gaming_day: dt.date
    received: int = 0  # during the day
    issued: int = 0
    returned: int = 0
    cancelled: int = 0
    destroyed: int = 0
    received_to_date: int = 0  # at the day's end
    in_storage: int = 0
    at_tables: int = 0
    destroyed_to_date: int = 0
    by_place: dict[str, int] = field(default_factory=dict)  # in storage at the day's end
    counted: dict[str, int] = field(default_factory=dict)  # each place's last count of the day
    overdue: list[str] = field(default_factory=list)  # "serial at TABLE since ..."

    @property
    def balanced(self) -> bool:
        return self.received_to_date == self.in_storage + self.at_tables + self.destroyed_to_date

    @property
    def count_difference(self) -> int | None:
        if not self.counted:
            return None
        return sum(self.counted.values()) - sum(self.by_place.get(place, 0) for place in self.counted)


def card_days(date_from: dt.date, date_to: dt.date) -> Iterator[CardDay]:
    """The card reconciliation of each gaming day of the range, in one walk of the movements: what
    came in and went out during the day, and at its end received = in storage + at tables + destroyed,
    the decks in use longer than PIT_CONTROLS_DECK_MAX_HOURS named, each storage count beside the book."""
    end_of_range = gaming_day_bounds(date_to)[1]
    moves = _movements(until=end_of_range)
    serials = dict(Deck.objects.filter(received_at__lte=end_of_range).values_list("pk", "serial"))
    counts = list(
        StorageCount.objects.filter(counted_at__lt=end_of_range)
        .order_by("counted_at", "pk")
        .values_list("counted_at", "storage__code", "decks")
    )
    locations: dict[int, Location] = {}
    position = 0
    day = date_from
    # Everything before the first day moves the decks to where they stood at its start.
    start = gaming_day_bounds(date_from)[0]
    while position < len(moves) and moves[position][0] < start:
        _apply(locations, moves[position])
        position += 1
    while day <= date_to:
        _, end = gaming_day_bounds(day)
        result = CardDay(day)
        while position < len(moves) and moves[position][0] < end:
            move = moves[position]
            _apply(locations, move)
            what = move[3]
            if what == "received":
                result.received += 1
            elif what == "issued":
                result.issued += 1
            else:
                setattr(result, what, getattr(result, what) + 1)
            position += 1
        kinds = Counter(location.kind for location in locations.values())
        result.received_to_date = len(locations)
        result.in_storage, result.at_tables, result.destroyed_to_date = kinds[STORAGE], kinds[TABLE], kinds[DESTROYED]
        result.by_place = dict(
            sorted(Counter(location.place for location in locations.values() if location.kind == STORAGE).items())
        )
        day_start = gaming_day_bounds(day)[0]
        result.counted = {place: decks for at, place, decks in counts if day_start <= at < end}
        result.overdue = [
            f"{serials[deck_id]} at {location.place} since {location.since:%Y-%m-%d %H:%M}"
            for deck_id, location in sorted(locations.items(), key=lambda item: serials[item[0]])
            if location.kind == TABLE and location.since is not None and end - location.since > deck_max_age()
        ]
        yield result
        day += dt.timedelta(days=1)


def storage_inventory(at: dt.datetime) -> dict[str, dict[str, int]]:
    """Per storage place: decks unused and cancelled (awaiting destruction) at a moment."""
    locations: dict[int, Location] = {}
    for move in _movements(until=at):
        _apply(locations, move)
    places: dict[str, dict[str, int]] = {}
    for location in locations.values():
        if location.kind == STORAGE:
            place = places.setdefault(location.place, {"unused": 0, "cancelled": 0})
            place["cancelled" if location.cancelled else "unused"] += 1
    return dict(sorted(places.items()))


# ---------------------------------------------------------------------------------------- keys


def key_max_out(key: SensitiveKey) -> int:
    return key.max_out_minutes or settings.PIT_CONTROLS_KEY_MAX_OUT_MINUTES


def key_out(key: SensitiveKey, at: dt.datetime) -> KeyIssue | None:
    """The issue of the key not returned by `at`, if it is out."""
    issues = KeyIssue.objects.filter(key=key, issued_at__lte=at).select_related("issued_to", "returned")
    for issue in issues.order_by("-issued_at", "-pk"):
        returned = key_returned(issue)
        if returned is None or returned.returned_at > at:
            return issue
    return None


def key_returned(issue: KeyIssue):
    """The return of an issue, or None while the key is out."""
    try:
        return issue.returned
    except KeyIssue.returned.RelatedObjectDoesNotExist:
        return None


def key_access_at(key_id: int, at: dt.datetime) -> KeyAccessList | None:
    """The access list of a key in force at a moment."""
    return KeyAccessList.objects.filter(key_id=key_id, effective_from__lte=at).order_by("-version").first()


def key_log_rows(date_from: dt.date, date_to: dt.date) -> Iterator[dict[str, Any]]:
    """Every key issue of the range with its return, ordered by time."""
    start, end = gaming_day_bounds(date_from)[0], gaming_day_bounds(date_to)[1]
    users = dict(get_user_model().objects.values_list("pk", "username"))
    now = timezone.now()
    issues = (
        KeyIssue.objects.filter(issued_at__gte=start, issued_at__lt=end)
        .select_related("key", "table", "returned")
        .order_by("issued_at", "pk")
    )
    for issue in issues:
        returned = key_returned(issue)
        access = key_access_at(issue.key_id, issue.issued_at)
        on_list = access is not None and issue.issued_to_id in access.holders
        back = returned.returned_at if returned else None
        yield {
            "issued_at": issue.issued_at,
            "key": issue.key.code,
            "kind": issue.key.kind,
            "table": issue.table.code,
            "issued_to": users.get(issue.issued_to_id, ""),
            "issued_by": users.get(issue.issued_by_id, ""),
            "purpose": issue.purpose,
            "due_at": issue.due_at,
            "returned_at": back,
            "returned_by": users.get(returned.returned_by_id, "") if returned else "",
            "received_by": users.get(returned.received_by_id, "") if returned else "",
            "minutes_out": int((back - issue.issued_at).total_seconds() // 60) if back else None,
            "on_list": "yes" if on_list else "no",
            "overdue": "yes" if (back or now) > issue.due_at else "no",
        }
