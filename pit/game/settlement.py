"""Settling a wager under a paytable, exact to the cent, and the checks of what was actually paid."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .coup import Evaluation
from .money import CENT, format_amount, to_decimal
from .paytables import BET_TYPES, BetResult, CommissionMode, Paytable
from .violations import Violation, violation

ZERO = Decimal("0.00")


class UnknownBet(ValueError):
    """A bet type the paytable does not offer."""

    def __init__(self, bet: str, paytable: Paytable):
        self.bet = bet
        super().__init__(f"{bet!r} is not a bet on paytable {paytable.name!r} (it offers {', '.join(paytable.bets)})")


@dataclass(frozen=True, slots=True)
class Settlement:
    """What a wager comes to: `payout` is paid beyond the returned stake (0 on push and lose);
    `commission` is owed into the seat's commission box (box mode only); `deducted` is the
    commission already withheld from the payout (deducted mode only)."""

    result: BetResult
    payout: Decimal
    commission: Decimal
    deducted: Decimal = ZERO
    bet: str = ""
    amount: Decimal = ZERO


# A payout at fractional odds (1:2, 19:20) rounds down to the unit paid (the cent, or the yen): the
# house never overpays by rounding. Commission is rate x the win actually paid, rounded by the
# paytable's own rounding, never finer than the unit (a 126.50 commission does not exist in yen).
def _floor_to(amount: Fraction, unit: Decimal) -> Decimal:
    return unit * math.floor(amount / Fraction(unit))


def settle(
    paytable: Paytable,
    bet: str,
    amount: Decimal | int | str,
    evaluation: Evaluation,
    *,
    unit: Decimal = CENT,
) -> Settlement:
    """Settle `amount` on `bet` for the evaluated coup. Raises UnknownBet for a bet not offered.

    `unit` is the smallest amount the table pays or charges: the cent by default, 1 for a currency
    without minor units (ISO 4217 exponent 0); `pit.core.money.settlement_unit` gives it per currency."""
    if bet not in paytable.bets:
        raise UnknownBet(bet, paytable)
    stake = to_decimal(amount, "wager amount")
    if stake <= 0:
        raise ValueError(f"a wager amount must be above 0, not {stake}")
    rule = paytable.resolve(bet, evaluation.facts)
    if rule.result is not BetResult.WIN:
        return Settlement(rule.result, ZERO, ZERO, ZERO, bet, stake)
    assert rule.odds is not None  # BetRule guarantees odds on a win
    gross = _floor_to(Fraction(stake) * rule.odds.as_fraction(), unit)
    commission = ZERO
    if rule.commission and paytable.commission_mode is not CommissionMode.NONE:
        rounding = paytable.commission_rounding.at_least(unit)
        commission = rounding.apply(Fraction(paytable.commission_rate) * Fraction(gross))
    if paytable.commission_mode is CommissionMode.DEDUCTED:
        return Settlement(BetResult.WIN, gross - commission, ZERO, commission, bet, stake)
    return Settlement(BetResult.WIN, gross, commission, ZERO, bet, stake)


def house_win(amount: Decimal | int | str, settlement: Settlement) -> Decimal:
    """What the house keeps from one wager: the stake if lost, less the payout, plus commission owed."""
    lost = to_decimal(amount, "wager amount") if settlement.result is BetResult.LOSE else ZERO
    return lost - settlement.payout + settlement.commission


def _bet_phrase(settlement: Settlement) -> str:
    name = BET_TYPES.get(settlement.bet, settlement.bet.replace("_", " ").title() or "the")
    stake = format_amount(settlement.amount)
    if settlement.result is BetResult.WIN:
        return f"the winning {name} bet of {stake}"
    if settlement.result is BetResult.LOSE:
        return f"the losing {name} bet of {stake}"
    return f"the {name} bet of {stake}, which pushed"


def check_payout(settlement: Settlement, paid: Decimal | int | str) -> Violation | None:
    """payout_mismatch when `paid` (beyond the returned stake) differs from the settlement."""
    paid_amount = to_decimal(paid, "paid amount")
    if paid_amount == settlement.payout:
        return None
    if settlement.result is BetResult.WIN:
        expected = f"the paytable pays {format_amount(settlement.payout)}"
    elif settlement.result is BetResult.PUSH:
        expected = "a push returns the stake and pays nothing more"
    else:
        expected = "a losing bet is paid nothing"
    return violation("payout_mismatch", f"Paid {format_amount(paid_amount)} on {_bet_phrase(settlement)}; {expected}.")


def check_commission(settlement: Settlement, charged: Decimal | int | str) -> Violation | None:
    """commission_mismatch when the commission owed into the box differs from the settlement."""
    charged_amount = to_decimal(charged, "commission")
    if charged_amount == settlement.commission:
        return None
    expected = (
        f"the paytable says {format_amount(settlement.commission)}"
        if settlement.commission
        else "no commission is owed on it"
    )
    return violation(
        "commission_mismatch",
        f"Commission of {format_amount(charged_amount)} was charged on {_bet_phrase(settlement)}; {expected}.",
    )


def check_box_count(
    expected: Decimal | int | str, counted: Decimal | int | str, *, where: str | None = None
) -> Violation | None:
    """box_variance when the commission box count differs from what the ledger says it should hold."""
    owed = to_decimal(expected, "expected commission")
    found = to_decimal(counted, "counted commission")
    if owed == found:
        return None
    box = f"The commission box for {where}" if where else "The commission box"
    direction = "short" if found < owed else "over"
    return violation(
        "box_variance",
        f"{box} counted {format_amount(found)} against {format_amount(owed)} owed by the ledger; "
        f"{direction} by {format_amount(abs(owed - found))}.",
    )
