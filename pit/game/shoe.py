"""A dealing shoe for the simulator and tests: shuffled decks, the burn, the cut card, drawing coups."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .cards import ALL_CARD_CODES, CARDS, Card
from .coup import Coup, deal_coup
from .odds import ShoeComposition

DEFAULT_DECKS = 8
# Where the cut card usually goes in an 8-deck baccarat shoe: about a third of a deck from the end.
DEFAULT_CUT_FROM_END = 14


class ShoeExhausted(RuntimeError):
    """Drawing from an empty shoe."""


class Shoe:
    """Cards in dealing order. Stateful: `draw` and `burn` take cards from the front."""

    def __init__(self, cards: Sequence[Card], decks: int, cut_position: int | None = None):
        if cut_position is not None and not 0 <= cut_position <= len(cards):
            raise ValueError(f"the cut card must sit within the {len(cards)} cards, not at {cut_position}")
        self.decks = decks
        self._cards = list(cards)
        self._next = 0
        self.cut_position = cut_position if cut_position is not None else len(self._cards)
        self.dealt: list[Card] = []
        self.burned: list[Card] = []

    def __len__(self) -> int:
        return len(self._cards) - self._next

    @property
    def order(self) -> tuple[Card, ...]:
        """Every card of the shoe in dealing order, dealt or not (a simulator replays a shoe with it)."""
        return tuple(self._cards)

    @property
    def cards_left(self) -> int:
        return len(self)

    @property
    def cards_left_before_cut(self) -> int:
        return max(0, self.cut_position - self._next)

    @property
    def cut_card_reached(self) -> bool:
        return self._next >= self.cut_position

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise ShoeExhausted(f"the shoe is empty after {len(self._cards)} cards")
        card = self._cards[self._next]
        self._next += 1
        self.dealt.append(card)
        return card

    def _take(self) -> Card:
        if self._next >= len(self._cards):
            raise ShoeExhausted(f"the shoe is empty after {len(self._cards)} cards")
        card = self._cards[self._next]
        self._next += 1
        self.burned.append(card)
        return card

    def burn(self) -> tuple[Card, ...]:
        """The dealer's burn: turn the first card and burn as many more as its value (10 for tens
        and faces). Returns every burned card, the turned card first."""
        turned = self._take()
        count = turned.value or 10
        return (turned, *(self._take() for _ in range(count)))

    def deal_coup(self) -> Coup:
        return deal_coup(self.draw)

    def cards_seen(self) -> Counter[str]:
        """Count per card code of every card out of the shoe (dealt and burned), for check_cards_seen."""
        return Counter(card.code for card in (*self.burned, *self.dealt))

    def composition(self) -> ShoeComposition:
        """What is truly left in the shoe (including cards no one has seen yet)."""
        remaining = Counter(card.rank for card in self._cards[self._next :])
        return ShoeComposition.from_mapping(remaining)


def new_shoe(
    decks: int = DEFAULT_DECKS,
    rng: random.Random | None = None,
    *,
    cut_from_end: int = DEFAULT_CUT_FROM_END,
) -> Shoe:
    """A freshly shuffled shoe of `decks` decks; deterministic for a seeded `rng`."""
    if not isinstance(decks, int) or isinstance(decks, bool) or decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks!r}")
    rng = rng if rng is not None else random.Random()
    cards = [CARDS[code] for code in ALL_CARD_CODES] * decks
    rng.shuffle(cards)
    return Shoe(cards, decks, cut_position=max(0, len(cards) - cut_from_end))
