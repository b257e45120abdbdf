"""Patrons and seat sessions for the ratings' tests: patrons with the models, sessions through the
players' services (which owe the ratings' refresh)."""

import datetime as dt
from decimal import Decimal

from django.db import transaction

from pit.players.models import Patron, PatronVersion, SeatSession, SessionEvent, SessionIdentification, Tier
from pit.players.services import (
    buy_in_record,
    session_identify,
    session_pause,
    session_resume,
    session_sit,
    session_stand,
)


def tier(code: str = "gold", colour: str = "#d4af37", rank: int = 3) -> Tier:
    return Tier.objects.get_or_create(code=code, defaults={"name": code.title(), "colour": colour, "rank": rank})[0]


def patron(card: str, name: str = "A. Patron", nationality: str = "CN", tier_: Tier | None = None) -> Patron:
    made = Patron.objects.create(card_number=card)
    PatronVersion.objects.create(patron=made, name=name, tier=tier_ or tier(), nationality=nationality)
    return made


def floor_seat(
    *, table, seat: int, at: dt.datetime, patron: Patron | None = None, description: str = "", buy_in=None
) -> SeatSession:
    """A player sits down (a card swiped, or an unrated player described), with a cash buy-in."""
    with transaction.atomic():
        session = session_sit(table=table, seat=seat, at=at, patron=patron, description=description)
        if buy_in:
            buy_in_record(session=session, kind="cash", amount=Decimal(buy_in), currency=table.currency, at=at)
    return session


def floor_session_event(*, session: SeatSession, kind: str, at: dt.datetime) -> SessionEvent:
    """A pause, a resume or the stand-up of a session."""
    service = {"pause": session_pause, "resume": session_resume, "stand": session_stand}[kind]
    return service(session=session, at=at)


def floor_identify(*, session: SeatSession, patron: Patron, reason: str) -> SessionIdentification:
    return session_identify(session=session, patron=patron, reason=reason)
