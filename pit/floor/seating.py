"""Seating the simulated floor's players: seat sessions, their pauses and stand-ups, identifications
and buy-ins, written as the floor's terminals would post them (until the players' own services take
this over). Each write is a declared write of its gaming day and owes the ratings' refresh."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from django.db import transaction

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
from pit.core.gaming_day import gaming_day_for
from pit.core.money import to_minor
from pit.players.models import (
    BuyIn,
    BuyInKind,
    Exclusion,
    ExclusionKind,
    Patron,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionIdentification,
    Tier,
)


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


# ------------------------------------------------------------------------------------ the patrons


@dataclass(frozen=True)
class Habit:
    """How a patron plays: stake in table minimums, favourite side, side-bet appetite, how long they
    stay (chance of leaving after each coup); a card of None is an unrated player."""

    card: str | None
    unit: int
    side: str
    side_bets: float
    leave: float


class PatronClub:
    """The simulated floor's patrons, enrolled once (tiers, nationalities, one excluded): on each
    gaming day each patron plays at one table (so patrons change tables from day to day), a share
    of the players are unrated, and one lends their card: it is swiped at two tables the same day."""

    NATIONALITIES = ("MO", "MO", "CN", "CN", "CN", "HK", "HK", "TW", "JP", "KR", "SG", "US")

    def __init__(self, size: int, tables: list[str], seed: int = 0) -> None:
        self.rng = random.Random(f"pit-floor-patrons:{seed}")
        self.tables = sorted(tables)
        self.cards = [f"P-{number:05d}" for number in range(1, size + 1)]
        self.habits = {
            card: Habit(
                card=card,
                unit=self.rng.choice((1, 2, 2, 3, 5, 8, 20)),
                side=self.rng.choice(("banker", "banker", "player")),
                side_bets=self.rng.choice((0.0, 0.5, 1.0, 1.0, 2.0)),
                leave=self.rng.uniform(0.01, 0.06),
            )
            for card in self.cards
        }
        self.excluded = self.cards[-1] if size >= 3 else None
        self.lender = self.cards[0] if size >= 3 and len(self.tables) >= 2 else None
        self.seated: set[tuple[str, dt.date, str]] = set()  # (table, gaming day, card) seated once

    def enrol(self) -> dict[str, Patron]:
        """Every patron recorded (once: a second run finds them), the excluded one's exclusion too."""
        tiers = [
            Tier.objects.get_or_create(code=code, defaults={"name": name, "colour": colour, "rank": rank})[0]
            for code, name, colour, rank in (
                ("silver", "Silver", "#c0c0c0", 1),
                ("gold", "Gold", "#d4af37", 2),
                ("platinum", "Platinum", "#8a9ba8", 3),
            )
        ]
        made = {}
        for index, card in enumerate(self.cards):
            patron = Patron.objects.filter(card_number=card).first()
            if patron is None:
                patron = Patron.objects.create(card_number=card)
                PatronVersion.objects.create(
                    patron=patron,
                    name=f"Patron {index + 1}",
                    tier=tiers[index % len(tiers)],
                    nationality=self.NATIONALITIES[index % len(self.NATIONALITIES)],
                )
                if card == self.excluded:
                    Exclusion.objects.create(
                        patron=patron,
                        kind=ExclusionKind.SELF,
                        starts_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
                        reason="self-exclusion",
                    )
            made[card] = patron
        return made

    def table_of(self, card: str, day: dt.date) -> str:
        return self.tables[(self.cards.index(card) + day.toordinal()) % len(self.tables)]

    def draw(self, table: str, day: dt.date, rng: random.Random, busy: set[str]) -> Habit:
        """The next player at the table: a patron whose table it is today (or the lent card at a
        second table), or an unrated player (one in five)."""
        if rng.random() < 0.2:
            return Habit(None, rng.choice((1, 1, 2, 3)), rng.choice(("banker", "player")), 0.5, 0.04)
        ours = [card for card in self.cards if self.table_of(card, day) == table and card not in busy]
        if self.lender and table != self.table_of(self.lender, day) and (table, day, self.lender) not in self.seated:
            ours.append(self.lender)  # the lent card, once a day at a second table
        if not ours:
            return Habit(None, rng.choice((1, 1, 2, 3)), rng.choice(("banker", "player")), 0.5, 0.04)
        card = rng.choice(ours)
        self.seated.add((table, day, card))
        return self.habits[card]
