"""Seating the simulated floor's players: seat sessions, their pauses and stand-ups, identifications
and buy-ins, written as the floor's terminals would post them (until the players' own services take
this over). Each write is a declared write of its gaming day and owes the ratings' refresh."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
from pit.core.gaming_day import gaming_day_for
from pit.core.money import to_minor
from pit.players.models import BuyIn, BuyInKind, Patron, SeatSession, SessionEvent, SessionIdentification


@day_write(writes=("players.SeatSession", "players.BuyIn"), day_of="the gaming day of the sit-down")
def floor_seat(
    *,
    table,
    seat: int,
    at: dt.datetime,
    patron: Patron | None = None,
    description: str = "",
    buy_in=None,
    actor: Actor = SYSTEM,
) -> SeatSession:
    """A player sits down at the seat (a patron's card, or an unrated player described), with a cash buy-in."""
    day = gaming_day_for(at)
    with transaction.atomic():
        days_ensure_open([day])
        session = SeatSession.objects.create(
            table=table,
            seat=seat,
            patron=patron,
            description=description,
            started_at=at,
            gaming_day=day,
            **actor.recorded_fields(),
        )
        if buy_in:
            BuyIn.objects.create(
                session=session,
                kind=BuyInKind.CASH,
                currency=table.currency,
                amount_minor=to_minor(buy_in, table.currency),
                at=at,
                **actor.recorded_fields(),
            )
        derived_follow(("players.SeatSession",), table_days=[(table.pk, day)])
    return session


@day_write(writes=("players.SessionEvent",), day_of="the session's gaming day and the event's")
def floor_session_event(*, session: SeatSession, kind: str, at: dt.datetime, actor: Actor = SYSTEM) -> SessionEvent:
    """A pause, a resume or the stand-up of a session."""
    days = sorted({session.gaming_day, gaming_day_for(at)})
    with transaction.atomic():
        days_ensure_open(days)
        event = SessionEvent.objects.create(session=session, kind=kind, at=at, **actor.recorded_fields())
        derived_follow(("players.SessionEvent",), table_days=[(session.table_id, day) for day in days])
    return event


@day_write(writes=("players.SessionIdentification",), day_of="the session's gaming day")
def floor_identify(
    *, session: SeatSession, patron: Patron, reason: str, actor: Actor = SYSTEM
) -> SessionIdentification:
    """An unrated session identified as the patron's."""
    with transaction.atomic():
        days_ensure_open([session.gaming_day])
        identification = SessionIdentification.objects.create(
            session=session, patron=patron, reason=reason, **actor.recorded_fields()
        )
        derived_follow(("players.SessionIdentification",), table_days=[(session.table_id, session.gaming_day)])
    return identification
