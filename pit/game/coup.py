"""A coup: hand totals, the third-card rule (its one home in the product), evaluation and dealing.
`evaluate` always takes the cards as dealt, right or wrong; `verify_coup` says whether they were."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from .cards import Card, parse_cards


class Winner(StrEnum):
    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"

    @classmethod
    def parse(cls, value: str | Winner) -> Winner:
        """The winner a string names; ValueError naming the string otherwise."""
        try:
            return cls(value.strip().lower() if isinstance(value, str) else value)
        except (ValueError, AttributeError):
            raise ValueError(f"{value!r} is not a winner (player, banker or tie)") from None


# --- The third-card rule -------------------------------------------------------------------------

PLAYER_DRAWS_ON = frozenset(range(0, 6))
BANKER_DRAWS_WHEN_PLAYER_STOOD = frozenset(range(0, 6))
# Banker's two-card total -> values of Player's third card on which Banker draws (domain.md).
# A banker 3 draws on a 0 (seed 001 omits it; every other seed and domain.md say it draws).
BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset(range(10)) - {8},
    4: frozenset(range(2, 8)),
    5: frozenset(range(4, 8)),
    6: frozenset({6, 7}),
    7: frozenset(),
    8: frozenset(),
    9: frozenset(),
}


def _check_total(total: int, what: str) -> None:
    if not isinstance(total, int) or isinstance(total, bool) or not 0 <= total <= 9:
        raise ValueError(f"{what} must be a baccarat total 0-9, not {total!r}")


def hand_total(cards: Iterable[Card]) -> int:
    """The baccarat total: the sum of card values modulo 10."""
    return sum(card.value for card in cards) % 10


def is_natural(two_card_total: int) -> bool:
    return two_card_total >= 8


def player_draws(player_two_card_total: int, banker_two_card_total: int | None = None) -> bool:
    """Whether Player takes a third card. Given Banker's two-card total, a Banker natural stops it."""
    _check_total(player_two_card_total, "Player's two-card total")
    if banker_two_card_total is not None:
        _check_total(banker_two_card_total, "Banker's two-card total")
        if banker_two_card_total >= 8:
            return False
    return player_two_card_total in PLAYER_DRAWS_ON


def banker_draws(
    banker_two_card_total: int,
    player_third_value: int | None,
    player_two_card_total: int | None = None,
) -> bool:
    """Whether Banker takes a third card; `player_third_value` None means Player stood.

    Given Player's two-card total, a Player natural stops it (the natural rule overrides all).
    """
    _check_total(banker_two_card_total, "Banker's two-card total")
    if player_two_card_total is not None:
        _check_total(player_two_card_total, "Player's two-card total")
        if player_two_card_total >= 8:
            return False
    if player_third_value is None:
        return banker_two_card_total in BANKER_DRAWS_WHEN_PLAYER_STOOD
    _check_total(player_third_value, "Player's third card value")
    return player_third_value in BANKER_DRAWS_ON[banker_two_card_total]


def banker_rule_text(banker_two_card_total: int, player_third_value: int | None) -> str:
    """The rule for this Banker hand in a pit boss's words, for violation messages."""
    if player_third_value is None:
        return "when Player stands, Banker draws on 0 to 5 and stands on 6 or 7"
    return {
        0: "Banker always draws on 0, 1 or 2",
        1: "Banker always draws on 0, 1 or 2",
        2: "Banker always draws on 0, 1 or 2",
        3: "Banker draws on 3 unless Player's third card is an 8",
        4: "Banker draws on 4 when Player's third card is 2 to 7",
        5: "Banker draws on 5 when Player's third card is 4 to 7",
        6: "Banker draws on 6 only when Player's third card is 6 or 7",
        7: "Banker always stands on 7",
    }.get(banker_two_card_total, "Banker stands on a natural 8 or 9")


