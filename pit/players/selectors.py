"""Reads of patrons and seat sessions that the ratings, the dashboard, the API and the admin share.

A session's played spans run from its sit-down to its stand-up with its breaks cut out: a pause ends
a span, a resume opens the next. A span is half-open, [start, end): a coup dealt at the very moment a
player stands (or pauses) is not theirs, so the next player sitting down at that moment gets it, and
no coup ever belongs to two sessions of one seat. A wager belongs to the session whose table, seat
and played span hold its coup's `dealt_at` (as a coup belongs to a dealer's rotation), whenever the
coup was posted: a coup posted late lands in the right session because nothing here looks at when
it was recorded.
"""

from __future__ import annotations

import datetime as dt
import functools
import operator

from django.db.models import Exists, OuterRef, Q, QuerySet

from pit.core.gaming_day import current_gaming_day, gaming_day_for
from pit.players.models import (
    Exclusion,
    Patron,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionEventKind,
    SessionIdentification,
)
from pit.shoes.models import Coup, Wager
from pit.shoes.selectors import wagers_standing

Span = tuple[dt.datetime, dt.datetime | None]


def spans_from_events(started_at: dt.datetime, events) -> list[Span]:
    """The played spans of a session that sat down at `started_at`, from its events as (kind, at)
    in order. Services keep the events coherent (a pause only while playing, a resume only while
    paused, nothing after the stand-up)."""
    spans: list[Span] = []
    open_at: dt.datetime | None = started_at
    for kind, at in events:
        if kind in (SessionEventKind.PAUSE, SessionEventKind.STAND):
            if open_at is not None:
                spans.append((open_at, at))
                open_at = None
            if kind == SessionEventKind.STAND:
                return spans
        elif kind == SessionEventKind.RESUME and open_at is None:
            open_at = at
    if open_at is not None:
        spans.append((open_at, None))
    return spans


def _events(session: SeatSession):
    return SessionEvent.objects.filter(session=session).order_by("at", "id").values_list("kind", "at")


def session_spans(session: SeatSession) -> list[Span]:
    """The session's played spans, breaks out, in order; the last one's end is None while it is open."""
    return spans_from_events(session.started_at, _events(session))


def session_state(session: SeatSession) -> str:
    """'playing', 'paused' or 'stood' (the session's last event decides)."""
    last = SessionEvent.objects.filter(session=session).order_by("-at", "-id").values_list("kind", flat=True).first()
    if last == SessionEventKind.STAND:
        return "stood"
    if last == SessionEventKind.PAUSE:
        return "paused"
    return "playing"


def session_ended_at(session: SeatSession) -> dt.datetime | None:
    """When the session stood up (None: it has not)."""
    return (
        SessionEvent.objects.filter(session=session, kind=SessionEventKind.STAND).values_list("at", flat=True).first()
    )


def spans_condition(spans: list[Span], field: str) -> Q:
    """A Q holding `field` (a moment) inside any of the spans; nothing when there are none."""
    if not spans:
        return Q(pk__in=[])
    parts = [Q(**{f"{field}__gte": start}) & (Q(**{f"{field}__lt": end}) if end else Q()) for start, end in spans]
    return functools.reduce(operator.or_, parts)


def session_wagers(session: SeatSession) -> QuerySet[Wager]:
    """The standing wagers (pit.shoes.selectors.wagers_standing: after corrections and voids) of the
    session's table and seat whose coup was dealt inside one of its played spans."""
    spans = session_spans(session)
    if not spans:
        return Wager.objects.none()
    # The gaming days the spans cross (an open one: up to today's): PostgreSQL reads only their
    # months' partitions of the coups and the wagers.
    first = gaming_day_for(spans[0][0])
    last = gaming_day_for(spans[-1][1]) if spans[-1][1] is not None else max(current_gaming_day(), first)
    return wagers_standing(
        Wager.objects.filter(
            coup__shoe__table_id=session.table_id,
            seat=session.seat,
            gaming_day__range=(first, last),
            coup__gaming_day__range=(first, last),
        ).filter(spans_condition(spans, "coup__dealt_at"))
    )


def sessions_wagers(sessions: list[SeatSession]) -> dict[int, list[Wager]]:
    """`session_wagers` of many sessions at once, by session id, each with its coup: their events in
    one query and their wagers in one query per table (a day's check reads hundreds of sessions)."""
    events: dict[int, list] = {session.pk: [] for session in sessions}
    rows = SessionEvent.objects.filter(session_id__in=list(events)).order_by("session_id", "at", "id")
    for session_id, kind, at in rows.values_list("session_id", "kind", "at"):
        events[session_id].append((kind, at))
    spans = {session.pk: spans_from_events(session.started_at, events[session.pk]) for session in sessions}
    by_table: dict[int, list[SeatSession]] = {}
    for session in sessions:
        if spans[session.pk]:
            by_table.setdefault(session.table_id, []).append(session)
    found: dict[int, list[Wager]] = {session.pk: [] for session in sessions}
    for table_id, mine in by_table.items():
        first = min(gaming_day_for(spans[s.pk][0][0]) for s in mine)
        last = max(
            gaming_day_for(end) if (end := spans[s.pk][-1][1]) is not None else max(current_gaming_day(), first)
            for s in mine
        )
        condition = functools.reduce(
            operator.or_, (Q(seat=s.seat) & spans_condition(spans[s.pk], "coup__dealt_at") for s in mine)
        )
        wagers = wagers_standing(
            Wager.objects.filter(
                coup__shoe__table_id=table_id, gaming_day__range=(first, last), coup__gaming_day__range=(first, last)
            ).filter(condition)
        ).select_related("coup")
        for wager in wagers:
            for session in mine:
                if session.seat == wager.seat and any(
                    start <= wager.coup.dealt_at and (end is None or wager.coup.dealt_at < end)
                    for start, end in spans[session.pk]
                ):
                    found[session.pk].append(wager)
    return found


