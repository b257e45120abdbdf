"""The simulated floor's cash: what each patron of the club buys in with at the table, the chips they
carry away when they stand, and what the cage buys and redeems for them, through pit.cash's services.

The amounts follow the cash rules standing (pit.cash.selectors.rules_at): most buy-ins are under the
MTL threshold's structuring band; two high rollers buy in over the CTR threshold (rated patrons, so
identified) with stakes to match; one patron structures (two chip purchases at the cage each
gaming day, each just under the MTL threshold, together over the SAR threshold) and plays those
chips at the tables without cash; one plays minimally (buys in between the pattern floor and the
CTR band with cash, wagers the table minimum a few coups and leaves).

The honest patrons redeem their chips at the cage when the day's play is over, except an amount just
under a threshold, which they keep for another day: the simulated honest floor never looks like
structuring by chance (a real patron may, and that is why each finding is a compliance officer's
question, not a verdict). Unrated players walk away with their chips: the cage never knows them.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, replace
from decimal import ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING

from django.utils import timezone

from pit.cash.models import CashKind, CashRules
from pit.cash.selectors import rules_at
from pit.cash.services import CashInput, transaction_record
from pit.core.actors import SYSTEM, Actor
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.core.money import from_minor
from pit.players import selectors as seats
from pit.players.models import BuyIn, Patron, SeatSession
from pit.shoes.models import WagerResult

if TYPE_CHECKING:
    from pit.floor.seating import Habit

CAGE = "cage window 1"  # a record's words, the same in every language
HIGH_ROLLER_UNIT = 80  # table minimums a stake
HIGH_ROLLER_STAKES = 6  # at least, in a buy-in: one coup's handle is more than the minimal-gaming share


@dataclass(frozen=True)
class Roles:
    """Which of the club's cards play which part in its cash (None: the club is too small for it)."""

    high_rollers: tuple[str, ...]
    structurer: str | None
    minimal: str | None

    @classmethod
    def of(cls, cards: list[str]) -> Roles:
        # The first card is the lender and the last the excluded patron (pit.floor.seating).
        if len(cards) < 8:
            return cls((), None, None)
        return cls((cards[1], cards[2]), cards[3], cards[4])

    def habit(self, habit: Habit) -> Habit:
        """A patron's habit at the table, made to fit their part in the cash."""
        if habit.card in self.high_rollers:
            return replace(habit, unit=HIGH_ROLLER_UNIT, side_bets=0.0, leave=0.003)
        if habit.card == self.minimal:
            return replace(habit, unit=1, side_bets=0.0, leave=0.6)
        return habit


def _down(amount: Decimal, step: Decimal) -> Decimal:
    return (amount / step).to_integral_value(rounding=ROUND_FLOOR) * step


def just_under(amount: Decimal, rules: CashRules) -> bool:
    """Whether `amount` is in a structuring band (pit.cash.patterns: from the band's share of the
    MTL or CTR threshold up to it)."""
    return any(
        limit > 0 and limit * rules.structuring_band <= amount <= limit
        for limit in (rules.mtl_threshold, rules.ctr_threshold)
    )


