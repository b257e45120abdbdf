"""Exact odds by enumerating every coup a shoe's composition can deal (no simulation): outcome
probabilities, house edge and variance per bet, commission exact and cent rounding left to `settle`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from .cards import RANK_VALUES, RANKS, Card, parse_card
from .coup import BANKER_DRAWS_ON, FACTS, outcome_facts
from .paytables import BetResult, CommissionMode, Paytable

_RANK_INDEX = {rank: index for index, rank in enumerate(RANKS)}
_RANK_NAMES = {"A": "aces", "T": "tens", "J": "jacks", "Q": "queens", "K": "kings"}


@dataclass(frozen=True, slots=True)
class ShoeComposition:
    """Cards remaining per rank, in RANKS order (A, 2 ... 9, T, J, Q, K)."""

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        counts = tuple(self.counts)
        if len(counts) != len(RANKS):
            raise ValueError(f"a composition has a count for each of the 13 ranks, not {len(counts)} counts")
        for rank, count in zip(RANKS, counts, strict=True):
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"the count of rank {rank} must be a whole number of cards, not {count!r}")
        object.__setattr__(self, "counts", counts)

    @classmethod
    def full(cls, decks: int) -> ShoeComposition:
        if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
            raise ValueError(f"a shoe holds at least one deck, not {decks!r}")
        return cls((4 * decks,) * len(RANKS))

    @classmethod
    def from_mapping(cls, counts: Mapping[str, int]) -> ShoeComposition:
        """From remaining counts per rank (A, 2 ... 9, T or 10, J, Q, K); a missing rank counts 0."""
        by_rank = dict.fromkeys(RANKS, 0)
        for key, count in counts.items():
            rank = "T" if str(key).strip().upper() == "10" else str(key).strip().upper()
            if rank not in by_rank:
                raise ValueError(f"{key!r} is not a rank (A, 2-9, T/10, J, Q, K)")
            by_rank[rank] += count
        return cls(tuple(by_rank.values()))

    @property
    def total(self) -> int:
        return sum(self.counts)

    def by_rank(self) -> dict[str, int]:
        return dict(zip(RANKS, self.counts, strict=True))

    def by_value(self) -> tuple[int, ...]:
        values = [0] * 10
        for rank, count in zip(RANKS, self.counts, strict=True):
            values[RANK_VALUES[rank]] += count
        return tuple(values)

    def without(self, cards: Iterable[Card | str] | Mapping[str, int]) -> ShoeComposition:
        """The composition once these cards (or card codes, or a count per card code) have left the shoe."""
        removed = [0] * len(RANKS)
        items = cards.items() if isinstance(cards, Mapping) else ((card, 1) for card in cards)
        for card, count in items:
            removed[_RANK_INDEX[parse_card(card).rank]] += count
        counts = []
        for rank, have, gone in zip(RANKS, self.counts, removed, strict=True):
            if gone > have:
                name = _RANK_NAMES.get(rank, f"{rank}s")
                raise ValueError(f"{gone} {name} seen, but the shoe holds only {have}")
            counts.append(have - gone)
        return ShoeComposition(tuple(counts))


def composition_after(decks: int, cards_seen: Iterable[Card | str] | Mapping[str, int]) -> ShoeComposition:
    """What remains of a `decks`-deck shoe after the cards seen (dealt and burned)."""
    return ShoeComposition.full(decks).without(cards_seen)


# --- Enumeration ---------------------------------------------------------------------------------


def _falling(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


# How the enumeration stays fast: the first four cards are taken by value as unordered Player and
# Banker pairs (3,025 cases, each weighted by its number of orderings), third cards by value, and
# suits never matter. Pairs are by rank, so only hands holding two tens/faces need their ranks:
# `_zero_rank_splits` divides those cases between pair and no pair.


def _zero_rank_splits(zero_counts: tuple[int, ...]) -> dict[tuple[int, int], list[tuple[int, int]]]:
    # For every number of zero-valued cards (tens and faces) in the Player and Banker hands, how the
    # ways of choosing their ranks divide between pair and no pair. The other ranks do not enter.
    splits = {}
    for player_zeros, banker_zeros in product(range(3), repeat=2):
        table = [0, 0, 0, 0]  # index: 2 * player_pair + banker_pair
        for ranks in product(range(len(zero_counts)), repeat=player_zeros + banker_zeros):
            used = [0] * len(zero_counts)
            ways = 1
            for rank in ranks:
                ways *= zero_counts[rank] - used[rank]
                used[rank] += 1
            if ways <= 0:
                continue
            player_pair = player_zeros == 2 and ranks[0] == ranks[1]
            banker_pair = banker_zeros == 2 and ranks[player_zeros] == ranks[player_zeros + 1]
            table[2 * player_pair + banker_pair] += ways
        splits[player_zeros, banker_zeros] = [(index, ways) for index, ways in enumerate(table) if ways]
    return splits


@lru_cache(maxsize=64)
def _outcome_weights(counts: tuple[int, ...]) -> tuple[dict[tuple[int, int, int, int, bool, bool], int], int]:
    """Outcome (player total, banker total, player cards, banker cards, player pair, banker pair) ->
    number of ordered six-card prefixes of the shoe that deal it, and their total count."""
    value_counts = [0] * 10
    for rank, count in zip(RANKS, counts, strict=True):
        value_counts[RANK_VALUES[rank]] += count
    total = sum(value_counts)
    if total < 6:
        raise ValueError(f"a coup can need six cards; this shoe has {total}")
    # Coups of 4, 5 and 6 cards are put over one denominator, the ordered six-card prefixes.
    scale = {4: _falling(total - 4, 2), 5: total - 5, 6: 1}
    splits = _zero_rank_splits(counts[9:])

    # Group the first four cards by (player total, banker total, values removed) and pair state:
    # the third cards depend on nothing else. Hands are taken as unordered value pairs.
    groups: dict[tuple[int, int, tuple[int, ...]], list[int]] = {}
    for a in range(10):
        for b in range(a, 10):
            for c in range(10):
                for d in range(c, 10):
                    removed = [0] * 10
                    removed[a] += 1
                    removed[b] += 1
                    removed[c] += 1
                    removed[d] += 1
                    ways = (1 if a == b else 2) * (1 if c == d else 2)
                    for value in range(1, 10):
                        if removed[value]:
                            ways *= _falling(value_counts[value], removed[value])
                    if not ways:
                        continue
                    key = ((a + b) % 10, (c + d) % 10, tuple(removed))
                    weights = groups.get(key)
                    if weights is None:
                        weights = groups[key] = [0, 0, 0, 0]
                    base = 2 * (a == b != 0) + (c == d != 0)
                    for index, zero_ways in splits[(a == 0) + (b == 0), (c == 0) + (d == 0)]:
                        weights[base | index] += ways * zero_ways

    outcomes: dict[tuple[int, int, int, int, bool, bool], int] = {}
    for (player_two, banker_two, removed), weights in groups.items():
        if not any(weights):
            continue
        remaining = [have - gone for have, gone in zip(value_counts, removed, strict=True)]
        for (player_total, banker_total, player_cards, banker_cards), tail_ways in _third_cards(
            player_two, banker_two, remaining, scale
        ).items():
            for index, ways in enumerate(weights):
                if ways:
                    key = (player_total, banker_total, player_cards, banker_cards, index >= 2, index % 2 == 1)
                    outcomes[key] = outcomes.get(key, 0) + ways * tail_ways
    return outcomes, _falling(total, 6)


def _third_cards(
    player_two: int, banker_two: int, remaining: list[int], scale: dict[int, int]
) -> dict[tuple[int, int, int, int], int]:
    # The third-card rule applied to every possible third card, by value. BANKER_DRAWS_ON is the
    # same table `banker_draws` reads; naturals and Player's 0-5 are the rule's other two parts.
    tails: dict[tuple[int, int, int, int], int] = {}
    if player_two >= 8 or banker_two >= 8:
        tails[player_two, banker_two, 2, 2] = scale[4]
    elif player_two >= 6:
        if banker_two <= 5:
            for value, count in enumerate(remaining):
                if count:
                    key = (player_two, (banker_two + value) % 10, 2, 3)
                    tails[key] = tails.get(key, 0) + count * scale[5]
        else:
            tails[player_two, banker_two, 2, 2] = scale[4]
    else:
        draws_on = BANKER_DRAWS_ON[banker_two]
        for player_value, player_count in enumerate(remaining):
            if not player_count:
                continue
            player_total = (player_two + player_value) % 10
            if player_value in draws_on:
                for banker_value, banker_count in enumerate(remaining):
                    if banker_value == player_value:
                        banker_count -= 1
                    if banker_count > 0:
                        key = (player_total, (banker_two + banker_value) % 10, 3, 3)
                        tails[key] = tails.get(key, 0) + player_count * banker_count
            else:
                key = (player_total, banker_two, 3, 2)
                tails[key] = tails.get(key, 0) + player_count * scale[5]
    return tails


# --- Results -------------------------------------------------------------------------------------


def fraction_to_decimal(value: Fraction, places: int = 12) -> Decimal:
    """A Fraction as a Decimal rounded (half even) to `places` decimal places, for display and JSON."""
    with localcontext() as context:
        context.prec = places + 40
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True, slots=True)
class OutcomeOdds:
    """One way a bet can end: its result, the net return per unit staked, and its probability."""

    result: BetResult
    net: Fraction
    probability: Fraction


@dataclass(frozen=True, slots=True)
class BetOdds:
    """A bet's exact odds per unit wagered (pushes count in the denominator, as published figures do)."""

    bet: str
    house_edge: Fraction
    variance: Fraction
    outcomes: tuple[OutcomeOdds, ...]

    @property
    def expected_value(self) -> Fraction:
        return -self.house_edge

    def probability(self, result: BetResult | str) -> Fraction:
        return sum((o.probability for o in self.outcomes if o.result == result), Fraction(0))

    @property
    def house_edge_per_resolved_bet(self) -> Fraction:
        """The edge counting only coups where the bet won or lost (pushes left out)."""
        resolved = 1 - self.probability(BetResult.PUSH)
        return self.house_edge / resolved if resolved else Fraction(0)

    def to_dict(self, places: int = 12) -> dict[str, Any]:
        return {
            "bet": self.bet,
            "house_edge": str(fraction_to_decimal(self.house_edge, places)),
            "variance": str(fraction_to_decimal(self.variance, places)),
            "outcomes": [
                {
                    "result": o.result.value,
                    # Trailing zeros dropped, never an exponent: a net of 10 is "10", not "1E+1".
                    "net": f"{fraction_to_decimal(o.net, places).normalize():f}",
                    "probability": str(fraction_to_decimal(o.probability, places)),
                }
                for o in self.outcomes
            ],
        }