def session_patron(session: SeatSession) -> Patron | None:
    """Whose session it is: the patron it was opened for, or the one an identification named later
    (None: still unrated)."""
    if session.patron_id:
        return session.patron
    if session.pk is None:
        return None
    identification = SessionIdentification.objects.filter(session=session).select_related("patron").first()
    return identification.patron if identification else None


def sessions_of_patron(patron: Patron) -> QuerySet[SeatSession]:
    """Every session that is the patron's: opened for the patron, or identified as the patron's later."""
    return SeatSession.objects.filter(Q(patron=patron) | Q(identification__patron=patron))


def open_sessions() -> QuerySet[SeatSession]:
    """Sessions with no stand-up yet (paused ones keep their seat, so they are open)."""
    stood = SessionEvent.objects.filter(session=OuterRef("pk"), kind=SessionEventKind.STAND)
    return SeatSession.objects.filter(~Exists(stood))


def sessions_at(*, table_id: int, moment: dt.datetime) -> list[SeatSession]:
    """The sessions of a table whose played span holds `moment`."""
    stood_before = SessionEvent.objects.filter(session=OuterRef("pk"), kind=SessionEventKind.STAND, at__lte=moment)
    candidates = SeatSession.objects.filter(table_id=table_id, started_at__lte=moment).filter(~Exists(stood_before))
    held = []
    for session in candidates.order_by("seat", "started_at"):
        if any(start <= moment and (end is None or moment < end) for start, end in session_spans(session)):
            held.append(session)
    return held


def seat_session_at(*, table_id: int, seat: int, moment: dt.datetime) -> SeatSession | None:
    """The session holding the seat at `moment`: sat down by then and not stood up before it (a
    break keeps the seat)."""
    stood = SessionEvent.objects.filter(session=OuterRef("pk"), kind=SessionEventKind.STAND, at__lte=moment)
    return (
        SeatSession.objects.filter(table_id=table_id, seat=seat, started_at__lte=moment)
        .filter(~Exists(stood))
        .order_by("-started_at", "-id")
        .first()
    )


def sessions_for_coup(coup: Coup) -> QuerySet[SeatSession]:
    """The sessions holding a coup: those at its table whose played span holds its `dealt_at` (every
    seat's, whether or not the seat bet on it: a correction may add or remove a seat's wager)."""
    table_id = Coup.objects.filter(pk=coup.pk).values_list("shoe__table_id", flat=True).get()
    held = sessions_at(table_id=table_id, moment=coup.dealt_at)
    return SeatSession.objects.filter(pk__in=[session.pk for session in held])


def patron_current(patron: Patron) -> PatronVersion:
    """The patron's details that stand: the latest version recorded."""
    version = PatronVersion.objects.filter(patron=patron).select_related("tier").order_by("-recorded_at", "-id").first()
    if version is None:  # enrolment records the first version with the patron: never without one
        raise PatronVersion.DoesNotExist(f"Patron {patron.card_number} has no version.")
    return version


def patrons_current(patron_ids) -> dict[int, PatronVersion]:
    """Each patron's details that stand (as `patron_current`), for many patrons in one query."""
    standing: dict[int, PatronVersion] = {}
    versions = PatronVersion.objects.filter(patron_id__in=set(patron_ids)).order_by("patron_id", "-recorded_at", "-id")
    for version in versions:
        standing.setdefault(version.patron_id, version)
    return standing


def seated_now(table) -> dict[int, SeatSession]:
    """Seat -> the session that holds it now at `table` (a paused session keeps its seat)."""
    sessions = (
        open_sessions()
        .filter(table=table)
        .select_related("patron", "identification__patron")
        .order_by("seat", "-started_at")
    )
    seated: dict[int, SeatSession] = {}
    for session in sessions:
        seated.setdefault(session.seat, session)
    return seated


def exclusions_in_force(at: dt.datetime) -> QuerySet[Exclusion]:
    """The exclusions in force at `at`: begun, not run out, not lifted by then. A record that lifts
    another is not an exclusion itself: its `starts_at` is when the lift took effect."""
    lifted = Exclusion.objects.filter(lifts=OuterRef("pk"), starts_at__lte=at)
    return (
        Exclusion.objects.filter(lifts__isnull=True, starts_at__lte=at)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=at))
        .filter(~Exists(lifted))
    )


def patron_excluded_at(patron: Patron, at: dt.datetime) -> Exclusion | None:
    """The exclusion in force for the patron at `at` (the one that runs longest), or None."""
    found = list(exclusions_in_force(at).filter(patron=patron).order_by("starts_at", "id"))
    if not found:
        return None
    lifetime = [exclusion for exclusion in found if exclusion.ends_at is None]
    return lifetime[0] if lifetime else max(found, key=lambda exclusion: exclusion.ends_at or exclusion.starts_at)


def exclusion_lifted_at(exclusion: Exclusion) -> dt.datetime | None:
    """When a lift ended the exclusion early (None: never lifted)."""
    return Exclusion.objects.filter(lifts=exclusion).order_by("starts_at").values_list("starts_at", flat=True).first()


def patron_by_card(card_number: str) -> Patron | None:
    return Patron.objects.filter(card_number=(card_number or "").strip()).first()