class Cage:
    """The club's cash, kept by the in-process client: each patron's chips (what the seats and the
    cage recorded, carried from session to session and day to day) and the cage's transactions."""

    def __init__(self, roles: Roles, patrons: dict[str, Patron], actor: Actor = SYSTEM) -> None:
        self.roles, self.patrons, self.actor = roles, patrons, actor
        self.chips: dict[tuple[str, str], Decimal] = defaultdict(Decimal)  # (card, currency): chips carried
        self.seated: set[str] = set()
        self.stood: set[str] = set()  # the cards that stood at a table since the cage's last redemptions
        self._rules: CashRules | None = None

    @property
    def rules(self) -> CashRules:
        if self._rules is None:
            self._rules = rules_at(timezone.now())
        return self._rules

    # ---- at the table
    def buy_in(self, card: str | None, stake: Decimal, multiple: int) -> Decimal:
        """The cash a player sitting down buys in with, in the table's currency (the stake's)."""
        rules = self.rules
        if card is not None and card == self.roles.structurer:
            return Decimal(0)  # plays the chips bought at the cage
        if card is not None and card == self.roles.minimal:
            middle = (rules.pattern_floor + rules.ctr_threshold * rules.structuring_band) / 2
            return max(_down(middle, stake), stake)
        if card is not None and card in self.roles.high_rollers:
            stakes = max(HIGH_ROLLER_STAKES, int(rules.ctr_threshold // stake) + 1)
            return stake * stakes
        # Under the MTL threshold's band: a multiple of the stake, one stake at least.
        cap = rules.mtl_threshold * rules.structuring_band
        amount = stake * multiple
        if amount >= cap:
            amount = _down(cap - Decimal("0.01"), stake)
        return max(amount, stake)

    def sat(self, card: str | None) -> None:
        if card is not None:
            self.seated.add(card)

    def walked(self, session: SeatSession) -> Decimal | None:
        """The chips a patron takes away at stand-up: what they carried in, their buy-ins and their
        result at the seat (never less than nothing); None for an unrated player (not counted)."""
        patron = seats.session_patron(session)
        if patron is None:
            return None
        card, currency = patron.card_number, session.table.currency
        minor = sum(
            (-b.amount_minor if b.reverses_id else b.amount_minor) for b in BuyIn.objects.filter(session=session)
        )
        for wager in seats.session_wagers(session):
            if wager.result == WagerResult.WIN:
                minor += wager.payout_minor - wager.commission_minor
            elif wager.result == WagerResult.LOSE:
                minor -= wager.amount_minor
            else:
                minor -= wager.commission_minor
        chips = max(self.chips[card, currency] + from_minor(minor, currency), Decimal(0))
        self.chips[card, currency] = chips
        self.seated.discard(card)
        self.stood.add(card)
        return chips

    # ---- at the cage
    def _record(self, card: str, kind: str, amount: Decimal, currency: str, at: dt.datetime, number: int) -> None:
        day = gaming_day_for(at)
        transaction_record(
            cash=CashInput(
                reference=f"sim-cage:{day}:{card}:{kind}:{currency}:{number}",
                kind=kind,
                at=at,
                currency=currency,
                amount=amount,
                location=CAGE,
                patron=self.patrons[card],
            ),
            actor=self.actor,
        )

    def day_begins(self, day: dt.date, opens: dt.datetime) -> None:
        """Before the tables open (at `opens`): the structurer buys chips twice, each just under the
        MTL threshold."""
        card = self.roles.structurer
        if card is None or card not in self.patrons:
            return
        at = max(opens - dt.timedelta(minutes=45), gaming_day_bounds(day)[0])
        limit, currency = self.rules.mtl_threshold, self.rules.reporting_currency
        for number, share in enumerate((Decimal("0.97"), Decimal("0.93"))):
            amount = _down(limit * share, Decimal(100))
            moment = at + dt.timedelta(minutes=20 * number)
            self._record(card, CashKind.CHIP_PURCHASE, amount, currency, moment, number)
            self.chips[card, currency] += amount

    def day_ends(self, day: dt.date, closes: dt.datetime, now: dt.datetime) -> None:
        """After the day's play (the tables close at `closes`): every patron who played and is not
        seated redeems their chips, but for an amount just under a threshold, kept for another day
        (see the module's docstring); one who did not play keeps theirs."""
        at = min(closes + dt.timedelta(minutes=30), now - dt.timedelta(seconds=len(self.chips) + 1))
        for number, (card, currency) in enumerate(sorted(key for key, chips in self.chips.items() if chips > 0)):
            if card in self.seated or card not in self.stood or card not in self.patrons:
                continue
            amount = _down(self.chips[card, currency], Decimal(1))
            if amount <= 0 or (currency == self.rules.reporting_currency and just_under(amount, self.rules)):
                continue
            self._record(card, CashKind.CHIP_REDEMPTION, amount, currency, at + dt.timedelta(seconds=number), 0)
            self.chips[card, currency] -= amount
        self.stood.clear()
