"""The floor simulator: a dealer who plays real shoes by the engine's rules, wagers as players do,
and makes mistakes on purpose at set rates, talking to the pit through a `FloorClient`.

The dealer owns the game on the table (shuffle, burn, cut card, coups by `game.deal_coup`, settling
by `game.settle`, the commission box); the client owns the transport (the services in-process, or
the REST API over HTTP). The dealer never re-implements a rule: a fault is made by changing what
the engine dealt or settled, and every fault it injects is logged so tests can check it is found.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Protocol, cast

from pit import game
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.core.money import settlement_unit
from pit.floor.seating import Habit, PatronClub
from pit.game import counting

# The faults the dealer can make, and the violation code each one should be found as.
FAULT_CODES: dict[str, str] = {
    "wrong_draw": "banker_extra_card | banker_missing_card | player_extra_card",
    "misreported_winner": "reported_winner_mismatch",
    "wrong_payout": "payout_mismatch",
    "miscounted_box": "box_variance",
    "foreign_card": "card_over_capacity",
    # Game protection: a shoe dealt again in the order of the dealer's previous shoe (per shoe).
    "replayed_shoe": "shoe_sequence_repeat",
    # Game protection: a seat (per table, at this rate) that counts cards and bets the side bets
    # exactly when the cards left make them worth more than they cost.
    "side_bet_counter": "side_bet_advantage_play",
    # Game protection: at a table offering Perfect Pair (per table, at this rate), a seat that bets
    # Perfect Pair only, and only when the cards left (by rank and suit) make it positive.
    "perfect_pair_counter": "side_bet_advantage_play",
    # Game protection: a table (per table, at this rate) where players know the result before they
    # bet (marked cards, a dealer who flashes, past-posting): on HOT_TABLE_SHARE of the coups every
    # seat's Player or Banker bet is on the coming winner. The cards and payouts stay right.
    "hot_table": "win_deviation",
    # Game protection: a table (per table, at this rate) whose card reader dies during its last shoe:
    # the shoe is left dealing at the open table and no coup comes after.
    "silent_reader": "stale_feed",
    # Game protection: one dealer of the roster (see `DealerRoster`) mispays or misdeals on this
    # share of the coups they deal (each mistake is logged as a wrong_payout or wrong_draw too).
    "erring_dealer": "dealer_error_rate",
    # Game protection: a table (per table, at this rate) whose coups of its first gaming day come
    # FAST_COUP_SECONDS apart, at least two shoes of them: more an hour than a dealer can deal.
    "fast_table": "coup_rate_high",
}
FAULT_KINDS: tuple[str, ...] = tuple(FAULT_CODES)
# The injections drawn per table (at most once per table and run), from a generator of their own so
# that a rate that picks no table changes nothing else of the run.
TABLE_INJECTIONS = ("hot_table", "silent_reader", "fast_table")
HOT_TABLE_SHARE = 0.75
FAST_COUP_SECONDS = 25
ROTATION_MINUTES = 40

# Stakes for bets that have no table limit: (minimum, maximum).
DEFAULT_MAIN_LIMITS = (Decimal(25), Decimal(5000))
DEFAULT_SIDE_LIMITS = (Decimal(5), Decimal(500))
SIDE_BET_CHANCE = {"tie": 0.10, "player_pair": 0.07, "banker_pair": 0.07, "dragon_7": 0.12, "panda_8": 0.12}
# Any other side bet a table offers (Perfect Pair, Dragon Bonus, the Tigers, Super Tie ...).
OTHER_SIDE_BET_CHANCE = 0.05
CHIP = Decimal(5)


class SimulationError(RuntimeError):
    """The pit refused something an honest (or deliberately faulty) dealer sent: a bug, not a fault."""


# ------------------------------------------------------------------------------------ the transport


@dataclass(frozen=True)
class TableSetup:
    """What the dealer needs to know about a table: seats, currency, paytable and limits."""

    code: str
    seats: tuple[int, ...]
    currency: str
    paytable: game.Paytable
    limits: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)


@dataclass(frozen=True)
class WagerPlay:
    seat: int
    bet: str
    amount: Decimal
    paid: Decimal


@dataclass(frozen=True)
class CoupPlay:
    number: int
    player: tuple[str, ...]
    banker: tuple[str, ...]
    dealt_at: dt.datetime
    reported_winner: str
    wagers: tuple[WagerPlay, ...]


@dataclass(frozen=True)
class DealingShoe:
    """A shoe dealing at a table, as far as the pit knows it: enough for a dealer to go on with it."""

    shoe_id: int
    sequence: int
    decks: int
    cut_card_position: int
    cards_dealt: int
    coups_recorded: int
    cards_seen: dict[str, int]
    box: dict[int, Decimal]  # what each seat owes the commission box now


class FloorClient(Protocol):
    """How the dealer talks to the pit. Two implementations: services (in-process) and HTTP (the API)."""

    def table_setup(self, code: str) -> TableSetup: ...

    def table_open(self, code: str, at: dt.datetime) -> None: ...

    def dealing_shoe_close(self, code: str, at: dt.datetime) -> None:
        """Close a shoe an earlier run left dealing at the table, with the box the ledger expects."""

    def dealing_shoe(self, code: str) -> DealingShoe | None:
        """The shoe dealing at the table, to go on with; None if there is none (or it cannot be known)."""

    def shoe_start(
        self, code: str, *, decks: int, cut_card_position: int, burn: list[str], shuffled_at: dt.datetime
    ) -> tuple[int, int]:
        """Start a shoe; its (id, sequence at the table)."""

    def coups_record(self, shoe_id: int, coups: list[CoupPlay]) -> list[int]:
        """Record the coups; the ids of the recorded coups, in order."""

    def commission_collect(self, shoe_id: int, seat: int) -> None: ...

    def shoe_close(self, shoe_id: int, counts: list[tuple[int, Decimal]], closed_at: dt.datetime) -> None: ...

    def dealer_rotate(self, code: str, dealer: str | None, started_at: dt.datetime) -> None:
        """`dealer` (a code; None: nobody) comes in at the table at `started_at`."""


# ------------------------------------------------------------------------------------ the fault log


class SeatingClient(Protocol):
    """A floor client that also seats players (in process: through the services)."""

    def seat_player(self, code: str, seat: int, at: dt.datetime, *, card: str | None, buy_in: Decimal) -> int: ...

    def stand_player(self, session_id: int, at: dt.datetime) -> None: ...


@dataclass
class InjectedFault:
    """One deliberate mistake: where it was made and the violation code that should find it."""

    kind: str
    code: str
    table: str
    shoe_sequence: int
    coup_number: int | None = None
    seat: int | None = None
    detail: str = ""
    shoe_id: int | None = None
    coup_id: int | None = None
    dealer: str | None = None  # the dealer dealing when it was made (with a roster of dealers)
    gaming_day: dt.date | None = None

    def __str__(self) -> str:
        where = f"{self.table} shoe {self.shoe_sequence}"
        if self.coup_number is not None:
            where += f" coup {self.coup_number}"
        if self.seat is not None:
            where += f" seat {self.seat}"
        if self.dealer is not None:
            where += f" dealer {self.dealer}"
        return f"{self.kind} ({self.code}) at {where}: {self.detail}"


@dataclass
class SimulationResult:
    faults: list[InjectedFault] = field(default_factory=list)
    shoes: int = 0
    coups: int = 0
    wagers: int = 0
    handle: Decimal = Decimal(0)
    shoe_ids: list[int] = field(default_factory=list)
    coup_ids: list[int] = field(default_factory=list)
    _digest: hashlib._Hash = field(default_factory=hashlib.sha256, repr=False)

    @property
    def digest(self) -> str:
        """A fingerprint of every card, wager, payment and fault: the same seed gives the same digest."""
        return self._digest.hexdigest()

    def absorb(self, text: str) -> None:
        self._digest.update(text.encode())


def parse_fault_rates(text: str | None) -> dict[str, float]:
    """'wrong_draw=0.01,wrong_payout=0.02' or a bare '0.01' for every kind; ValueError naming the problem."""
    rates = dict.fromkeys(FAULT_KINDS, 0.0)
    if not text:
        return rates
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        name, sep, value = part.partition("=")
        names = FAULT_KINDS if not sep or name.strip() == "all" else (name.strip(),)
        value = value if sep else name
        for kind in names:
            if kind not in rates:
                raise ValueError(f"{kind!r} is not a fault (faults: {', '.join(FAULT_KINDS)}, or all)")
        try:
            rate = float(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a rate between 0 and 1") from None
        if not 0 <= rate <= 1:
            raise ValueError(f"a fault rate is between 0 and 1, not {rate}")
        for kind in names:
            rates[kind] = rate
    return rates


# ------------------------------------------------------------------------------------ time


class LiveClock:
    """Now, for a floor dealing in real time."""

    def tick(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)

    def peek(self) -> dt.datetime:
        return self.tick()


class Clock:
    """The moments coups are dealt at: `start`, then every `interval`, never past `end`."""

    def __init__(self, start: dt.datetime, interval: dt.timedelta, end: dt.datetime):
        self.moment, self.interval, self.end = start, interval, end

    def tick(self) -> dt.datetime:
        moment = min(self.moment, self.end)
        self.moment += self.interval
        return moment

    def peek(self) -> dt.datetime:
        return min(self.moment, self.end)


class FloorClock(Protocol):
    """What a table deals by: a Clock (simulated time) or a LiveClock (now)."""

    def tick(self) -> dt.datetime: ...

    def peek(self) -> dt.datetime: ...


# ------------------------------------------------------------------------------------ the dealers


class DealerRoster:
    """The pit's dealers (SIM01, SIM02 ...) and their rotation: on a fixed clock every
    ROTATION_MINUTES, each table's dealer hands over to the one from the table before, so every
    dealer deals at every table in turn and, with more dealers than tables, some are on a break. No
    dealer is at two tables at once (there must be at least as many dealers as tables). With the
    `erring_dealer` fault, one of them (seeded) mispays or misdeals on that share of their coups."""

    def __init__(self, size: int, tables: Iterable[str], *, erring_rate: float = 0.0, seed: int = 0):
        codes = sorted(set(tables))
        if size < len(codes):
            raise ValueError(f"{size} dealers cannot deal at {len(codes)} tables at once")
        self.codes = [f"SIM{number:02d}" for number in range(1, size + 1)]
        self.place = {code: index for index, code in enumerate(codes)}
        self.erring_rate = erring_rate
        self.erring = random.Random(f"pit-floor-dealers:{seed}").choice(self.codes) if erring_rate > 0 else None
        self.erring_logged = False

    def dealer_at(self, table: str, moment: dt.datetime) -> tuple[str, dt.datetime]:
        """Who deals at the table at that moment, and since when."""
        period = ROTATION_MINUTES * 60
        slot = int(moment.timestamp() // period)
        since = dt.datetime.fromtimestamp(slot * period, dt.UTC)
        return self.codes[(self.place[table] + slot) % len(self.codes)], since


# ------------------------------------------------------------------------------------ the dealer


@dataclass
class _Player:
    unit: int  # stake in table minimums
    side: str  # "player" or "banker"
    loyalty: float  # chance of staying on the same side after a loss
    habit: Habit | None = None  # with a patron club: who sits there and how they play
    session_id: int | None = None  # their seat session, once seated


class Dealer:
    """Plays shoes at one table: shuffles, burns, deals coups, takes and settles wagers, collects
    the commission box, and makes the mistakes its fault rates call for."""

    def __init__(
        self,
        client: FloorClient,
        setup: TableSetup,
        *,
        rng: random.Random,
        faults: dict[str, float],
        result: SimulationResult,
        seats_occupied: int,
        decks: int = 8,
        batch_size: int = 25,
        on_coup: Callable[[], None] | None = None,
        roster: DealerRoster | None = None,
        injections: random.Random | None = None,
        club: PatronClub | None = None,
    ):
        self.client, self.setup, self.rng, self.faults = client, setup, rng, faults
        # Patrons seated through the client, drawn from a generator of their own (the cards and
        # wagers of a run without a club stay as they were).
        self.club = club
        self.club_rng = random.Random(f"pit-floor-club:{setup.code}")
        self.seated_at: dict[int, dt.datetime] = {}  # each seat's last sit-down
        self.roster = roster
        self.dealing: str | None = None  # the dealer at the table now (with a roster)
        self.injections = injections or random.Random(f"pit-floor-inject:{setup.code}")
        # Per-table injections: drawn only when asked for, from their own generator.
        self.injected = {
            kind for kind in TABLE_INJECTIONS if faults.get(kind, 0) > 0 and self.injections.random() < faults[kind]
        }
        self.hot_logged = False
        self.position: tuple[int, int, int] | None = None  # (shoe id, sequence, last coup number) dealt
        self.result, self.decks, self.batch_size = result, decks, max(1, batch_size)
        self.on_coup = on_coup or (lambda: None)
        self.seats_occupied = min(seats_occupied, len(setup.seats))
        self.players: dict[int, _Player] = {}
        for seat in sorted(self.rng.sample(list(setup.seats), self.seats_occupied)):
            self.players[seat] = self._new_player()
        self.box_mode = setup.paytable.commission_mode is game.CommissionMode.BOX
        self.last_order: list[game.Card] | None = None  # the previous shoe's cards, for a replay
        self.counter_seat: int | None = None
        # A fault at rate 0 draws nothing, so that honest runs deal exactly as they did before it existed.
        if self.players and faults.get("side_bet_counter", 0) > 0 and self.rng.random() < faults["side_bet_counter"]:
            self.counter_seat = min(self.players)
        self.counter_logged = False
        self.perfect_pair_seat: int | None = None
        rate = faults.get("perfect_pair_counter", 0)
        if self.players and "perfect_pair" in setup.paytable.bets and rate > 0 and self.rng.random() < rate:
            self.perfect_pair_seat = max(self.players)
        self.perfect_pair_logged = False

    # ---- players and wagers
    def _new_player(self) -> _Player:
        return _Player(
            unit=self.rng.choice((1, 1, 2, 2, 3, 4, 6, 10)),
            side=self.rng.choice(("banker", "banker", "player")),
            loyalty=self.rng.uniform(0.4, 0.9),
        )

    def _limits(self, bet: str) -> tuple[Decimal, Decimal]:
        if bet in self.setup.limits:
            return self.setup.limits[bet]
        return DEFAULT_MAIN_LIMITS if bet in game.MAIN_BETS else DEFAULT_SIDE_LIMITS

    def _stake(self, bet: str, units: int) -> Decimal:
        """A stake of `units` table minimums, in the bet's increments and within the table limits."""
        minimum, maximum = self._limits(bet)
        step = self.setup.paytable.bet_increments.get(bet) or CHIP
        amount = max(minimum * units, step)
        amount = -(-amount // step) * step  # up to the increment
        if amount > maximum:
            amount = (maximum // step) * step
        return amount if amount >= minimum else minimum

    def _wagers_for(self, seat: int, player: _Player) -> list[tuple[str, Decimal]]:
        offered = self.setup.paytable.bets
        if self.rng.random() < 0.08:  # sits this coup out
            return []
        wagers = []
        habit = player.habit
        unit, side = (habit.unit, habit.side) if habit is not None else (player.unit, player.side)
        appetite = habit.side_bets if habit is not None else 1.0
        main = side if side in offered else "player"
        wagers.append((main, self._stake(main, unit)))
        for bet, chance in SIDE_BET_CHANCE.items():
            if bet in offered and self.rng.random() < chance * appetite:
                wagers.append((bet, self._stake(bet, 1)))
        for bet in offered:
            if bet not in SIDE_BET_CHANCE and bet not in game.MAIN_BETS and self.rng.random() < OTHER_SIDE_BET_CHANCE:
                wagers.append((bet, self._stake(bet, 1)))
        return wagers

    def _side_bet_counter_wagers(
        self,
        seat: int,
        chosen: list[tuple[str, Decimal]],
        worth: dict[str, Fraction],
        faults: list[InjectedFault],
    ) -> list[tuple[str, Decimal]]:
        """The side-bet counter's wagers: its main bet, and every side bet that is positive."""
        wagers = [(bet, amount) for bet, amount in chosen if bet in game.MAIN_BETS] + [
            (bet, self._stake(bet, 1)) for bet, value in worth.items() if value > 0
        ]
        if worth and any(value > 0 for value in worth.values()) and not self.counter_logged:
            self.counter_logged = True
            faults.append(
                InjectedFault(
                    "side_bet_counter",
                    "side_bet_advantage_play",
                    self.setup.code,
                    0,
                    seat=seat,
                    detail="seat bets the side bets exactly when the count makes them positive",
                )
            )
        return wagers

    def _perfect_pair_counter_wagers(
        self,
        seat: int,
        chosen: list[tuple[str, Decimal]],
        worth: dict[str, Fraction],
        faults: list[InjectedFault],
    ) -> list[tuple[str, Decimal]]:
        """The Perfect Pair counter's wagers: its main bet, and Perfect Pair exactly when positive."""
        positive = worth.get("perfect_pair", 0) > 0
        wagers = [(bet, amount) for bet, amount in chosen if bet in game.MAIN_BETS]
        if not positive:
            return wagers
        if not self.perfect_pair_logged:
            self.perfect_pair_logged = True
            faults.append(
                InjectedFault(
                    "perfect_pair_counter",
                    "side_bet_advantage_play",
                    self.setup.code,
                    0,
                    seat=seat,
                    detail="seat bets Perfect Pair only, when the suits left make it positive",
                )
            )
        return [*wagers, ("perfect_pair", self._stake("perfect_pair", 1))]

    # ---- the shoe
    def play_shoe(self, clock: FloorClock, *, close: bool = True, max_coups: int | None = None) -> int:
        """Shuffle, burn, place the cut card and deal until the cut card comes out (or `max_coups`);
        close the shoe with the commission box count unless `close` is False. Returns the shoe id."""
        steps = self.deal_shoe(clock, close=close, max_coups=max_coups)
        for _ in steps:
            pass
        return self.result.shoe_ids[-1]

    def deal_shoe(
        self,
        clock: FloorClock,
        *,
        close: bool = True,
        max_coups: int | None = None,
        resume: DealingShoe | None = None,
    ):
        """`play_shoe` one coup at a time: a generator that yields after each coup is dealt (and,
        in batches of `batch_size`, recorded), so that a live floor can deal at several tables.

        With `resume`, go on dealing a shoe already dealing at the table instead of shuffling a
        new one: its unseen cards are the shoe's decks less every card seen, in an order no one
        knows (so, shuffled), and its cut card stays where it was placed."""
        rng, setup = self.rng, self.setup
        replayed = None
        if resume is None:
            shoe = game.new_shoe(self.decks, rng, cut_from_end=rng.randint(14, 20))
            replay_rate = self.faults.get("replayed_shoe", 0)
            if self.last_order is not None and replay_rate > 0 and rng.random() < replay_rate:
                # The previous shoe goes back in unshuffled: the same cards in the same order.
                shoe = game.Shoe(self.last_order, self.decks, cut_position=shoe.cut_position)
                replayed = InjectedFault(
                    "replayed_shoe",
                    "shoe_sequence_repeat",
                    setup.code,
                    0,
                    detail="the previous shoe dealt again without a shuffle",
                )
            self.last_order = list(shoe.order)
            burned = shoe.burn()
            shuffled_at = clock.tick()
            shoe_id, sequence = self.client.shoe_start(
                setup.code,
                decks=self.decks,
                cut_card_position=shoe.cut_position - len(burned),
                burn=[card.code for card in burned],
                shuffled_at=shuffled_at,
            )
            self.result.shoes += 1
            if replayed is not None:
                replayed.shoe_sequence, replayed.shoe_id = sequence, shoe_id
                self.result.faults.append(replayed)
                self.result.absorb(f"fault {replayed.kind} {sequence}\n")
            seen: Counter[str] = Counter(card.code for card in burned)
            box: dict[int, Decimal] = {}
            number = 0
        else:
            shoe_id, sequence, number = resume.shoe_id, resume.sequence, resume.coups_recorded
            seen = Counter(resume.cards_seen)
            unseen = [game.CARDS[code] for code in game.ALL_CARD_CODES for _ in range(resume.decks - seen[code])]
            rng.shuffle(unseen)
            shoe = game.Shoe(unseen, resume.decks, cut_position=max(0, resume.cut_card_position - resume.cards_dealt))
            box = dict(resume.box)
        self.result.shoe_ids.append(shoe_id)
        pending: list[CoupPlay] = []
        pending_faults: list[InjectedFault] = []
        foreign_card_due = False
        dealt_here = 0

        def flush() -> None:
            if not pending:
                return
            ids = self.client.coups_record(shoe_id, list(pending))
            self.result.coup_ids.extend(ids)
            by_number = dict(zip((play.number for play in pending), ids, strict=True))
            for fault in pending_faults:
                fault.shoe_id = shoe_id
                fault.coup_id = None if fault.coup_number is None else by_number.get(fault.coup_number)
            pending.clear()
            pending_faults.clear()

        while not shoe.cut_card_reached and (max_coups is None or dealt_here < max_coups):
            number += 1
            dealt_here += 1
            dealt_at = clock.tick()
            mistake = self._rotate(dealt_at)
            self._come_and_go(rng, dealt_at, flush, box, shoe_id)

            # The counter's count: what each side bet is worth on this coup, from every card seen.
            worth: dict = {}
            if (self.counter_seat is not None or self.perfect_pair_seat is not None) and shoe.cards_left >= 6:
                try:
                    worth = counting.side_bet_expectations(setup.paytable, shoe.decks, seen)
                except ValueError:  # a foreign card injected: counts the shoe cannot hold, nothing to count
                    worth = {}
            coup = shoe.deal_coup()
            faults: list[InjectedFault] = []
            if rng.random() < self.faults["wrong_draw"] or mistake == "draw":
                coup, fault = self._wrong_draw(coup, shoe)
                faults.append(fault)
            player_cards, banker_cards = [c.code for c in coup.player], [c.code for c in coup.banker]
            seen.update(player_cards + banker_cards)
            if rng.random() < self.faults["foreign_card"]:
                foreign_card_due = True
            if foreign_card_due:
                swapped = self._foreign_card(player_cards, banker_cards, seen, shoe.decks)
                if swapped is not None:
                    foreign_card_due = False
                    faults.append(swapped)

            evaluation = game.evaluate(game.Coup.from_codes(player_cards, banker_cards))
            reported = str(evaluation.winner)
            if rng.random() < self.faults["misreported_winner"]:
                reported = rng.choice([str(w) for w in game.Winner if w != evaluation.winner])
                faults.append(
                    InjectedFault(
                        "misreported_winner",
                        "reported_winner_mismatch",
                        setup.code,
                        0,
                        detail=f"reported {reported}; the cards give {evaluation.winner}",
                    )
                )

            wagers: list[WagerPlay] = []
            # At a hot table the players know the coming winner on most coups, and bet on it.
            knows = (
                "hot_table" in self.injected
                and evaluation.winner is not game.Winner.TIE
                and self.injections.random() < HOT_TABLE_SHARE
            )
            if knows and not self.hot_logged:
                self.hot_logged = True
                faults.append(
                    InjectedFault(
                        "hot_table",
                        "win_deviation",
                        setup.code,
                        0,
                        detail=f"players bet on the coming winner on {HOT_TABLE_SHARE:.0%} of the coups from here on",
                    )
                )
            for seat in sorted(self.players):
                player = self.players[seat]
                chosen = self._wagers_for(seat, player)
                if knows:
                    winner = str(evaluation.winner)
                    chosen = [
                        (winner, self._stake(winner, player.unit)) if bet in game.MAIN_BETS else (bet, amount)
                        for bet, amount in chosen
                    ]
                if seat == self.counter_seat:
                    chosen = self._side_bet_counter_wagers(seat, chosen, worth, faults)
                if seat == self.perfect_pair_seat and seat != self.counter_seat:
                    chosen = self._perfect_pair_counter_wagers(seat, chosen, worth, faults)
                for bet, amount in chosen:
                    settlement = game.settle(
                        setup.paytable, bet, amount, evaluation, unit=settlement_unit(setup.currency)
                    )
                    wagers.append(WagerPlay(seat, bet, amount, settlement.payout))
                    if settlement.commission:
                        box[seat] = box.get(seat, Decimal(0)) + settlement.commission
                    if (
                        bet == player.side
                        and settlement.result is game.BetResult.LOSE
                        and rng.random() > player.loyalty
                    ):
                        player.side = "player" if player.side == "banker" else "banker"
            if wagers and (rng.random() < self.faults["wrong_payout"] or mistake == "payout"):
                index = rng.randrange(len(wagers))
                wager = wagers[index]
                paid = wager.paid + wager.amount if wager.paid else wager.amount
                wagers[index] = WagerPlay(wager.seat, wager.bet, wager.amount, paid)
                faults.append(
                    InjectedFault(
                        "wrong_payout",
                        "payout_mismatch",
                        setup.code,
                        0,
                        seat=wager.seat,
                        detail=f"paid {paid} on seat {wager.seat}'s {wager.bet} bet of {wager.amount}; "
                        f"the paytable pays {wager.paid}",
                    )
                )

            play = CoupPlay(number, tuple(player_cards), tuple(banker_cards), dealt_at, reported, tuple(wagers))
            roster = self.roster
            made = {fault.kind for fault in faults} & {"wrong_draw", "wrong_payout"}
            if mistake and made and roster and not roster.erring_logged:
                roster.erring_logged = True
                faults.append(
                    InjectedFault(
                        "erring_dealer",
                        "dealer_error_rate",
                        setup.code,
                        0,
                        detail=f"dealer {self.dealing} mispays or misdeals on {roster.erring_rate:.0%} of their coups",
                    )
                )
            for fault in faults:
                fault.shoe_sequence, fault.coup_number = sequence, number
                fault.dealer = self.dealing
                self.result.faults.append(fault)
                pending_faults.append(fault)
                self.result.absorb(f"fault {fault.kind} {fault.code} {fault.coup_number} {fault.seat}\n")
            self.result.absorb(
                f"{setup.code} {number} {' '.join(player_cards)}|{' '.join(banker_cards)} "
                + f"{reported} "
                + " ".join(f"{w.seat}:{w.bet}:{w.amount}:{w.paid}" for w in wagers)
                + "\n"
            )
            self.position = (shoe_id, sequence, number)
            self.result.coups += 1
            self.result.wagers += len(wagers)
            self.result.handle += sum((w.amount for w in wagers), Decimal(0))
            pending.append(play)
            self.on_coup()
            if len(pending) >= self.batch_size:
                flush()
            yield number
        flush()
        if close:
            self._close(shoe_id, sequence, box, clock)

    def _rotate(self, moment: dt.datetime) -> str | None:
        """Post a rotation when the roster says another dealer deals now; the mistake the erring
        dealer makes on this coup, if any ("draw" or "payout")."""
        if self.roster is None:
            return None
        dealer, since = self.roster.dealer_at(self.setup.code, moment)
        if dealer != self.dealing:
            self.client.dealer_rotate(self.setup.code, dealer, since)
            self.result.absorb(f"rotation {self.setup.code} {dealer} {since.isoformat()}\n")
            self.dealing = dealer
        if dealer != self.roster.erring or self.injections.random() >= self.roster.erring_rate:
            return None
        return "payout" if self.injections.random() < 0.7 else "draw"

    def _come_and_go(
        self, rng: random.Random, dealt_at: dt.datetime, flush: Callable[[], None], box: dict, shoe_id: int
    ) -> None:
        """Players come and go between coups; a leaving player's commission is collected."""
        for seat in list(self.players):
            leaving = self.players[seat].habit
            if rng.random() < (leaving.leave if leaving is not None else 0.025):
                if self.players[seat].session_id is not None:
                    flush()  # the coups they played are posted before they stand up
                    self._stand(self.players[seat], dealt_at)
                del self.players[seat]
                if box.get(seat, 0) > 0:
                    flush()
                    self.client.commission_collect(shoe_id, seat)
                    box[seat] = Decimal(0)
        free = [seat for seat in self.setup.seats if seat not in self.players]
        if free and len(self.players) < self.seats_occupied and rng.random() < 0.3:
            self.players[rng.choice(free)] = self._new_player()
        if self.club is not None:
            self._seat_all(dealt_at)

    def _seat_all(self, at: dt.datetime) -> None:
        """Seat (through the client) every player not seated yet: a patron of the club's or an unrated one."""
        assert self.club is not None
        day = gaming_day_for(at)
        busy = {player.habit.card for player in self.players.values() if player.habit and player.habit.card}
        for seat, player in sorted(self.players.items()):
            # A clock held at the end of the day deals several coups at one moment: a seat takes one
            # sit-down per moment (its next player sits at the next one).
            if player.session_id is None and self.seated_at.get(seat) != at:
                self.seated_at[seat] = at
                player.habit = self.club.draw(self.setup.code, day, self.club_rng, busy)
                if player.habit.card:
                    busy.add(player.habit.card)
                stake = self._stake(player.habit.side, player.habit.unit)
                buy_in = self.club.buy_in(player.habit.card, day, stake, self.club_rng.choice((10, 20, 50)))
                player.session_id = cast(SeatingClient, self.client).seat_player(
                    self.setup.code, seat, at, card=player.habit.card, buy_in=buy_in
                )

    def _stand(self, player: _Player, at: dt.datetime) -> None:
        assert player.session_id is not None
        cast(SeatingClient, self.client).stand_player(player.session_id, at)
        player.session_id = None

    def off_duty(self, at: dt.datetime) -> None:
        """The table's play is over for the day: its dealer goes out and nobody comes in."""
        for player in self.players.values():
            if player.session_id is not None:
                self._stand(player, at)
        if self.roster is not None and self.dealing is not None:
            self.client.dealer_rotate(self.setup.code, None, at)
            self.dealing = None

    def fall_silent(self) -> None:
        """Log the reader dying after the last coup dealt (the shoe stays dealing, nothing more comes)."""
        assert self.position is not None, "a table falls silent after dealing"
        shoe_id, sequence, number = self.position
        fault = InjectedFault(
            "silent_reader",
            "stale_feed",
            self.setup.code,
            sequence,
            coup_number=number,
            shoe_id=shoe_id,
            coup_id=self.result.coup_ids[-1],
            dealer=self.dealing,
            detail="the card reader went silent after this coup, the shoe still dealing at the open table",
        )
        self.result.faults.append(fault)
        self.result.absorb(f"fault {fault.kind} {sequence} {number}\n")

    def _close(self, shoe_id: int, sequence: int, box: dict[int, Decimal], clock: FloorClock) -> None:
        counts = {seat: amount for seat, amount in box.items() if amount > 0}
        if self.box_mode and self.rng.random() < self.faults["miscounted_box"]:
            seat = self.rng.choice(sorted(counts) or sorted(self.players) or list(self.setup.seats))
            expected = counts.get(seat, Decimal(0))
            delta = self.rng.choice((Decimal("1.00"), Decimal("5.00"), Decimal("2.50")))
            counts[seat] = expected - delta if expected >= delta else expected + delta
            fault = InjectedFault(
                "miscounted_box",
                "box_variance",
                self.setup.code,
                sequence,
                seat=seat,
                shoe_id=shoe_id,
                detail=f"counted {counts[seat]} against {expected} collected",
            )
            self.result.faults.append(fault)
            self.result.absorb(f"fault {fault.kind} {seat} {counts[seat]}\n")
        self.client.shoe_close(shoe_id, sorted(counts.items()), clock.tick())

    # ---- faults
    def _wrong_draw(self, coup: game.Coup, shoe: game.Shoe) -> tuple[game.Coup, InjectedFault]:
        """A draw the rule did not call for, or a card withheld that it did. Banker acts last, so
        changing Banker's hand (or Player's on a natural, where both stand) breaks one rule only."""
        code = self.setup.code
        if len(coup.banker) == 3:
            withheld = coup.banker[2]
            return game.Coup(coup.player, coup.banker[:2]), InjectedFault(
                "wrong_draw",
                "banker_missing_card",
                code,
                0,
                detail=f"withheld Banker's third card {withheld}",
            )
        extra = shoe.draw()
        evaluation = game.evaluate(coup)
        if evaluation.natural and len(coup.player) == 2 and self.rng.random() < 0.5:
            return game.Coup((*coup.player, extra), coup.banker), InjectedFault(
                "wrong_draw", "player_extra_card", code, 0, detail=f"gave Player {extra} on a natural"
            )
        return game.Coup(coup.player, (*coup.banker, extra)), InjectedFault(
            "wrong_draw",
            "banker_extra_card",
            code,
            0,
            detail=f"gave Banker {extra}, which the rule did not call for",
        )

    def _foreign_card(
        self, player: list[str], banker: list[str], seen: Counter[str], decks: int
    ) -> InjectedFault | None:
        """Swap a card of the coup for one of the same rank (so no total, draw or pair changes) whose
        every copy has been seen already (a ninth in an 8-deck shoe); None when there is no such card yet."""
        for hand in (player, banker):
            for index, code in enumerate(hand):
                rank = code[0]
                for suit in game.SUITS:
                    other = rank + suit
                    if other != code and seen[other] == decks:
                        hand[index] = other
                        seen[code] -= 1
                        seen[other] += 1
                        return InjectedFault(
                            "foreign_card",
                            "card_over_capacity",
                            self.setup.code,
                            0,
                            detail=f"{game.parse_card(other)} dealt for the {seen[other]}th time "
                            f"from a shoe of {decks} decks",
                        )
        return None


# ------------------------------------------------------------------------------------ the run


def day_window(day: dt.date, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """When a table plays on a gaming day: from 14:00 to 05:00 (casino time), and never past `now`."""
    day_start, day_end = gaming_day_bounds(day)
    start, end = day_start + dt.timedelta(hours=8), day_end - dt.timedelta(hours=1)
    cap = now - dt.timedelta(seconds=30)
    if cap < end:
        end = cap
        start = min(start, end - dt.timedelta(hours=4))
    return max(start, day_start), max(end, day_start)


COUP_SECONDS = 80
COUPS_PER_SHOE = 82  # about, for an 8-deck shoe with a cut card 14-20 from the end


def simulate(
    client: FloorClient,
    *,
    tables: Iterable[str],
    days: int = 1,
    shoes_per_day: int = 1,
    seats: int = 5,
    faults: dict[str, float] | None = None,
    seed: int = 0,
    now: dt.datetime | None = None,
    decks: int = 8,
    leave_open: bool = False,
    batch_size: int = 25,
    on_coup: Callable[[], None] | None = None,
    last_day: dt.date | None = None,
    dealers: int = 0,
    patrons: int = 0,
) -> SimulationResult:
    """Play `shoes_per_day` shoes at each table on each of the last `days` gaming days (ending with
    the gaming day of `now`); with `leave_open`, end each table with a shoe part-dealt (dealing).
    With `dealers`, a roster of that many dealers rotates through the tables (`DealerRoster`), each
    rotation posted as a floor system does, so every coup has its dealer.

    The same seed gives the same cards, wagers and faults: each table has its own seeded generator.
    """
    rates = {**dict.fromkeys(FAULT_KINDS, 0.0), **(faults or {})}
    now = now or dt.datetime.now(dt.UTC)
    last_day = last_day or gaming_day_for(now)
    result = SimulationResult()
    codes = sorted(set(tables))
    roster = DealerRoster(dealers, codes, erring_rate=rates["erring_dealer"], seed=seed) if dealers else None
    # With `patrons` (and a client that seats players): a club of that many patrons plays the tables.
    club = PatronClub(patrons, codes, seed=seed) if patrons and hasattr(client, "seat_player") else None
    if club is not None:
        client.patrons_enrol(club)  # type: ignore[attr-defined]
    # The tables play day by day (every table's day before the next day), as a floor posts: a
    # patron's sessions at one table are stood before another table's next day is dealt.
    tables_dealt: list[tuple[int, str, Dealer, random.Random]] = []
    for index, code in enumerate(codes):
        setup = client.table_setup(code)
        rng = random.Random(f"pit-floor:{seed}:{code}")
        dealer = Dealer(
            client,
            setup,
            rng=rng,
            faults=rates,
            result=result,
            seats_occupied=seats,
            decks=decks,
            batch_size=batch_size,
            on_coup=on_coup,
            roster=roster,
            injections=random.Random(f"pit-floor-inject:{seed}:{code}"),
            club=club,
        )
        tables_dealt.append((index, code, dealer, rng))
    for offset in range(days - 1, -1, -1):
        day = last_day - dt.timedelta(days=offset)
        cage = club.cage if club is not None else None  # the patrons' cash at the cage (pit.floor.cash)
        if cage is not None:
            cage.day_begins(day, day_window(day, now)[0])
        for index, code, dealer, rng in tables_dealt:
            silent = "silent_reader" in dealer.injected
            # A fast table deals its first gaming day at an impossible pace, two shoes at least.
            fast = "fast_table" in dealer.injected and offset == days - 1
            shoes = max(shoes_per_day, 2) if fast else shoes_per_day
            left_dealing = offset == 0 and (leave_open or silent)
            start, end = day_window(day, now)
            start += dt.timedelta(minutes=7 * index)
            wanted = (shoes + (0.5 if left_dealing else 0)) * COUPS_PER_SHOE
            interval = min(dt.timedelta(seconds=COUP_SECONDS), max(end - start, dt.timedelta(0)) / max(wanted, 1))
            if fast:
                interval = dt.timedelta(seconds=FAST_COUP_SECONDS)
            if offset == 0:  # today ends now: play the last stretch before it
                start = max(start, end - interval * wanted)
            clock = Clock(start, interval, end)
            if offset == days - 1:
                client.dealing_shoe_close(code, clock.peek())
                client.table_open(code, clock.peek())
            for _ in range(shoes):
                dealer.play_shoe(clock)
            if fast:
                assert dealer.position is not None, "the table has dealt its shoes"
                fault = InjectedFault(
                    "fast_table",
                    "coup_rate_high",
                    code,
                    dealer.position[1],
                    shoe_id=dealer.position[0],
                    gaming_day=day,
                    detail=f"{shoes} shoes dealt {FAST_COUP_SECONDS} s a coup apart "
                    f"({3600 // FAST_COUP_SECONDS} coups an hour) on gaming day {day}",
                )
                result.faults.append(fault)
                result.absorb(f"fault {fault.kind} {day}\n")
            if left_dealing:
                dealer.play_shoe(clock, close=False, max_coups=rng.randint(12, 40))
                if silent:
                    dealer.fall_silent()
            else:
                dealer.off_duty(clock.tick())
        if cage is not None:
            cage.day_ends(day, day_window(day, now)[1], now)
    return result


def deal_live(
    client: FloorClient,
    *,
    tables: Iterable[str],
    seats: int = 5,
    faults: dict[str, float] | None = None,
    seed: int = 0,
    decks: int = 8,
    interval: float = 4.0,
    coups: int | None = None,
    sleep: Callable[[float], None] | None = None,
    on_coup: Callable[[], None] | None = None,
    dealers: int = 0,
) -> SimulationResult:
    """Deal in real time: a coup at each table in turn, one every `interval` seconds, shoe after
    shoe, until `coups` coups were dealt (forever when None). A shoe an earlier run left dealing
    is dealt on to its cut card (from its unseen cards) when the client can say what it holds.
    A table with a silent reader stops sending after 20 to 60 coups; `fast_table` is for batch runs."""
    import time

    sleep = sleep or time.sleep
    rates = {**dict.fromkeys(FAULT_KINDS, 0.0), **(faults or {})}
    result = SimulationResult()
    clock = LiveClock()
    codes = sorted(set(tables))
    roster = DealerRoster(dealers, codes, erring_rate=rates["erring_dealer"], seed=seed) if dealers else None
    at_table = {}
    resume = {}
    for code in codes:
        resume[code] = client.dealing_shoe(code)
        if resume[code] is None:
            client.dealing_shoe_close(code, clock.peek())
        client.table_open(code, clock.peek())
        at_table[code] = Dealer(
            client,
            client.table_setup(code),
            rng=random.Random(f"pit-floor-live:{seed}:{code}"),
            faults=rates,
            result=result,
            seats_occupied=seats,
            decks=decks,
            batch_size=1,
            on_coup=on_coup,
            roster=roster,
            injections=random.Random(f"pit-floor-live-inject:{seed}:{code}"),
        )
    shoes = {code: at_table[code].deal_shoe(clock, resume=resume[code]) for code in codes}
    silent_after = {
        code: dealer.injections.randint(20, 60)
        for code, dealer in at_table.items()
        if "silent_reader" in dealer.injected
    }
    dealt = 0
    while coups is None or dealt < coups:
        if silent_after and all(silent_after.get(code) == 0 for code in codes):
            break  # every table's reader went silent: nothing more will be heard
        for code in codes:
            if coups is not None and dealt >= coups:
                break
            if silent_after.get(code) == 0:
                continue
            try:
                next(shoes[code])
            except StopIteration:  # the cut card came out and the shoe was closed: shuffle up
                shoes[code] = at_table[code].deal_shoe(clock)
                next(shoes[code])
            dealt += 1
            if code in silent_after:
                silent_after[code] -= 1
                if silent_after[code] == 0:
                    at_table[code].fall_silent()
            sleep(interval / max(len(codes), 1))
    return result
