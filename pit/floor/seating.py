"""The simulated floor's patrons: the club (tiers, nationalities, one excluded, one lending a card)
enrolled through the players' services, and each patron's habits at the table. The seats' writes
are the players' services too (pit.floor.clients)."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING

from pit.floor.cash import Roles
from pit.players.models import (
    ExclusionKind,
    Patron,
    Tier,
)
from pit.players.services import exclusion_record, patron_enrol

if TYPE_CHECKING:
    from pit.floor.cash import Cage

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
    of the players are unrated, one lends their card (it is swiped at a second table, once a day)
    and the excluded one gets past the door once a day. Their cash (pit.floor.cash): most buy in
    small, two are high rollers, one structures at the cage and one plays minimally."""

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
        self.roles = Roles.of(self.cards)
        self.habits = {card: self.roles.habit(habit) for card, habit in self.habits.items()}
        self.cage: Cage | None = None  # the cage of a client that records cash (pit.floor.cash)
        self.excluded = self.cards[-1] if size >= 3 else None
        self.lender = self.cards[0] if size >= 3 and len(self.tables) >= 2 else None
        self.seated: set[tuple[str, dt.date, str]] = set()  # (table, gaming day, card) seated once
        self.bought_in: set[tuple[str, dt.date]] = set()  # (card, gaming day) with the day's buy-in

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
                patron = patron_enrol(
                    card_number=card,
                    name=f"Patron {index + 1}",
                    tier=tiers[index % len(tiers)],
                    nationality=self.NATIONALITIES[index % len(self.NATIONALITIES)],
                )
                if card == self.excluded:
                    exclusion_record(
                        patron=patron,
                        kind=ExclusionKind.SELF,
                        starts_at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC),
                        ends_at=None,
                        reason="self-exclusion",
                    )
            made[card] = patron
        return made

    def table_of(self, card: str, day: dt.date) -> str:
        return self.tables[(self.cards.index(card) + day.toordinal()) % len(self.tables)]

    def buys_in(self, card: str | None, day: dt.date) -> bool:
        """Whether a player sitting down buys in: an unrated player always, a patron at the first
        sit-down of the day (back from a walk, they play on with the chips they carry)."""
        if card is None:
            return True
        if (card, day) in self.bought_in:
            return False
        self.bought_in.add((card, day))
        return True

    def buy_in(self, card: str | None, day: dt.date, stake: Decimal, multiple: int) -> Decimal:
        """The cash a player sitting down buys in with: none back from a walk (`buys_in`); else what
        the cage's plan says (pit.floor.cash), or `multiple` stakes without one."""
        if not self.buys_in(card, day):
            return Decimal(0)
        if self.cage is None:
            return stake * multiple
        return self.cage.buy_in(card, stake, multiple)

    def lent_to(self, day: dt.date) -> str | None:
        """The second table the lent card is swiped at on `day`: the table after its own."""
        if self.lender is None:
            return None
        return self.tables[(self.cards.index(self.lender) + day.toordinal() + 1) % len(self.tables)]

    def draw(self, table: str, day: dt.date, rng: random.Random, busy: set[str]) -> Habit:
        """The next player at the table: a patron whose table it is today (the excluded one once a
        day), the lent card at its second table once a day, or an unrated player (one in five)."""
        if rng.random() < 0.2:
            return Habit(None, rng.choice((1, 1, 2, 3)), rng.choice(("banker", "player")), 0.5, 0.04)
        ours = [
            card
            for card in self.cards
            if self.table_of(card, day) == table
            and card not in busy
            and (card != self.excluded or (table, day, card) not in self.seated)
        ]
        if self.lender and table == self.lent_to(day) and (table, day, self.lender) not in self.seated:
            ours.append(self.lender)
        if not ours:
            return Habit(None, rng.choice((1, 1, 2, 3)), rng.choice(("banker", "player")), 0.5, 0.04)
        card = rng.choice(ours)
        self.seated.add((table, day, card))
        return self.habits[card]
