"""Side-bet counting, for game protection: what every side bet was worth before a coup, from the
cards seen (burns included), and how unlikely a seat's timing of its side bets is by chance; and
the other statistics of game protection's findings (a dealer's error count against a rate)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

from .odds import Odds, card_composition_after, exact_odds
from .paytables import MAIN_BETS, Paytable
from .violations import Violation, violation


def side_bets(paytable: Paytable) -> list[str]:
    """The bets a counter can time: every bet but Player and Banker (Tie, pairs, Dragon 7, Panda 8,
    and every side bet of the field: Perfect Pair, Dragon Bonus, the Tigers, Super Tie ...)."""
    return [bet for bet in paytable.bets if bet not in MAIN_BETS]


def side_bet_expectations(
    paytable: Paytable, decks: int, cards_seen: Mapping[str, int] | Iterable[str]
) -> dict[str, Fraction]:
    """The exact expectation per unit staked of each side bet on the next coup, given the cards
    seen (by rank and suit: a suited or colour bet is priced over the 52 kinds of card, any other
    by ranks); ValueError for a shoe that cannot deal one (fewer than six cards, or impossible counts)."""
    return side_bet_values(paytable, coup_odds(paytable, decks, cards_seen))


def coup_odds(paytable: Paytable, decks: int, cards_seen: Mapping[str, int] | Iterable[str]) -> Odds:
    """The exact odds of every bet on the next coup, given the cards seen (by rank and suit, as
    `side_bet_expectations` prices them): what a coup's side bets are worth and what each of its bets'
    house edge is come from this one enumeration. ValueError as `side_bet_expectations`."""
    return exact_odds(paytable, card_composition_after(decks, cards_seen))


def side_bet_values(paytable: Paytable, odds: Odds) -> dict[str, Fraction]:
    """Each side bet's expectation per unit staked, from the coup's odds (`coup_odds`)."""
    return {bet: odds.bets[bet].expected_value for bet in side_bets(paytable)}


def tail_probability(chances: Sequence[float], hits: int) -> float:
    """P(at least `hits` successes) among independent trials with these chances (Poisson binomial):
    how likely a player who bets at random is to find at least `hits` of their side bets on
    positive-expectation coups, when each bet's coup was positive with its chance. A statistic, not
    money: computed in floating point (relative error about 1e-15 per trial)."""
    distribution = [1.0]
    for chance in chances:
        following = [0.0] * (len(distribution) + 1)
        for count, probability in enumerate(distribution):
            following[count] += probability * (1 - chance)
            following[count + 1] += probability * chance
        distribution = following
    return sum(distribution[hits:])


def advantage_play(
    seat: int | None, hits: int, bets: int, expected: float, p_value: float, evidence: str, who: str = ""
) -> Violation:
    """`who`: whom the finding names when it is not a seat (a patron across seats, tables and days)."""
    return violation(
        "side_bet_advantage_play",
        f"{who or f'Seat {seat}'} placed {hits} of its {bets} side bets on coups where the bet had a positive "
        f"expectation; betting at random it would have placed about {expected:.1f} there "
        f"(chance of doing this well by luck: {p_value:.1e}). Someone may be counting cards. "
        f"Positive coups bet: {evidence}.",
    )


def win_deviation(scope: str, deviations: float, win: str, theoretical: str, deviation: str, wagers: int) -> Violation:
    return violation(
        "win_deviation",
        f"{scope}: the house won {win} against a theoretical {theoretical} over {wagers} wagers, "
        f"{deviations:+.1f} standard deviations (one standard deviation is {deviation}).",
    )


def poisson_tail(mean: float, count: int) -> float:
    """P(X >= count) for X Poisson with this mean: how likely a dealer whose errors come at the
    threshold rate (`mean` expected over their coups) is to make at least `count` of them. Summed
    from `count` upwards (never 1 - the head), so a tail of 1e-12 keeps its digits."""
    if count <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    term = math.exp(count * math.log(mean) - mean - math.lgamma(count + 1))
    total, k = 0.0, count
    while term > 0 and (k <= mean or term > total * 1e-17):
        total += term
        k += 1
        term *= mean / k
    return min(total, 1.0)


def dealer_error_rate(
    dealer: str, day: str, errors: int, coups: int, per_thousand: float, p_value: float, evidence: str
) -> Violation:
    return violation(
        "dealer_error_rate",
        f"Dealer {dealer} made {errors} dealing or paying errors in {coups} coups on gaming day {day} "
        f"({errors * 1000 / coups:.1f} per 1,000 coups; at the accepted {per_thousand:g} per 1,000 about "
        f"{per_thousand * coups / 1000:.1f} were to be expected; chance of this many by bad luck: "
        f"{p_value:.1e}). Errors put down to a device are not counted. Errors: {evidence}.",
    )
