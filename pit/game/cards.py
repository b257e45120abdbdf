"""Playing cards as baccarat sees them: rank, suit, baccarat value, and parsing of card codes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import total_ordering

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANK_VALUES: dict[str, int] = {rank: (index + 1 if index < 9 else 0) for index, rank in enumerate(RANKS)}
SUIT_SYMBOLS: dict[str, str] = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
ALL_CARD_CODES: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)

_RANK_INDEX = {rank: index for index, rank in enumerate(RANKS)}
_SUIT_INDEX = {suit: index for index, suit in enumerate(SUITS)}
_CODE_HINT = "rank A,2-9,T/10,J,Q,K then suit S,H,D,C"


class InvalidCard(ValueError):
    """A card code that names no card; `.code` is the offending input, `.index` its position if known."""

    def __init__(self, code: object, index: int | None = None):
        self.code = code
        self.index = index
        shown = repr(code) if isinstance(code, str) else f"{code!r} ({type(code).__name__})"
        where = f"card {index + 1}: " if index is not None else ""
        super().__init__(f"{where}{shown} is not a card code ({_CODE_HINT})")


@total_ordering
@dataclass(frozen=True, slots=True)
class Card:
    """One card. Ordered by rank (A low, K high) then suit in S, H, D, C order."""

    rank: str
    suit: str
    value: int = field(init=False, compare=False, repr=False)
    code: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.rank not in _RANK_INDEX or self.suit not in _SUIT_INDEX:
            raise InvalidCard(f"{self.rank}{self.suit}")
        object.__setattr__(self, "value", RANK_VALUES[self.rank])
        object.__setattr__(self, "code", self.rank + self.suit)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return (_RANK_INDEX[self.rank], _SUIT_INDEX[self.suit]) < (
            _RANK_INDEX[other.rank],
            _SUIT_INDEX[other.suit],
        )

    @property
    def symbol(self) -> str:
        """How a pit boss writes the card: 10♦, 5♥, A♠."""
        return ("10" if self.rank == "T" else self.rank) + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return self.symbol


def _build_lookup() -> dict[str, Card]:
    # Every accepted spelling maps to one interned Card, so parsing a code is a dict lookup:
    # the card-reading shoes post tens of thousands of codes and this is the hot path.
    lookup: dict[str, Card] = {}
    for rank in RANKS:
        rank_spellings = {rank, rank.lower()} | ({"10"} if rank == "T" else set())
        for suit in SUITS:
            card = Card(rank, suit)
            for spelled_rank in rank_spellings:
                for spelled_suit in (suit, suit.lower(), SUIT_SYMBOLS[suit]):
                    lookup[spelled_rank + spelled_suit] = card
    return lookup


_LOOKUP = _build_lookup()
CARDS: dict[str, Card] = {code: _LOOKUP[code] for code in ALL_CARD_CODES}


def parse_card(code: str | Card) -> Card:
    """The card a code names: 'TD', '10d', 'A♠'. Raises InvalidCard naming the code otherwise."""
    if isinstance(code, Card):
        return code
    try:
        return _LOOKUP[code]
    except (KeyError, TypeError):
        if isinstance(code, str):
            card = _LOOKUP.get(code.strip())
            if card is not None:
                return card
        raise InvalidCard(code) from None


def parse_cards(codes: Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse codes in order; InvalidCard names the first bad one and its index."""
    if isinstance(codes, str):
        # A bare string would otherwise be read character by character.
        raise InvalidCard(codes, 0)
    cards = []
    for index, code in enumerate(codes):
        try:
            cards.append(parse_card(code))
        except InvalidCard:
            raise InvalidCard(code, index) from None
    return tuple(cards)


def cards_text(cards: Iterable[Card]) -> str:
    """Cards for a message: '5♥ K♦ 2♣'."""
    return " ".join(card.symbol for card in cards)