# --- Coups ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Coup:
    """The cards of one coup, each hand in the order dealt (P1 B1 P2 B2, Player's third, Banker's third)."""

    player: tuple[Card, ...]
    banker: tuple[Card, ...]

    def __post_init__(self) -> None:
        # Lists and card codes are accepted too; the common case (tuples of Cards) costs one scan.
        for side in ("player", "banker"):
            hand = getattr(self, side)
            if type(hand) is not tuple or not all(type(card) is Card for card in hand):
                object.__setattr__(self, side, parse_cards(hand))

    @classmethod
    def from_codes(cls, player: Sequence[str], banker: Sequence[str]) -> Coup:
        return cls(parse_cards(player), parse_cards(banker))

    @property
    def cards_in_order(self) -> tuple[Card, ...]:
        """All cards in the order they left the shoe (for a correctly dealt coup)."""
        first_four: list[Card] = []
        for index in range(2):
            first_four.extend(hand[index] for hand in (self.player, self.banker) if index < len(hand))
        return (*first_four, *self.player[2:], *self.banker[2:])

    def codes(self) -> dict[str, list[str]]:
        return {"player": [c.code for c in self.player], "banker": [c.code for c in self.banker]}


# Every fact a bet can be defined over, with what it means. Paytables may only name these.
FACTS: dict[str, str] = {
    "player_wins": "Player's total beats Banker's",
    "banker_wins": "Banker's total beats Player's",
    "tie": "equal totals (stand-off)",
    "player_pair": "Player's first two cards share a rank",
    "banker_pair": "Banker's first two cards share a rank",
    "either_pair": "either hand's first two cards share a rank",
    "both_pairs": "both hands' first two cards share a rank",
    "natural": "either two-card total is 8 or 9",
    "player_natural": "Player's two-card total is 8 or 9",
    "banker_natural": "Banker's two-card total is 8 or 9",
    "player_wins_natural": "Player wins with a natural",
    "banker_wins_natural": "Banker wins with a natural",
    "natural_tie": "a tie on naturals",
    "player_drew": "Player holds three cards",
    "banker_drew": "Banker holds three cards",
    "banker_wins_with_6": "Banker wins with a total of 6",
    "banker_wins_two_card_6": "Banker wins with a two-card 6",
    "banker_wins_three_card_6": "Banker wins with a three-card 6",
    "banker_wins_three_card_7": "Banker wins with a three-card 7 (Dragon 7)",
    "player_wins_three_card_8": "Player wins with a three-card 8 (Panda 8)",
    "small": "four cards dealt in all",
    "big": "five or six cards dealt in all",
    **{f"player_wins_by_{n}": f"Player wins by {n} point{'s' if n > 1 else ''}" for n in range(1, 10)},
    **{f"banker_wins_by_{n}": f"Banker wins by {n} point{'s' if n > 1 else ''}" for n in range(1, 10)},
    **{f"tie_on_{n}": f"a tie at {n}" for n in range(10)},
    # Each hand's final total and number of cards, and which natural (Lucky 7, Natural 8/9 bets).
    **{f"player_total_{n}": f"Player's final total is {n}" for n in range(10)},
    **{f"banker_total_{n}": f"Banker's final total is {n}" for n in range(10)},
    "player_two_cards": "Player holds two cards",
    "banker_two_cards": "Banker holds two cards",
    "player_natural_8": "Player's two-card total is a natural 8",
    "player_natural_9": "Player's two-card total is a natural 9",
    "banker_natural_8": "Banker's two-card total is a natural 8",
    "banker_natural_9": "Banker's two-card total is a natural 9",
}
# Facts that need more of the cards than their ranks' values and the pairs: the suits and colours,
# and whether both hands pair in the same rank. A paytable naming one of these is priced by the
# exact odds over the 52 kinds of card (`pit.game.odds`); every other fact by ranks alone.
CARD_FACTS: dict[str, str] = {
    "player_suited_pair": "Player's first two cards share rank and suit (a perfect pair)",
    "banker_suited_pair": "Banker's first two cards share rank and suit (a perfect pair)",
    "either_suited_pair": "either hand's first two cards share rank and suit",
    "both_suited_pairs": "both hands' first two cards share rank and suit",
    "twin_pairs": "both hands' first two cards pair, in the same rank",
    "all_red": "every card dealt is a heart or a diamond",
    "all_black": "every card dealt is a spade or a club",
    "one_colour": "every card dealt is of one colour",
}
FACTS.update(CARD_FACTS)
RED_SUITS = frozenset({"H", "D"})


class Colour(StrEnum):
    """The colours of all the cards of a coup: all red, all black, or mixed."""

    RED = "red"
    BLACK = "black"
    MIXED = "mixed"


