"""Exact odds by enumerating every coup a shoe's composition can deal (no simulation): outcome
probabilities, house edge and variance per bet, commission exact and cent rounding left to `settle`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from enum import Enum
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

import numpy as np

from .cards import ALL_CARD_CODES, RANK_VALUES, RANKS, SUITS, Card, InvalidCard, parse_card
from .coup import BANKER_DRAWS_ON, CARD_FACTS, FACTS, Colour, card_facts, outcome_facts
from .paytables import BetResult, BetRule, CommissionMode, Paytable

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


_CARD_INDEX = {code: index for index, code in enumerate(ALL_CARD_CODES)}
_RED = tuple(suit in ("H", "D") for suit in SUITS)


@dataclass(frozen=True, slots=True)
class CardComposition:
    """Cards remaining per kind of card (rank and suit), in ALL_CARD_CODES order (the spades A to K,
    then hearts, diamonds, clubs): what the exact odds of a suit or colour bet need."""

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        counts = tuple(self.counts)
        if len(counts) != len(ALL_CARD_CODES):
            raise ValueError(f"a card composition has a count for each of the 52 cards, not {len(counts)} counts")
        for code, count in zip(ALL_CARD_CODES, counts, strict=True):
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ValueError(f"the count of {code} must be a whole number of cards, not {count!r}")
        object.__setattr__(self, "counts", counts)

    @classmethod
    def full(cls, decks: int) -> CardComposition:
        if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
            raise ValueError(f"a shoe holds at least one deck, not {decks!r}")
        return cls((decks,) * len(ALL_CARD_CODES))

    @classmethod
    def from_mapping(cls, counts: Mapping[str, int]) -> CardComposition:
        """From remaining counts per card code ('AS', '10d', 'K♥'); a missing card counts 0."""
        by_card = [0] * len(ALL_CARD_CODES)
        for code, count in counts.items():
            by_card[_CARD_INDEX[parse_card(code).code]] += count
        return cls(tuple(by_card))

    @property
    def total(self) -> int:
        return sum(self.counts)

    def by_card(self) -> dict[str, int]:
        return dict(zip(ALL_CARD_CODES, self.counts, strict=True))

    def ranks(self) -> ShoeComposition:
        """The same cards counted per rank only."""
        size = len(RANKS)
        return ShoeComposition(
            tuple(sum(self.counts[suit * size + rank] for suit in range(len(SUITS))) for rank in range(size))
        )

    def suit_counts(self) -> tuple[tuple[int, ...], ...]:
        """Per rank (RANKS order), its count per suit (SUITS order)."""
        size = len(RANKS)
        return tuple(tuple(self.counts[suit * size + rank] for suit in range(len(SUITS))) for rank in range(size))

    def without(self, cards: Iterable[Card | str] | Mapping[str, int]) -> CardComposition:
        """The composition once these cards (or codes, or a count per code) have left the shoe."""
        removed = [0] * len(ALL_CARD_CODES)
        items = cards.items() if isinstance(cards, Mapping) else ((card, 1) for card in cards)
        for card, count in items:
            removed[_CARD_INDEX[parse_card(card).code]] += count
        counts = []
        for code, have, gone in zip(ALL_CARD_CODES, self.counts, removed, strict=True):
            if gone > have:
                raise ValueError(f"{gone} of {parse_card(code).symbol} seen, but the shoe holds only {have}")
            counts.append(have - gone)
        return CardComposition(tuple(counts))


def card_composition_after(decks: int, cards_seen: Iterable[Card | str] | Mapping[str, int]) -> CardComposition:
    """What remains of a `decks`-deck shoe after the cards seen, per card (rank and suit)."""
    return CardComposition.full(decks).without(cards_seen)


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
def _outcome_weights_reference(counts: tuple[int, ...]) -> tuple[dict[tuple[int, int, int, int, bool, bool], int], int]:
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
                    group = ((a + b) % 10, (c + d) % 10, tuple(removed))
                    weights = groups.get(group)
                    if weights is None:
                        weights = groups[group] = [0, 0, 0, 0]
                    base = 2 * (a == b != 0) + (c == d != 0)
                    for index, zero_ways in splits[(a == 0) + (b == 0), (c == 0) + (d == 0)]:
                        weights[base | index] += ways * zero_ways

    outcomes: dict[tuple[int, int, int, int, bool, bool], int] = {}
    for (player_two, banker_two, removed_values), weights in groups.items():
        if not any(weights):
            continue
        remaining = [have - gone for have, gone in zip(value_counts, removed_values, strict=True)]
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
    cards: CardComposition | None = None  # the count per card, when the odds were taken over suits

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


# The facts ranks decide; the card facts need the suits (`exact_card_odds`).
_RANK_FACTS = [fact for fact in FACTS if fact not in CARD_FACTS]


def _shown_facts(paytable: Paytable, universe: list[str] | None = None) -> list[str]:
    main = ("player_wins", "banker_wins", "tie")
    known = set(_RANK_FACTS if universe is None else universe)
    used = paytable.facts_used() & known
    return [*main, *sorted(used - set(main)), *sorted(known - used - set(main))]


def _rule_net(paytable: Paytable, rule: BetRule) -> tuple[BetResult, Fraction]:
    """A rule's result and its net return per unit staked (a win less commission where charged)."""
    if rule.result is BetResult.WIN:
        assert rule.odds is not None
        net = rule.odds.as_fraction()
        if rule.commission and paytable.commission_mode is not CommissionMode.NONE:
            net *= 1 - Fraction(paytable.commission_rate)
        return rule.result, net
    if rule.result is BetResult.PUSH:
        return rule.result, Fraction(0)
    return rule.result, Fraction(-1)