@dataclass(frozen=True)
class Odds:
    """Exact odds of a paytable's bets for one shoe composition."""

    paytable: str
    composition: ShoeComposition
    outcome_probabilities: dict[str, Fraction]
    bets: dict[str, BetOdds]

    def bets_favouring_player(self) -> list[str]:
        """Bets with a negative house edge: a paytable offering one should be refused."""
        return [bet for bet, odds in self.bets.items() if odds.house_edge < 0]

    def to_dict(self, places: int = 12) -> dict[str, Any]:
        """JSON-safe, probabilities and edges as decimal strings rounded to `places` places."""
        return {
            "paytable": self.paytable,
            "cards": self.composition.total,
            "composition": self.composition.by_rank(),
            "outcome_probabilities": {
                fact: str(fraction_to_decimal(p, places)) for fact, p in self.outcome_probabilities.items()
            },
            "bets": {bet: odds.to_dict(places) for bet, odds in self.bets.items()},
        }


def _composition(shoe: int | Mapping[str, int] | ShoeComposition) -> ShoeComposition:
    if isinstance(shoe, ShoeComposition):
        return shoe
    if isinstance(shoe, Mapping):
        return ShoeComposition.from_mapping(shoe)
    return ShoeComposition.full(shoe)


def exact_odds(paytable: Paytable, shoe: int | Mapping[str, int] | ShoeComposition = 8) -> Odds:
    """Exact odds for a deck count, a remaining count per rank, or a ShoeComposition."""
    composition = _composition(shoe)
    weights, denominator = _outcome_weights(composition.counts)

    fact_weights = dict.fromkeys(FACTS, 0)
    outcome_facts_list = []
    for key, ways in weights.items():
        player_total, banker_total, player_cards, banker_cards, player_pair, banker_pair = key
        # In a legal coup a two-card hand ending on 8 or 9 was a natural (a natural stops all draws).
        facts = outcome_facts(
            player_total,
            banker_total,
            player_cards,
            banker_cards,
            player_pair,
            banker_pair,
            player_cards == 2 and player_total >= 8,
            banker_cards == 2 and banker_total >= 8,
        )
        outcome_facts_list.append((facts, ways))
        for fact in facts:
            fact_weights[fact] += ways
    main = ("player_wins", "banker_wins", "tie")
    shown = [
        *main,
        *sorted(paytable.facts_used() - set(main)),
        *sorted(set(FACTS) - paytable.facts_used() - set(main)),
    ]
    probabilities = {fact: Fraction(fact_weights[fact], denominator) for fact in shown}

    commission_factor = 1 - Fraction(paytable.commission_rate)
    bet_odds = {}
    for bet in paytable.bets:
        by_net: dict[tuple[BetResult, Fraction], int] = {}
        rule_net: dict[int, tuple[BetResult, Fraction]] = {}
        for facts, ways in outcome_facts_list:
            rule = paytable.resolve(bet, facts)
            net_key = rule_net.get(id(rule))
            if net_key is None:
                if rule.result is BetResult.WIN:
                    assert rule.odds is not None
                    net = rule.odds.as_fraction()
                    if rule.commission and paytable.commission_mode is not CommissionMode.NONE:
                        net *= commission_factor
                elif rule.result is BetResult.PUSH:
                    net = Fraction(0)
                else:
                    net = Fraction(-1)
                net_key = rule_net[id(rule)] = (rule.result, net)
            by_net[net_key] = by_net.get(net_key, 0) + ways
        outcomes = tuple(
            OutcomeOdds(result, net, Fraction(ways, denominator))
            for (result, net), ways in sorted(by_net.items(), key=lambda item: -item[0][1])
        )
        mean = sum((o.net * o.probability for o in outcomes), Fraction(0))
        square = sum((o.net * o.net * o.probability for o in outcomes), Fraction(0))
        bet_odds[bet] = BetOdds(bet, -mean, square - mean * mean, outcomes)
    return Odds(paytable.name, composition, probabilities, bet_odds)
