"""Reads of seat sessions that other apps build on: a session's played spans, its standing wagers,
whose it is, the sessions a coup belongs to, a patron's current details and who sits where now."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet

from pit.core.gaming_day import current_gaming_day, gaming_day_for
from pit.players.models import Patron, PatronVersion, SeatSession, SessionEventKind
from pit.shoes.models import Coup, Wager
from pit.shoes.selectors import wagers_standing


def session_spans(session: SeatSession) -> list[tuple[dt.datetime, dt.datetime | None]]:
    """The spans the session played, pauses left out, in time order; an end of None: still open.
    A pause opens a gap until the next resume; the stand-up ends the last span."""
    spans: list[tuple[dt.datetime, dt.datetime | None]] = []
    start: dt.datetime | None = session.started_at
    for kind, at in session.events.order_by("at", "id").values_list("kind", "at"):
        if kind == SessionEventKind.PAUSE and start is not None:
            spans.append((start, at))
            start = None
        elif kind == SessionEventKind.RESUME and start is None:
            start = at
        elif kind == SessionEventKind.STAND:
            if start is not None:
                spans.append((start, at))
            return spans
    if start is not None:
        spans.append((start, None))
    return spans


def session_wagers(session: SeatSession) -> QuerySet[Wager]:
    """The standing wagers (after corrections and voids) at the session's table and seat whose
    coup was dealt inside one of its played spans."""
    spans = session_spans(session)
    if not spans:
        return Wager.objects.none()
    inside = Q(pk__in=[])
    for start, end in spans:
        inside |= Q(coup__dealt_at__gte=start) & (Q() if end is None else Q(coup__dealt_at__lt=end))
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
        ).filter(inside)
    )


def session_patron(session: SeatSession) -> Patron | None:
    """Whose session it is: its patron, or the one it was identified as later; None if unrated."""
    if session.patron_id is not None:
        return session.patron
    try:
        return session.identification.patron
    except SeatSession.identification.RelatedObjectDoesNotExist:
        return None


def sessions_for_coup(coup: Coup) -> QuerySet[SeatSession]:
    """The sessions at the coup's table that were playing (not paused, not stood up) when it was dealt."""
    candidates = SeatSession.objects.filter(table_id=coup.shoe.table_id, started_at__lte=coup.dealt_at).exclude(
        events__kind=SessionEventKind.STAND, events__at__lte=coup.dealt_at
    )
    playing = [
        session.pk
        for session in candidates
        if any(start <= coup.dealt_at and (end is None or coup.dealt_at < end) for start, end in session_spans(session))
    ]
    return SeatSession.objects.filter(pk__in=playing)


def patron_current(patron: Patron) -> PatronVersion:
    """The patron's details as they stand: the latest version."""
    return patron.versions.order_by("-recorded_at", "-id").select_related("tier")[0]


def seated_now(table) -> dict[int, SeatSession]:
    """Per seat of the table, the session sitting there now (paused ones keep their seat)."""
    open_sessions = (
        SeatSession.objects.filter(table=table)
        .exclude(events__kind=SessionEventKind.STAND)
        .select_related("patron")
        .order_by("seat", "-started_at")
    )
    seated: dict[int, SeatSession] = {}
    for session in open_sessions:
        seated.setdefault(session.seat, session)
    return seated