def _bet_odds(bet: str, by_net: Mapping[tuple[BetResult, Fraction], int], denominator: int) -> BetOdds:
    """A bet's odds from the number of prefixes per (result, net); ways of 0 are left out."""
    outcomes = tuple(
        OutcomeOdds(result, net, Fraction(ways, denominator))
        for (result, net), ways in sorted(by_net.items(), key=lambda item: item[0][1], reverse=True)
        if ways
    )
    # The moments in whole numbers over one common denominator: a Fraction per bet, not per term.
    scale = math.lcm(*(net.denominator for (_result, net), ways in by_net.items() if ways)) if by_net else 1
    first = second = 0
    for (_result, net), ways in by_net.items():
        scaled = net.numerator * (scale // net.denominator)
        first += scaled * ways
        second += scaled * scaled * ways
    # The variance second/(s*s*D) - (first/(s*D))**2 as one Fraction.
    over = scale * denominator
    return BetOdds(bet, Fraction(-first, over), Fraction(second * denominator - first * first, over * over), outcomes)


def exact_odds_reference(paytable: Paytable, shoe: int | Mapping[str, int] | ShoeComposition = 8) -> Odds:
    """The pure-Python enumeration `exact_odds` replaced: kept as the reference the fast one is
    tested against, and used for shoes too large for 64-bit counts (over 22 decks)."""
    composition = _composition(shoe)
    weights, denominator = _outcome_weights_reference(composition.counts)

    fact_weights = dict.fromkeys(_RANK_FACTS, 0)
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
    probabilities = {fact: Fraction(fact_weights[fact], denominator) for fact in _shown_facts(paytable)}

    bet_odds = {}
    for bet in paytable.bets:
        by_net: dict[tuple[BetResult, Fraction], int] = {}
        rule_net: dict[int, tuple[BetResult, Fraction]] = {}
        for facts, ways in outcome_facts_list:
            rule = paytable.resolve(bet, facts)
            net_key = rule_net.get(id(rule))
            if net_key is None:
                net_key = rule_net[id(rule)] = _rule_net(paytable, rule)
            by_net[net_key] = by_net.get(net_key, 0) + ways
        bet_odds[bet] = _bet_odds(bet, by_net, denominator)
    return Odds(paytable.name, composition, probabilities, bet_odds)


# --- The fast enumeration ------------------------------------------------------------------------
#
# The same count as `_outcome_weights_reference`, as exact int64 array arithmetic (NumPy). Every
# outcome is a key (player total, banker total, player cards, banker cards, player pair, banker
# pair), 1,600 in all; a composition's weights are a vector over them. Composition-free work (which
# first four cards lead to which outcome, the paytable's verdict on each outcome) is done once.
#
# The first four cards are again unordered Player and Banker value pairs (3,025 cases), split into
# rows by the pair state their ten-valued cards can take. Rows are grouped by (player two-card
# total, banker two-card total, pair state); a third card's count is `remaining = n - removed`, so a
# group's third-card weights need only its sums of w, w*removed[v] and w*removed[x]*removed[y]
# (w: a row's number of ordered four-card deals), whatever rows it holds:
#   sum w*(n[x]-r[x])              = n[x]*W0 - W1[x]
#   sum w*(n[x]-r[x])*(n[y]-d-r[y]) = n[x]*(n[y]-d)*W0 - n[x]*W1[y] - (n[y]-d)*W1[x] + W2[x,y]
# (d = 1 when both third cards have the same value). Counts stay below 2**63 up to 22 decks.
# A case removes at most four values, so these sums are taken over the non-zero terms only
# (`_GroupSums`), and a row's ways are a product of at most four falling factorials (`_slots`).

_KEYS = [
    (player_total, banker_total, player_cards, banker_cards, player_pair, banker_pair)
    for player_total in range(10)
    for banker_total in range(10)
    for player_cards in (2, 3)
    for banker_cards in (2, 3)
    for player_pair in (False, True)
    for banker_pair in (False, True)
]
_KEY_INDEX = {key: index for index, key in enumerate(_KEYS)}
# A term of the sums is at most total**6 and a sum adds four terms: below 2**63 with total**6 < 2**61.
_INT64_LIMIT = 2**61


@dataclass(frozen=True)
class _GroupSums:
    """Where each group's sums W0, W1[x] and (for the groups where both may draw) W2[x, y] take
    their non-zero terms: term t adds w[row[t]] * coefficient[t] to the sum at target[t], targets
    laid out as [W0 per group, W1 per group and x, W2 per drawing group, x and y], and the terms
    sorted by target (the runs of one target start at `starts`)."""

    row: np.ndarray
    coefficient: np.ndarray
    starts: np.ndarray
    target: np.ndarray
    groups: int
    drawing_groups: int


def _group_sums_of(row_removed: np.ndarray, starts: list[int], drawing_rows: int, drawing_groups: int) -> _GroupSums:
    """The terms of the group sums, for rows sorted by group (first row of each at `starts`) taking
    `row_removed` cards of each value, the rows of the groups where both may draw first."""
    rows = len(row_removed)
    groups = len(starts)
    marks = np.zeros(rows, dtype=np.int64)
    marks[starts[1:]] = 1
    group = np.cumsum(marks)
    row_ids, values = np.nonzero(row_removed)
    drawing_removed = row_removed[:drawing_rows]
    squares = (drawing_removed[:, :, None] * drawing_removed[:, None, :]).reshape(drawing_rows, 100)
    square_rows, squares_at = np.nonzero(squares)
    row = np.concatenate((np.arange(rows), row_ids, square_rows))
    coefficient = np.concatenate(
        (np.ones(rows, dtype=np.int64), row_removed[row_ids, values], squares[square_rows, squares_at])
    )
    target = np.concatenate(
        (group, groups + group[row_ids] * 10 + values, 11 * groups + group[square_rows] * 100 + squares_at)
    )
    order = np.argsort(target, kind="stable")
    row, coefficient, target = row[order], coefficient[order], target[order]
    runs = np.flatnonzero(np.diff(target)) + 1
    first = np.concatenate(([0], runs))
    return _GroupSums(row, coefficient, first, target[first], groups, drawing_groups)


def _group_sums(w: np.ndarray, sums: _GroupSums) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run (rows of `w`), W0 (runs x groups), W1 (runs x groups x 10) and W2 (runs x drawing
    groups x 10 x 10)."""
    k, count, g = len(w), sums.groups, sums.drawing_groups
    flat = np.zeros((k, 11 * count + 100 * g), dtype=np.int64)
    # np.take, not fancy indexing: the same gather at a fraction of the cost on these sizes.
    terms = np.take(w, sums.row, axis=1)
    terms *= sums.coefficient
    flat[:, sums.target] = np.add.reduceat(terms, sums.starts, axis=1)
    return (
        flat[:, :count],
        flat[:, count : 11 * count].reshape(k, count, 10),
        flat[:, 11 * count :].reshape(k, g, 10, 10),
    )


def _slots(counts: np.ndarray) -> np.ndarray:
    """Per row of `counts` (cards taken of each value, at most four values), the index of each
    falling(n[value], count) in a flattened runs x 10 x 5 table of falling factorials, padded with
    index 0 (falling(n[0], 0) = 1): the row's ways are the product of its four. 4 x rows."""
    slots = np.zeros((4, len(counts)), dtype=np.int64)
    for index, row in enumerate(counts.tolist()):
        taken = [value * 5 + count for value, count in enumerate(row) if count]
        slots[: len(taken), index] = taken
    return slots


def _falling_table(n: np.ndarray) -> np.ndarray:
    """falling(n[run, value], k) for k = 0..4, flattened to runs x 50 (`_slots` indexes it)."""
    falling = np.ones((len(n), 10, 5), dtype=np.int64)
    for step in range(1, 5):
        falling[:, :, step] = falling[:, :, step - 1] * (n - (step - 1))
    return falling.reshape(len(n), 50)


def _third_cards_weights(
    n: np.ndarray, w: np.ndarray, sums: _GroupSums, filler: int, entries: np.ndarray, entry_starts: np.ndarray
) -> np.ndarray:
    """Per run: the third-card sums above from the rows' four-card ways `w`, scaled so 4-, 5- and
    6-card coups share the six-card denominator of a shoe of `filler` cards, summed per outcome."""
    w0, w1, w2 = _group_sums(w, sums)
    k, g = len(w), sums.drawing_groups
    one = n[:, None, :] * w0[:, :, None] - w1
    banker_n = n[:, None, :] - np.eye(10, dtype=np.int64)  # runs x 10 x 10, n[y] - d
    two = (
        (n[:, :, None] * banker_n)[:, None] * w0[:, :g, None, None]
        - n[:, None, :, None] * w1[:, :g, None, :]
        - banker_n[:, None] * w1[:, :g, :, None]
        + w2
    )
    terms = np.concatenate(
        (w0 * _falling(filler - 4, 2), (one * (filler - 5)).reshape(k, -1), two.reshape(k, -1)), axis=1
    )
    return np.add.reduceat(np.take(terms, entries, axis=1), entry_starts, axis=1)


@dataclass(frozen=True)
class _Plan:
    """The composition-free half of the fast enumeration (built once, on first use)."""

    ordering: np.ndarray  # per row: orderings of the unordered value pairs (1, 2 or 4)
    slots: np.ndarray  # its cases' (first four cards by value) values 1-9, as `_slots`
    zeros: np.ndarray  # per row: index into the 3 x 3 x 4 table of ten-valued rank splits
    sums: _GroupSums  # rows are sorted by group; groups where both may draw come first
    entries: np.ndarray  # which of [W0 terms, W1 terms, W2 terms] feed an outcome, sorted by outcome
    entry_starts: np.ndarray
    entry_keys: np.ndarray  # the outcome index of each run of entries


def _build_plan() -> _Plan:
    # (drawing first, player total, banker total, pair index), ordering, case, zero index
    rows: list[tuple[tuple[bool, int, int, int], int, int, int]] = []
    removed: list[list[int]] = []
    for a in range(10):
        for b in range(a, 10):
            for c in range(10):
                for d in range(c, 10):
                    case_index = len(removed)
                    values = [0] * 10
                    for value in (a, b, c, d):
                        values[value] += 1
                    removed.append(values)
                    player_two, banker_two = (a + b) % 10, (c + d) % 10
                    player_zeros, banker_zeros = (a == 0) + (b == 0), (c == 0) + (d == 0)
                    base = 2 * (a == b != 0) + (c == d != 0)
                    drawing = player_two <= 5 and banker_two <= 7
                    ordering = (1 if a == b else 2) * (1 if c == d else 2)
                    for split in range(4):
                        # A pair among the ten-valued cards needs two of them in that hand.
                        if (split & 2 and player_zeros < 2) or (split & 1 and banker_zeros < 2):
                            continue
                        group = (not drawing, player_two, banker_two, base | split)
                        rows.append((group, ordering, case_index, (player_zeros * 3 + banker_zeros) * 4 + split))
    rows.sort(key=lambda row: row[0])
    groups = sorted({row[0] for row in rows})
    group_index = {group: index for index, group in enumerate(groups)}
    starts = [0]
    for index in range(1, len(rows)):
        if rows[index][0] != rows[index - 1][0]:
            starts.append(index)
    drawing_groups = sum(1 for group in groups if not group[0])
    drawing_rows = sum(1 for row in rows if not row[0][0])
    removed_array = np.array(removed, dtype=np.int64)
    case = np.array([row[2] for row in rows], dtype=np.int64)

    # Outcome of every term: W0 terms (no third card), W1 terms (group, value), W2 terms (group, x, y).
    count = len(groups)
    by_key: list[tuple[int, int]] = []  # (outcome index, position in the concatenated terms)
    for (_stands, player_two, banker_two, pair), index in group_index.items():
        player_pair, banker_pair = pair >= 2, pair % 2 == 1
        if player_two >= 8 or banker_two >= 8 or (player_two >= 6 and banker_two >= 6):
            key = (player_two, banker_two, 2, 2, player_pair, banker_pair)
            by_key.append((_KEY_INDEX[key], index))
        elif player_two >= 6:  # Player stands, Banker (0-5) draws
            for value in range(10):
                key = (player_two, (banker_two + value) % 10, 2, 3, player_pair, banker_pair)
                by_key.append((_KEY_INDEX[key], count + index * 10 + value))
        else:  # Player draws; Banker draws on the values in BANKER_DRAWS_ON
            for player_value in range(10):
                player_total = (player_two + player_value) % 10
                if player_value not in BANKER_DRAWS_ON[banker_two]:
                    key = (player_total, banker_two, 3, 2, player_pair, banker_pair)
                    by_key.append((_KEY_INDEX[key], count + index * 10 + player_value))
                    continue
                for banker_value in range(10):
                    key = (player_total, (banker_two + banker_value) % 10, 3, 3, player_pair, banker_pair)
                    by_key.append((_KEY_INDEX[key], 11 * count + index * 100 + player_value * 10 + banker_value))
    by_key.sort()
    entry_starts = [0] + [i for i in range(1, len(by_key)) if by_key[i][0] != by_key[i - 1][0]]
    return _Plan(
        ordering=np.array([row[1] for row in rows], dtype=np.int64),
        slots=_slots(np.concatenate((np.zeros((len(rows), 1), dtype=np.int64), removed_array[case, 1:]), axis=1)),
        zeros=np.array([row[3] for row in rows], dtype=np.int64),
        sums=_group_sums_of(removed_array[case], starts, drawing_rows, drawing_groups),
        entries=np.array([position for _key, position in by_key], dtype=np.int64),
        entry_starts=np.array(entry_starts, dtype=np.int64),
        entry_keys=np.array([by_key[i][0] for i in entry_starts], dtype=np.int64),
    )


_plan: _Plan | None = None


def _zero_splits(zero_counts: tuple[int, ...]) -> list[int]:
    """`_zero_rank_splits` in closed form, as a flat 3 x 3 x 4 table (player zeros, banker zeros,
    2 * player pair + banker pair): positions are exchangeable, so a pair in one hand leaves the
    other hand's ten-valued cards to any of the rest."""
    total = sum(zero_counts)
    pair = sum(count * (count - 1) for count in zero_counts)
    both = sum(
        first * (first - 1) * (second * (second - 1) if i != j else (first - 2) * (first - 3))
        for i, first in enumerate(zero_counts)
        for j, second in enumerate(zero_counts)
    )
    table = [0] * 36
    for player_zeros in range(3):
        for banker_zeros in range(3):
            at = (player_zeros * 3 + banker_zeros) * 4
            every = _falling(total, player_zeros + banker_zeros)
            if player_zeros == 2 and banker_zeros == 2:
                player_only = pair * _falling(total - 2, 2) - both
                banker_only = pair * _falling(total - 2, 2) - both
                table[at : at + 4] = [every - player_only - banker_only - both, banker_only, player_only, both]
            elif player_zeros == 2:
                paired = pair * _falling(total - 2, banker_zeros)
                table[at], table[at + 2] = every - paired, paired
            elif banker_zeros == 2:
                paired = pair * _falling(total - 2, player_zeros)
                table[at], table[at + 1] = every - paired, paired
            else:
                table[at] = every
    return table


def _outcome_weights(counts: tuple[int, ...], filler: int | None = None) -> tuple[np.ndarray, int] | None:
    """Ordered six-card prefixes per outcome key (`_KEYS`) and their total; None when the counts
    could overflow 64 bits (the caller then takes the reference enumeration). With `filler`, the
    dealt cards come from `counts` and the cards left undealt of a prefix from a shoe of `filler`
    cards (the colour runs of `exact_card_odds`)."""
    total = sum(counts) if filler is None else filler
    if total < 6:
        raise ValueError(f"a coup can need six cards; this shoe has {total}")
    if total**6 >= _INT64_LIMIT:
        return None  # over 22 decks
    return _rank_weights([counts], total)[0], _falling(total, 6)


def _rank_weights(runs: list[tuple[int, ...]], filler: int) -> np.ndarray:
    """Per run (a count per rank of the cards the coup may deal), ordered six-card prefixes per
    outcome key (`_KEYS`) whose undealt cards come from a shoe of `filler` cards: runs x keys.
    Several runs share one pass over the plan (the colour runs of `exact_card_odds`)."""
    global _plan
    plan = _plan if _plan is not None else (_plan := _build_plan())
    values = [[0] * 10 for _run in runs]
    for run, counts in zip(values, runs, strict=True):
        for rank, count in zip(RANKS, counts, strict=True):
            run[RANK_VALUES[rank]] += count
    n = np.array(values, dtype=np.int64)
    # Each row's ways: its case's product of falling(n[v], removed[v]) over the values 1-9, times
    # the split of its ten-valued cards between ranks.
    falling = _falling_table(n)
    zero_ways = np.array([_zero_splits(counts[9:]) for counts in runs], dtype=np.int64)
    w = np.take(zero_ways, plan.zeros, axis=1)
    w *= plan.ordering
    for slot in plan.slots:
        w *= np.take(falling, slot, axis=1)
    sums = _third_cards_weights(n, w, plan.sums, filler, plan.entries, plan.entry_starts)
    weights = np.zeros((len(runs), len(_KEYS)), dtype=np.int64)
    weights[:, plan.entry_keys] = sums
    return weights


@dataclass(frozen=True)
class _PaytableVerdicts:
    """A paytable's verdict on every outcome key, as 0/1 matrices (built once per paytable)."""

    shown: tuple[str, ...]  # facts in the order Odds shows them
    facts: np.ndarray  # keys x shown: 1 where the outcome has the fact
    nets: tuple[tuple[str, tuple[tuple[BetResult, Fraction], ...], int], ...]  # bet, its nets, first column
    classes: np.ndarray  # keys x every bet's nets: 1 where the bet ends with that net
    columns: np.ndarray  # facts' then classes' columns as rows, float64 (`ways`)

    def ways(self, weights: np.ndarray) -> tuple[list[int], list[int]]:
        """`weights @ facts` and `weights @ classes`, exactly, for weights of one composition (each
        at most the number of six-card prefixes, below 2**61, and adding up to at most that per
        colour). Through floating point, which multiplies matrices many times faster than int64:
        each weight is split in its 32-bit halves, and every product and partial sum of a half
        with these 0/1 columns is a whole number below 2**53, so exact in float64 in any order."""
        halves = np.stack((weights >> 32, weights & 0xFFFFFFFF)).astype(np.float64)
        high, low = (self.columns @ halves.T).astype(np.int64).T
        both = ((high << 32) + low).tolist()
        return both[: len(self.shown)], both[len(self.shown) :]


def _verdicts(
    paytable: Paytable,
    key_facts: list[frozenset[str]],
    universe: list[str],
    only: Iterable[str] | None = None,
    shown: list[str] | None = None,
) -> _PaytableVerdicts:
    """The verdict matrices of the paytable's bets (or `only` these) on outcomes with these facts,
    and of the facts shown (in `_shown_facts` order over `universe`, or `shown`)."""
    shown = _shown_facts(paytable, universe) if shown is None else shown
    facts = np.array([[fact in outcome for fact in shown] for outcome in key_facts], dtype=np.int64).reshape(
        len(key_facts), len(shown)
    )
    nets: list[tuple[str, tuple[tuple[BetResult, Fraction], ...], int]] = []
    columns: list[list[int]] = []
    for bet in paytable.bets if only is None else only:
        found: dict[tuple[BetResult, Fraction], int] = {}
        column = []
        for outcome in key_facts:
            net = _rule_net(paytable, paytable.resolve(bet, outcome))
            column.append(found.setdefault(net, len(found)))
        nets.append((bet, tuple(found), sum(len(n) for _b, n, _f in nets)))
        columns.append(column)
    classes = np.zeros((len(key_facts), sum(len(n) for _b, n, _f in nets)), dtype=np.int64)
    for (_bet, _nets, first), column in zip(nets, columns, strict=True):
        classes[np.arange(len(key_facts)), first + np.array(column)] = 1
    products = np.ascontiguousarray(np.concatenate((facts, classes), axis=1).T, dtype=np.float64)
    return _PaytableVerdicts(tuple(shown), facts, tuple(nets), classes, products)


@lru_cache(maxsize=32)
def _paytable_verdicts(paytable: Paytable) -> _PaytableVerdicts:
    key_facts = [
        outcome_facts(pt, bt, pc, bc, pp, bp, pc == 2 and pt >= 8, bc == 2 and bt >= 8)
        for pt, bt, pc, bc, pp, bp in _KEYS
    ]
    return _verdicts(paytable, key_facts, _RANK_FACTS)


def _odds_from(
    paytable: Paytable,
    composition: ShoeComposition,
    weights: np.ndarray,
    denominator: int,
    verdicts: _PaytableVerdicts,
    cards: CardComposition | None = None,
) -> Odds:
    fact_ways, class_ways = verdicts.ways(weights)
    probabilities = {fact: Fraction(ways, denominator) for fact, ways in zip(verdicts.shown, fact_ways, strict=True)}
    bet_odds = {
        bet: _bet_odds(bet, dict(zip(nets, class_ways[first : first + len(nets)], strict=True)), denominator)
        for bet, nets, first in verdicts.nets
    }
    return Odds(paytable.name, composition, probabilities, bet_odds, cards)


def exact_odds(paytable: Paytable, shoe: int | Mapping[str, int] | ShoeComposition | CardComposition = 8) -> Odds:
    """Exact odds for a deck count, a remaining count per rank (or per card), a ShoeComposition or
    a CardComposition (the same Fractions as `exact_odds_reference`, about 100 times faster). A
    paytable naming a card fact (`needs_cards`) is priced over the 52 kinds of card
    (`exact_card_odds`), and then needs the count per card; any other by ranks alone."""
    if needs_cards(paytable):
        return exact_card_odds(paytable, shoe)
    if isinstance(shoe, CardComposition):
        shoe = shoe.ranks()
    elif isinstance(shoe, Mapping) and shoe and all(_is_card_code(key) for key in shoe):
        shoe = CardComposition.from_mapping(shoe).ranks()
    composition = _composition(shoe)
    counted = _outcome_weights(composition.counts)
    if counted is None:
        return exact_odds_reference(paytable, composition)
    weights, denominator = counted
    return _odds_from(paytable, composition, weights, denominator, _paytable_verdicts(paytable))


def _is_card_code(key: object) -> bool:
    try:
        parse_card(key)  # type: ignore[arg-type]
    except InvalidCard:
        return False
    return True


# --- Exact odds over the 52 kinds of card ----------------------------------------------------------
#
# A paytable naming a card fact (`CARD_FACTS`: suited pairs, twin pairs, colours) is priced over
# ranks and suits. The enumeration stays the one above, by value, with two exact reductions:
#
# * Suits matter only inside a hand's first two cards when they pair. So the first four cards are
#   again value cases, and for each value a case's hands pair in (its "pair group": the one rank
#   of 1-9, or the four ten-valued ranks) the ways of choosing ranks and suits are counted in
#   closed form, split by the pair state (pair by rank, suited pair, both pairs in one rank): sums
#   over the group's ranks of c*(c-1) per suit and of its products over two suits (`_pair_ways`).
#   Given the first four cards' ranks, the third cards' values do not depend on their suits.
# * Colours: every card red is the same enumeration over the red cards alone (hearts and
#   diamonds), the cards left undealt of a six-card prefix still taken from the whole shoe; every
#   card black likewise; mixed is the rest. Three runs, in one pass over one plan.
#
# A key is (player total, banker total, player cards, banker cards, pair state): 5,200 in all.

_PAIR_STATES: tuple[tuple[int, int, int, int, int], ...] = (
    (0, 0, 0, 0, 0),
    (1, 0, 0, 0, 0),
    (1, 0, 1, 0, 0),
    (0, 1, 0, 0, 0),
    (0, 1, 0, 1, 0),
    *((1, 1, ps, bs, twin) for ps in (0, 1) for bs in (0, 1) for twin in (0, 1)),
)  # (player pair, banker pair, player suited pair, banker suited pair, twin pairs)
_PAIR_STATE_INDEX = {state: index for index, state in enumerate(_PAIR_STATES)}
_CARD_KEYS = [
    (player_total, banker_total, player_cards, banker_cards, state)
    for player_total in range(10)
    for banker_total in range(10)
    for player_cards in (2, 3)
    for banker_cards in (2, 3)
    for state in range(len(_PAIR_STATES))
]
_CARD_KEY_INDEX = {key: index for index, key in enumerate(_CARD_KEYS)}
_COLOURS = (Colour.MIXED, Colour.RED, Colour.BLACK)
# The ranks of each value: 1-9 one rank each, 0 the four ten-valued ranks.
_VALUE_RANKS = tuple(tuple(i for i, rank in enumerate(RANKS) if RANK_VALUES[rank] == value) for value in range(10))

# (player cards in the group, banker cards in it, player pair, banker pair, player suited, banker suited, twin)
PairSpec = tuple[int, int, int, int, int, int, int]


def _pair_ways(suits: Iterable[tuple[int, ...]]) -> dict[PairSpec, int]:
    """For one pair group (ranks with their counts per suit), the ordered ways of choosing ranks and
    suits for the player's `p` and the banker's `b` cards of the group, when one hand holds two,
    by pair state. Exchangeability gives each in closed form (a hand's two cards pair in rank r
    in m(m-1) ways, S = sum over suits of c(c-1) of them suited, whatever else the hands hold)."""
    groups = [tuple(c) for c in suits]
    m = [sum(c) for c in groups]
    suited = [sum(x * (x - 1) for x in c) for c in groups]
    unsuited = [mi * (mi - 1) - si for mi, si in zip(m, suited, strict=True)]
    total = sum(m)
    pairs = sum(mi * (mi - 1) for mi in m)
    ways: dict[PairSpec, int] = {}
    for other in (0, 1):
        rest = _falling(total - 2, other)
        s, u, none = sum(suited) * rest, sum(unsuited) * rest, _falling(total, 2 + other) - pairs * rest
        ways[2, other, 1, 0, 1, 0, 0], ways[2, other, 1, 0, 0, 0, 0], ways[2, other, 0, 0, 0, 0, 0] = s, u, none
        ways[other, 2, 0, 1, 0, 1, 0], ways[other, 2, 0, 1, 0, 0, 0], ways[other, 2, 0, 0, 0, 0, 0] = s, u, none
    # Both hands hold two cards of the group.
    twin = [0, 0, 0, 0]  # index 2 * player suited + banker suited
    for c, mi, si in zip(groups, m, suited, strict=True):
        both = sum(
            c[i] * (c[i] - 1) * (c[j] - 2 * (i == j)) * (c[j] - 2 * (i == j) - 1)
            for i in range(len(c))
            for j in range(len(c))
        )
        one = si * (mi - 2) * (mi - 3)
        twin[3] += both
        twin[2] += one - both
        twin[1] += one - both
        twin[0] += _falling(mi, 4) - 2 * one + both
    by_kind = {1: suited, 0: unsuited}
    filed = sum(twin)
    for ps in (0, 1):
        for bs in (0, 1):
            ways[2, 2, 1, 1, ps, bs, 1] = twin[2 * ps + bs]
            x, y = by_kind[ps], by_kind[bs]
            cross = sum(x) * sum(y) - sum(a * b for a, b in zip(x, y, strict=True))
            ways[2, 2, 1, 1, ps, bs, 0] = cross
            filed += cross
    for kind in (0, 1):
        alone = sum(
            v * (_falling(total - 2, 2) - (mi - 2) * (mi - 3) - (pairs - mi * (mi - 1)))
            for v, mi in zip(by_kind[kind], m, strict=True)
        )
        ways[2, 2, 1, 0, kind, 0, 0] = alone
        ways[2, 2, 0, 1, 0, kind, 0] = alone
        filed += 2 * alone
    ways[2, 2, 0, 0, 0, 0, 0] = _falling(total, 4) - filed
    return ways


def _pair_ways_of_a_rank(counts: tuple[int, ...]) -> dict[PairSpec, int]:
    """`_pair_ways` for a pair group of one rank (the values 1-9), its non-zero ways only: with one
    rank every two cards of the group pair, so only suited and unsuited pairs and twins remain."""
    m = sum(counts)
    squares = [c * (c - 1) for c in counts]
    suited = sum(squares)
    unsuited = m * (m - 1) - suited
    both = sum(x * (suited - x + (c - 2) * (c - 3)) for x, c in zip(squares, counts, strict=True))
    one = suited * (m - 2) * (m - 3)
    ways: dict[PairSpec, int] = {}
    for other in (0, 1):
        rest = m - 2 if other else 1
        ways[2, other, 1, 0, 1, 0, 0] = ways[other, 2, 0, 1, 0, 1, 0] = suited * rest
        ways[2, other, 1, 0, 0, 0, 0] = ways[other, 2, 0, 1, 0, 0, 0] = unsuited * rest
    ways[2, 2, 1, 1, 1, 1, 1] = both
    ways[2, 2, 1, 1, 1, 0, 1] = ways[2, 2, 1, 1, 0, 1, 1] = one - both
    ways[2, 2, 1, 1, 0, 0, 1] = _falling(m, 4) - 2 * one + both
    return ways


@dataclass(frozen=True)
class _CardPlan:
    """The composition-free half of the enumeration over ranks and suits (built once, on first use)."""

    ordering: np.ndarray  # per row: orderings of the unordered value pairs
    slots: np.ndarray  # the values of each row's case less its pair groups' (counted in `specs`), as `_slots`
    rank_keys: np.ndarray  # per reachable card key: its rank key (`_KEYS`), pair states by rank only
    first: np.ndarray  # per row: index into the composition's pair ways (0: none, counted 1)
    second: np.ndarray
    specs: tuple[tuple[int, PairSpec], ...]  # (value, spec) of each pair-ways index from 1
    sums: _GroupSums  # rows are sorted by group; groups where both may draw come first
    entries: np.ndarray
    entry_starts: np.ndarray
    entry_keys: np.ndarray


def _build_card_plan() -> _CardPlan:
    rows: list[tuple[tuple[bool, int, int, int], int, int, list[int], int, int]] = []
    removed: list[list[int]] = []
    spec_index: dict[tuple[int, PairSpec], int] = {}

    def spec(value: int, pair_spec: PairSpec) -> int:
        return spec_index.setdefault((value, pair_spec), len(spec_index) + 1)

    for a in range(10):
        for b in range(a, 10):
            for c in range(10):
                for d in range(c, 10):
                    case_index = len(removed)
                    values, player, banker = [0] * 10, [0] * 10, [0] * 10
                    for value in (a, b):
                        values[value] += 1
                        player[value] += 1
                    for value in (c, d):
                        values[value] += 1
                        banker[value] += 1
                    removed.append(values)
                    player_two, banker_two = (a + b) % 10, (c + d) % 10
                    drawing = player_two <= 5 and banker_two <= 7
                    ordering = (1 if a == b else 2) * (1 if c == d else 2)
                    player_group = a if a == b else None
                    banker_group = c if c == d else None
                    # A pair of ten-valued cards may or may not share a rank; of 1-9, always.
                    player_options = [0] if player_group is None else [1] if player_group else [0, 1]
                    banker_options = [0] if banker_group is None else [1] if banker_group else [0, 1]
                    shared = player_group is not None and player_group == banker_group
                    for pp in player_options:
                        for bp in banker_options:
                            for ps in (0, 1) if pp else (0,):
                                for bs in (0, 1) if bp else (0,):
                                    twins = ((1,) if player_group else (0, 1)) if shared and pp and bp else (0,)
                                    for twin in twins:
                                        excluded = list(values)
                                        indices = []
                                        if shared:
                                            assert player_group is not None
                                            excluded[player_group] = 0
                                            indices.append(spec(player_group, (2, 2, pp, bp, ps, bs, twin)))
                                        else:
                                            if player_group is not None:
                                                excluded[player_group] = 0
                                                indices.append(
                                                    spec(player_group, (2, banker[player_group], pp, 0, ps, 0, 0))
                                                )
                                            if banker_group is not None:
                                                excluded[banker_group] = 0
                                                indices.append(
                                                    spec(banker_group, (player[banker_group], 2, 0, bp, 0, bs, 0))
                                                )
                                        indices += [0] * (2 - len(indices))
                                        state = _PAIR_STATE_INDEX[pp, bp, ps, bs, twin]
                                        group = (not drawing, player_two, banker_two, state)
                                        rows.append((group, ordering, case_index, excluded, indices[0], indices[1]))
    rows.sort(key=lambda row: row[0])
    groups = sorted({row[0] for row in rows})
    group_index = {group: index for index, group in enumerate(groups)}
    starts = [0] + [i for i in range(1, len(rows)) if rows[i][0] != rows[i - 1][0]]
    drawing_groups = sum(1 for group in groups if not group[0])
    drawing_rows = sum(1 for row in rows if not row[0][0])
    removed_array = np.array(removed, dtype=np.int64)
    case = np.array([row[2] for row in rows], dtype=np.int64)

    count = len(groups)
    by_key: list[tuple[int, int]] = []
    for (_stands, player_two, banker_two, state), index in group_index.items():
        if player_two >= 8 or banker_two >= 8 or (player_two >= 6 and banker_two >= 6):
            by_key.append((_CARD_KEY_INDEX[player_two, banker_two, 2, 2, state], index))
        elif player_two >= 6:
            for value in range(10):
                key = (player_two, (banker_two + value) % 10, 2, 3, state)
                by_key.append((_CARD_KEY_INDEX[key], count + index * 10 + value))
        else:
            for player_value in range(10):
                player_total = (player_two + player_value) % 10
                if player_value not in BANKER_DRAWS_ON[banker_two]:
                    key = (player_total, banker_two, 3, 2, state)
                    by_key.append((_CARD_KEY_INDEX[key], count + index * 10 + player_value))
                    continue
                for banker_value in range(10):
                    key = (player_total, (banker_two + banker_value) % 10, 3, 3, state)
                    by_key.append((_CARD_KEY_INDEX[key], 11 * count + index * 100 + player_value * 10 + banker_value))
    by_key.sort()
    entry_starts = [0] + [i for i in range(1, len(by_key)) if by_key[i][0] != by_key[i - 1][0]]
    return _CardPlan(
        ordering=np.array([row[1] for row in rows], dtype=np.int64),
        slots=_slots(np.array([row[3] for row in rows], dtype=np.int64)),
        rank_keys=np.array([_rank_key(by_key[i][0]) for i in entry_starts], dtype=np.int64),
        first=np.array([row[4] for row in rows], dtype=np.int64),
        second=np.array([row[5] for row in rows], dtype=np.int64),
        specs=tuple(sorted(spec_index, key=spec_index.__getitem__)),
        sums=_group_sums_of(removed_array[case], starts, drawing_rows, drawing_groups),
        entries=np.array([position for _key, position in by_key], dtype=np.int64),
        entry_starts=np.array(entry_starts, dtype=np.int64),
        entry_keys=np.array([by_key[i][0] for i in entry_starts], dtype=np.int64),
    )


_card_plan: _CardPlan | None = None


def _rank_key(card_key: int) -> int:
    """The rank key (`_KEYS`) of a card key: its totals, cards and pairs by rank."""
    player_total, banker_total, player_cards, banker_cards, state = _CARD_KEYS[card_key]
    player_pair, banker_pair = _PAIR_STATES[state][:2]
    return _KEY_INDEX[player_total, banker_total, player_cards, banker_cards, bool(player_pair), bool(banker_pair)]


def _card_weights(runs: list[tuple[tuple[int, ...], ...]], filler: int) -> np.ndarray:
    """Per run (per rank, its count per suit, of the cards the coup may deal), ordered six-card
    prefixes per reachable card key (`_CardPlan.entry_keys`) whose dealt cards come from the run's
    cards and whose undealt cards from a shoe of `filler` cards: runs x keys."""
    global _card_plan
    plan = _card_plan if _card_plan is not None else (_card_plan := _build_card_plan())
    k = len(runs)
    n = np.array(
        [[sum(sum(suits[rank]) for rank in ranks) for ranks in _VALUE_RANKS] for suits in runs], dtype=np.int64
    )
    pair_ways = np.ones((k, len(plan.specs) + 1), dtype=np.int64)
    for run, suits in enumerate(runs):
        tables = [
            _pair_ways([suits[rank] for rank in ranks]) if len(ranks) > 1 else _pair_ways_of_a_rank(suits[ranks[0]])
            for ranks in _VALUE_RANKS
        ]
        pair_ways[run, 1:] = [tables[value].get(pair_spec, 0) for value, pair_spec in plan.specs]
    falling = _falling_table(n)
    w = np.take(pair_ways, plan.first, axis=1)
    w *= np.take(pair_ways, plan.second, axis=1)
    w *= plan.ordering
    for slot in plan.slots:
        w *= np.take(falling, slot, axis=1)
    return _third_cards_weights(n, w, plan.sums, filler, plan.entries, plan.entry_starts)


def _card_outcome_weights(
    composition: CardComposition, colours: _Colours
) -> tuple[np.ndarray, np.ndarray | None, int] | None:
    """Prefixes per reachable card key, every colour together; with `colours` also per (colour,
    key), colours in `_COLOURS` order, flattened; and their total. None past 64 bits."""
    total = composition.total
    if total < 6:
        raise ValueError(f"a coup can need six cards; this shoe has {total}")
    if total**6 >= _INT64_LIMIT:
        return None
    suits = composition.suit_counts()
    if colours is _Colours.NONE:
        return _card_weights([suits], total)[0], None, _falling(total, 6)
    red = tuple(tuple(count if _RED[i] else 0 for i, count in enumerate(rank)) for rank in suits)
    black = tuple(tuple(0 if _RED[i] else count for i, count in enumerate(rank)) for rank in suits)
    if colours is _Colours.BY_CARD:
        # Every card, the red ones and the black ones in one pass over the plan.
        every, reds, blacks = _card_weights([suits, red, black], total)
        every_rank = every
    else:
        # No colour bet names a suited pair or twins: its colour runs need ranks only, on the rank
        # keys (the weights of every colour together summed onto them too), in one pass.
        every = _card_weights([suits], total)[0]
        plan = _card_plan
        assert plan is not None
        every_rank = np.zeros(len(_KEYS), dtype=np.int64)
        np.add.at(every_rank, plan.rank_keys, every)
        reds, blacks = _rank_weights([tuple(sum(rank) for rank in part) for part in (red, black)], total)
    return every, np.concatenate((every_rank - reds - blacks, reds, blacks)), _falling(total, 6)


class _Colours(Enum):
    """Whether a paytable's odds need colours, and if so over which keys."""

    NONE = "none"
    BY_RANK = "by rank"  # the colour bets name no suited pair or twins: colour runs by ranks
    BY_CARD = "by card"  # colour runs over card keys


def _colours(paytable: Paytable) -> _Colours:
    coloured = [
        definition
        for definition in paytable.bets.values()
        if any(rule.when & _COLOUR_FACTS for rule in definition.rules)
    ]
    if not coloured:
        return _Colours.NONE
    suited = CARD_FACTS.keys() - _COLOUR_FACTS
    return _Colours.BY_CARD if any(rule.when & suited for d in coloured for rule in d.rules) else _Colours.BY_RANK


_COLOUR_FACTS = frozenset({"all_red", "all_black", "one_colour"})


def _rank_key_facts() -> list[frozenset[str]]:
    """The facts of each rank key in each colour (for colour bets that name no suit fact)."""
    return [
        outcome_facts(pt, bt, pc, bc, pp, bp, pc == 2 and pt >= 8, bc == 2 and bt >= 8)
        | card_facts(False, False, False, colour)
        for colour in _COLOURS
        for pt, bt, pc, bc, pp, bp in _KEYS
    ]


def _card_key_facts(colours: bool) -> list[frozenset[str]]:
    global _card_plan
    plan = _card_plan if _card_plan is not None else (_card_plan := _build_card_plan())
    facts = []
    for colour in _COLOURS if colours else (Colour.MIXED,):
        for key in plan.entry_keys.tolist():
            pt, bt, pc, bc, state = _CARD_KEYS[key]
            pp, bp, ps, bs, twin = _PAIR_STATES[state]
            facts.append(
                outcome_facts(pt, bt, pc, bc, bool(pp), bool(bp), pc == 2 and pt >= 8, bc == 2 and bt >= 8)
                | card_facts(bool(ps), bool(bs), bool(twin), colour)
            )
    return facts


@dataclass(frozen=True)
class _CardVerdicts:
    """A paytable's verdicts over card keys: `plain` for the facts and bets no colour decides (on
    the weights of every colour together), `coloured` for the colour facts and the bets that name
    one (on the weights per colour); None without colours."""

    plain: _PaytableVerdicts
    coloured: _PaytableVerdicts | None
    shown: tuple[str, ...]  # every fact shown, in `_shown_facts` order
    bets: tuple[str, ...]  # the paytable's bets in order


@lru_cache(maxsize=32)
def _card_verdicts(paytable: Paytable, colours: _Colours) -> _CardVerdicts:
    universe = [fact for fact in FACTS if colours is not _Colours.NONE or fact not in _COLOUR_FACTS]
    shown = _shown_facts(paytable, universe)
    coloured_bets = [
        bet
        for bet, definition in paytable.bets.items()
        if colours is not _Colours.NONE and any(rule.when & _COLOUR_FACTS for rule in definition.rules)
    ]
    plain = _verdicts(
        paytable,
        _card_key_facts(False),
        universe,
        only=[bet for bet in paytable.bets if bet not in coloured_bets],
        shown=[fact for fact in shown if fact not in _COLOUR_FACTS],
    )
    coloured = (
        None
        if colours is _Colours.NONE
        else _verdicts(
            paytable,
            _rank_key_facts() if colours is _Colours.BY_RANK else _card_key_facts(True),
            universe,
            only=coloured_bets,
            shown=[f for f in shown if f in _COLOUR_FACTS],
        )
    )
    return _CardVerdicts(plain, coloured, tuple(shown), tuple(paytable.bets))


def needs_cards(paytable: Paytable) -> bool:
    """Whether a paytable names a card fact (suits, colours, twin pairs): its odds are then taken
    over the 52 kinds of card, and a composition must say what remains of each."""
    return bool(paytable.facts_used() & CARD_FACTS.keys())


def _card_composition(shoe: int | Mapping[str, int] | ShoeComposition | CardComposition) -> CardComposition:
    if isinstance(shoe, CardComposition):
        return shoe
    if isinstance(shoe, ShoeComposition):
        raise ValueError(
            "this paytable has a bet on suits or colours: its odds need the remaining count of each card "
            "(rank and suit), not of each rank"
        )
    if isinstance(shoe, Mapping):
        try:
            return CardComposition.from_mapping(shoe)
        except InvalidCard:
            raise ValueError(
                "this paytable has a bet on suits or colours: count the remaining cards per card code "
                "(such as 'AS' or '10d'), not per rank"
            ) from None
    return CardComposition.full(shoe)


def exact_card_odds(paytable: Paytable, shoe: int | Mapping[str, int] | ShoeComposition | CardComposition = 8) -> Odds:
    """Exact odds over the 52 kinds of card, for any paytable (its card facts priced too)."""
    cards = _card_composition(shoe)
    # Colours cost two more runs of the enumeration (in the same pass): taken only for a paytable
    # that names one, and by ranks when its colour bets name no suited pair or twins.
    colours = _colours(paytable)
    counted = _card_outcome_weights(cards, colours)
    if counted is None:
        raise ValueError("a shoe of more than 22 decks is beyond the exact odds over suits")
    every, by_colour, denominator = counted
    verdicts = _card_verdicts(paytable, colours)
    fact_ways, plain_ways = verdicts.plain.ways(every)
    ways = dict(zip(verdicts.plain.shown, fact_ways, strict=True))
    class_ways = [(verdicts.plain, plain_ways)]
    if verdicts.coloured is not None and by_colour is not None:
        fact_ways, coloured_ways = verdicts.coloured.ways(by_colour)
        ways.update(zip(verdicts.coloured.shown, fact_ways, strict=True))
        class_ways.append((verdicts.coloured, coloured_ways))
    probabilities = {fact: Fraction(ways[fact], denominator) for fact in verdicts.shown}
    found = {
        bet: _bet_odds(bet, dict(zip(nets, counted[first : first + len(nets)], strict=True)), denominator)
        for part, counted in class_ways
        for bet, nets, first in part.nets
    }
    return Odds(paytable.name, cards.ranks(), probabilities, {bet: found[bet] for bet in verdicts.bets}, cards)
