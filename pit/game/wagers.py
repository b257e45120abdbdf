"""Table limits, and the checks of one coup's wagers against them: minimum, maximum, increments and
a seat on both sides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from .money import format_amount, to_decimal
from .paytables import BET_TYPES
from .violations import Violation, violation


@dataclass(frozen=True, slots=True)
class BetLimit:
    """The table minimum and maximum for one bet type, and its increment if it has one."""

    minimum: Decimal
    maximum: Decimal
    increment: Decimal | None = None

    def __post_init__(self) -> None:
        minimum = to_decimal(self.minimum, "minimum")
        maximum = to_decimal(self.maximum, "maximum")
        if minimum < 0 or maximum < minimum:
            raise ValueError(f"limits need 0 <= minimum <= maximum, not {minimum} to {maximum}")
        object.__setattr__(self, "minimum", minimum)
        object.__setattr__(self, "maximum", maximum)
        if self.increment is not None:
            increment = to_decimal(self.increment, "increment")
            if increment <= 0:
                raise ValueError(f"an increment must be above 0, not {increment}")
            object.__setattr__(self, "increment", increment)


@dataclass(frozen=True)
class TableLimits:
    """Limits per bet type; a bet type without a limit is not checked."""

    bets: Mapping[str, BetLimit] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "bets", dict(self.bets))


@dataclass(frozen=True, slots=True)
class WagerLine:
    seat: str | int
    bet: str
    amount: Decimal

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", to_decimal(self.amount, "wager amount"))


def _bet_name(bet: str) -> str:
    return BET_TYPES.get(bet, bet.replace("_", " ").title())


def check_wager_limits(
    limits: TableLimits,
    wagers: Sequence[WagerLine],
    increments: Mapping[str, Decimal] | None = None,
) -> list[Violation]:
    """Every limit one coup's wagers break.

    A seat's wagers on one bet type are added up first (a stake may be posted as several lines).
    `increments` adds the paytable's bet increments (e.g. Banker in 5s on mini-baccarat) to those
    of the limits.
    """
    totals: dict[tuple[str | int, str], Decimal] = {}
    for wager in wagers:
        key = (wager.seat, wager.bet)
        totals[key] = totals.get(key, Decimal(0)) + wager.amount
    extra_increments = {bet: to_decimal(value, f"increment for {bet}") for bet, value in (increments or {}).items()}

    found: list[Violation] = []
    for (seat, bet), amount in totals.items():
        name, shown = _bet_name(bet), format_amount(amount)
        limit = limits.bets.get(bet)
        if limit is not None:
            if amount > limit.maximum:
                found.append(
                    violation(
                        "wager_over_maximum",
                        f"Seat {seat} bet {shown} on {name}; the table maximum for {name} is "
                        f"{format_amount(limit.maximum)}.",
                    )
                )
            elif amount < limit.minimum:
                found.append(
                    violation(
                        "wager_under_minimum",
                        f"Seat {seat} bet {shown} on {name}; the table minimum for {name} is "
                        f"{format_amount(limit.minimum)}.",
                    )
                )
        steps = {step for step in (limit.increment if limit else None, extra_increments.get(bet)) if step}
        for step in sorted(steps):
            if amount % step != 0:
                found.append(
                    violation(
                        "wager_off_increment",
                        f"Seat {seat} bet {shown} on {name}; {name} bets go in increments of {format_amount(step)}.",
                    )
                )

    seats = dict.fromkeys(seat for seat, _ in totals)
    for seat in seats:
        if (seat, "player") in totals and (seat, "banker") in totals:
            found.append(
                violation(
                    "seat_bet_both_sides",
                    f"Seat {seat} bet on both Player ({format_amount(totals[seat, 'player'])}) and Banker "
                    f"({format_amount(totals[seat, 'banker'])}) in the same coup.",
                )
            )
    return found
