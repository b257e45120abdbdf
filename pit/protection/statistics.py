"""The arithmetic of game protection's findings, with no Django and no database (a test keeps it so)."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import Decimal
from typing import Protocol

from pit.game.money import decimal_sqrt

# ------------------------------------------------------------------------------ win against theoretical


def deviation_sums() -> dict[int | None, list]:
    """Deviation sums per table (None) and per seat: house win, theoretical win, variance (minor
    units), wagers."""
    return defaultdict(lambda: [0, Decimal(0), Decimal(0), 0])


def deviation_sums_add(into: dict[int | None, list], totals: dict[int | None, list]) -> None:
    for who, sums in totals.items():
        target = into[who]
        for index in range(4):
            target[index] += sums[index]


class Wager(Protocol):
    """What the deviation sums read of a wager row (read-only: a NamedTuple's fields are)."""

    @property
    def coup_id(self) -> int: ...
    @property
    def seat(self) -> int: ...
    @property
    def bet(self) -> str: ...
    @property
    def amount_minor(self) -> int: ...
    @property
    def payout_minor(self) -> int: ...
    @property
    def commission_minor(self) -> int: ...
    @property
    def result(self) -> str: ...


def deviation_totals(
    rows: Iterable[Wager],
    coup_of: dict[int, tuple[dt.date, int]],
    *,
    edges: dict[int, dict[str, tuple[Decimal, Decimal]]],
    products: dict[tuple[int, str, int], tuple[Decimal, Decimal]],
    lose: str,
) -> dict[dt.date, dict[int | None, list]]:
    """Per gaming day (`coup_of`: each coup's gaming day and paytable), per table (None) and per
    seat: house win, theoretical win, variance (minor units), wagers, from wager rows in coup order.
    `edges`: per paytable, per bet (house edge, standard deviation per unit); `products`: (paytable,
    bet, stake) -> (stake x house edge, stake x standard deviation per unit), filled as it goes;
    `lose`: the result of a lost wager.

    Wagers on one coup are not independent (seats on the same side win together; Player and Banker
    bets move against each other): a coup's standard deviation is bounded by the sum of its wagers'
    (stake x the bet's standard deviation per unit), and coups are independent."""
    by_day: dict[dt.date, dict[int | None, list]] = {}
    totals: dict[int | None, list] = deviation_sums()
    # The current coup's spread, of the whole table and of each seat.
    spread_seats: dict[int, Decimal]
    spread_table, spread_seats = Decimal(0), {}
    last_coup: int | None = None
    # Written out: the hottest loop of the sweep's protection. Each wager goes to its seat's sums;
    # the table's are the seats' (but for the spread, squared per coup), added up at the end.
    for row in rows:
        coup_id, seat, amount = row.coup_id, row.seat, row.amount_minor
        if coup_id != last_coup:
            totals[None][2] += spread_table * spread_table
            for seated, spread in spread_seats.items():
                totals[seated][2] += spread * spread
            spread_table, spread_seats = Decimal(0), {}
            last_coup = coup_id
            day, paytable_id = coup_of[coup_id]
            day_totals = by_day.get(day)
            if day_totals is None:
                day_totals = by_day[day] = deviation_sums()
            totals = day_totals
        # A pit repeats the same few stakes: each stake's theoretical and spread computed once.
        key = (paytable_id, row.bet, amount)
        product = products.get(key)
        if product is None:
            edge, unit_deviation = edges[paytable_id].get(row.bet, (Decimal(0), Decimal(0)))
            product = products[key] = (amount * edge, amount * unit_deviation)
        theoretical, spread = product
        sums = totals[seat]
        sums[0] += (amount if row.result == lose else 0) - row.payout_minor + row.commission_minor
        sums[1] += theoretical
        sums[3] += 1
        spread_table += spread
        spread_seats[seat] = spread_seats.get(seat, 0) + spread
    totals[None][2] += spread_table * spread_table
    for seated, spread in spread_seats.items():
        totals[seated][2] += spread * spread
    for totals in by_day.values():
        table = totals[None]
        for who, sums in totals.items():
            if who is not None:
                table[0] += sums[0]
                table[1] += sums[1]
                table[3] += sums[3]
    return by_day


def z_score(win: int, theoretical: Decimal, variance: Decimal) -> tuple[Decimal, Decimal]:
    """(standard deviations of the win from theoretical, one standard deviation), for a positive variance."""
    deviation = decimal_sqrt(variance)
    return (Decimal(win) - theoretical) / deviation, deviation


# ------------------------------------------------------------------------------ side bets against chance


class SideBetDay:
    """One table's gaming day as advantage play tests it: per side bet, how many coups had an
    expectation for it and how many of those were positive; per seat, its side bets on such coups
    (how many of each bet) and those that landed on a positive one (wager ids: the evidence is read
    for a finding only). Added up from any split of the day's coups (chunks, processes)."""

    __slots__ = ("opportunities", "positives", "bets", "hits")

    def __init__(self) -> None:
        self.opportunities: Counter = Counter()
        self.positives: Counter = Counter()
        self.bets: dict[int, Counter] = {}
        self.hits: dict[int, list[int]] = {}

    def add_coup(self, worth: dict[str, bool]) -> None:
        """A coup's side bets: bet -> whether its expectation was positive."""
        for bet, positive in worth.items():
            self.opportunities[bet] += 1
            if positive:
                self.positives[bet] += 1

    def add_wager(self, seat: int, bet: str, wager_id: int, positive: bool) -> None:
        bets = self.bets.get(seat)
        if bets is None:
            bets = self.bets[seat] = Counter()
        bets[bet] += 1
        if positive:
            self.hits.setdefault(seat, []).append(wager_id)

    def add(self, other: SideBetDay) -> None:
        self.opportunities.update(other.opportunities)
        self.positives.update(other.positives)
        for seat, bets in other.bets.items():
            self.bets.setdefault(seat, Counter()).update(bets)
        for seat, hits in other.hits.items():
            self.hits.setdefault(seat, []).extend(hits)

    def chance(self) -> dict[str, float]:
        """Each bet's chance of landing on a positive coup at random: its share of the day's coups
        that were positive for it."""
        return {bet: self.positives[bet] / count for bet, count in self.opportunities.items()}


def seat_chances(bets: Counter, chance: dict[str, float]) -> list[float]:
    """One chance per side bet the seat placed (in bet order), for the Poisson-binomial tail."""
    return [chance[bet] for bet, count in sorted(bets.items()) for _ in range(count)]


# ------------------------------------------------------------------------------ coups within an hour


def hours_over(
    table_coups: list[tuple[int, dt.datetime]], own: set[int], maximum: int, hour: dt.timedelta
) -> list[tuple[int, int, str]]:
    """(coup, coups within the hour up to it, its clock hour in UTC) for the first coup of `own` in
    each clock hour that made more than `maximum` coups within 60 minutes, from a table's coups
    (id, dealt time) in dealt order."""
    over = []
    hours_found: set[str] = set()
    start = 0
    for index, (pk, dealt_at) in enumerate(table_coups):
        while table_coups[start][1] <= dealt_at - hour:
            start += 1
        count = index - start + 1
        if count <= maximum or pk not in own:
            continue
        clock_hour = dealt_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H")
        if clock_hour in hours_found:
            continue
        hours_found.add(clock_hour)
        over.append((pk, count, clock_hour))
    return over