@cache
def card_facts(player_suited: bool, banker_suited: bool, twin: bool, colour: Colour) -> frozenset[str]:
    """The facts of the cards' suits and colours and of twin pairs (`CARD_FACTS`); evaluation and
    the exact odds over the 52 kinds of card both take them from here."""
    facts: set[str] = set()
    if player_suited:
        facts.add("player_suited_pair")
    if banker_suited:
        facts.add("banker_suited_pair")
    if player_suited or banker_suited:
        facts.add("either_suited_pair")
    if player_suited and banker_suited:
        facts.add("both_suited_pairs")
    if twin:
        facts.add("twin_pairs")
    if colour is Colour.RED:
        facts.update(("all_red", "one_colour"))
    elif colour is Colour.BLACK:
        facts.update(("all_black", "one_colour"))
    return frozenset(facts)


@cache
def outcome_facts(
    player_total: int,
    banker_total: int,
    player_cards: int,
    banker_cards: int,
    player_pair: bool,
    banker_pair: bool,
    player_natural: bool,
    banker_natural: bool,
) -> frozenset[str]:
    """The facts of an outcome; evaluation and exact odds both take their facts from here."""
    facts: set[str] = set()
    margin = player_total - banker_total
    if margin > 0:
        facts.update(("player_wins", f"player_wins_by_{margin}"))
        if player_natural:
            facts.add("player_wins_natural")
        if player_total == 8 and player_cards == 3:
            facts.add("player_wins_three_card_8")
    elif margin < 0:
        facts.update(("banker_wins", f"banker_wins_by_{-margin}"))
        if banker_natural:
            facts.add("banker_wins_natural")
        if banker_total == 6:
            facts.add("banker_wins_with_6")
            if banker_cards == 2:
                facts.add("banker_wins_two_card_6")
            elif banker_cards == 3:
                facts.add("banker_wins_three_card_6")
        if banker_total == 7 and banker_cards == 3:
            facts.add("banker_wins_three_card_7")
    else:
        facts.update(("tie", f"tie_on_{player_total}"))
        if player_natural or banker_natural:
            facts.add("natural_tie")
    if player_pair:
        facts.add("player_pair")
    if banker_pair:
        facts.add("banker_pair")
    if player_pair or banker_pair:
        facts.add("either_pair")
    if player_pair and banker_pair:
        facts.add("both_pairs")
    if player_natural or banker_natural:
        facts.add("natural")
    if player_natural:
        facts.add("player_natural")
        if player_cards == 2:  # a legal natural stands on two cards, so its final total is the natural
            facts.add(f"player_natural_{player_total}")
    if banker_natural:
        facts.add("banker_natural")
        if banker_cards == 2:
            facts.add(f"banker_natural_{banker_total}")
    facts.update((f"player_total_{player_total}", f"banker_total_{banker_total}"))
    if player_cards == 2:
        facts.add("player_two_cards")
    if banker_cards == 2:
        facts.add("banker_two_cards")
    if player_cards == 3:
        facts.add("player_drew")
    if banker_cards == 3:
        facts.add("banker_drew")
    total_cards = player_cards + banker_cards
    if total_cards == 4:
        facts.add("small")
    elif total_cards in (5, 6):
        facts.add("big")
    return frozenset(facts)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The outcome of the cards as dealt: totals, winner, naturals, pairs, and the facts bets use."""

    player_total: int
    banker_total: int
    winner: Winner
    natural: bool
    player_natural: bool
    banker_natural: bool
    player_pair: bool
    banker_pair: bool
    player_cards: int
    banker_cards: int
    player_drew: bool
    banker_drew: bool
    facts: frozenset[str]
    player_suited_pair: bool = False
    banker_suited_pair: bool = False
    twin_pairs: bool = False
    colour: Colour = Colour.MIXED


@cache
def _evaluation(
    player_total: int,
    banker_total: int,
    player_cards: int,
    banker_cards: int,
    player_pair: bool,
    banker_pair: bool,
    player_natural: bool,
    banker_natural: bool,
    cards: tuple[bool, bool, bool, Colour] = (False, False, False, Colour.MIXED),
) -> Evaluation:
    # Evaluations are immutable and determined by these eight values, so they are shared:
    # evaluating a coup costs a few additions and one cache lookup.
    if player_total > banker_total:
        winner = Winner.PLAYER
    elif banker_total > player_total:
        winner = Winner.BANKER
    else:
        winner = Winner.TIE
    return Evaluation(
        player_total=player_total,
        banker_total=banker_total,
        winner=winner,
        natural=player_natural or banker_natural,
        player_natural=player_natural,
        banker_natural=banker_natural,
        player_pair=player_pair,
        banker_pair=banker_pair,
        player_cards=player_cards,
        banker_cards=banker_cards,
        player_drew=player_cards >= 3,
        banker_drew=banker_cards >= 3,
        facts=outcome_facts(
            player_total,
            banker_total,
            player_cards,
            banker_cards,
            player_pair,
            banker_pair,
            player_natural,
            banker_natural,
        )
        | card_facts(*cards),
        player_suited_pair=cards[0],
        banker_suited_pair=cards[1],
        twin_pairs=cards[2],
        colour=cards[3],
    )


def evaluate(coup: Coup) -> Evaluation:
    """Evaluate any dealt coup, legal or not, from its cards as dealt.

    Naturals and pairs are properties of a hand's first two cards, so a hand of fewer than two
    cards has neither; totals are always the sum of every card the hand holds.
    """
    player, banker = coup.player, coup.banker
    player_two = len(player) >= 2
    banker_two = len(banker) >= 2
    return _evaluation(
        sum(card.value for card in player) % 10,
        sum(card.value for card in banker) % 10,
        len(player),
        len(banker),
        player_two and player[0].rank == player[1].rank,
        banker_two and banker[0].rank == banker[1].rank,
        player_two and (player[0].value + player[1].value) % 10 >= 8,
        banker_two and (banker[0].value + banker[1].value) % 10 >= 8,
        _card_key(player, banker),
    )


def _card_key(player: Sequence[Card], banker: Sequence[Card]) -> tuple[bool, bool, bool, Colour]:
    """What `card_facts` reads of the cards: each hand's suited pair, twin pairs, the colours."""
    player_suited = len(player) >= 2 and player[0] == player[1]
    banker_suited = len(banker) >= 2 and banker[0] == banker[1]
    twin = (
        len(player) >= 2 and len(banker) >= 2 and player[0].rank == player[1].rank == banker[0].rank == banker[1].rank
    )
    reds = sum(card.suit in RED_SUITS for card in (*player, *banker))
    dealt = len(player) + len(banker)
    colour = Colour.MIXED if not dealt or 0 < reds < dealt else Colour.RED if reds else Colour.BLACK
    return player_suited, banker_suited, twin, colour


# A hand's two-card total and whether its first two cards pair, then its later cards' values; or
# (None, its values) for a hand of fewer than two cards.
HandSignature = tuple[int | bool | None | tuple[int, ...], ...]


def coup_signature(
    player: Sequence[Card], banker: Sequence[Card]
) -> tuple[HandSignature, HandSignature, tuple[bool, bool, bool, Colour]]:
    """Everything the draw rules, the reported-winner check (`verify_coup`) and `evaluate` look at in
    a coup's hands: each hand's two-card total, whether its first two cards pair, and the values of
    its later cards (a hand of fewer than two cards: its values). Coups with the same signature (and
    the same reported winner) break the same rules and have the same evaluation; only the wording of
    a finding names their cards. For callers that judge many coups and remember the engine's
    answers by it. The card facts (suited pairs, twin pairs, colours: `card_facts`) are its third
    part, so coups of one signature also settle every suit and colour bet alike."""
    return _hand_signature(player), _hand_signature(banker), _card_key(player, banker)


def _hand_signature(hand: Sequence[Card]) -> HandSignature:
    if len(hand) < 2:
        return (None, tuple([card.value for card in hand]))
    first, second = hand[0], hand[1]
    return ((first.value + second.value) % 10, first.rank == second.rank, *[card.value for card in hand[2:]])


def deal_coup(draw: Callable[[], Card] | Iterable[Card]) -> Coup:
    """Deal one coup by the rules from `draw()` (or the next cards of an iterable)."""
    if not callable(draw):
        draw = iter(draw).__next__
    p1, b1, p2, b2 = draw(), draw(), draw(), draw()
    player_total = (p1.value + p2.value) % 10
    banker_total = (b1.value + b2.value) % 10
    player = [p1, p2]
    banker = [b1, b2]
    if player_total < 8 and banker_total < 8:
        player_third = None
        if player_total in PLAYER_DRAWS_ON:
            player_third = draw()
            player.append(player_third)
        if banker_draws(banker_total, None if player_third is None else player_third.value):
            banker.append(draw())
    return Coup(tuple(player), tuple(banker))
