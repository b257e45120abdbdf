"""Card sequences of a shoe, for game protection: the order the cards came out, its shingles (k
consecutive cards) to find a shoe dealt again in the same order, and runs in new-deck order (a
shoe that was never shuffled); and the words of the protection findings. Pure functions; the
back-office stores and compares the shingles."""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import ALL_CARD_CODES, RANKS, parse_card
from .violations import Violation, violation

# k = 10 consecutive cards: the first three coups of a replayed shoe deal at least 12 cards, so at
# least three shingles; two shuffled 8-deck shoes share a given 10-card run with probability below
# (8/406)**10 = 8.9e-18 (docs/design/protection.md has the whole false-alarm estimate).
SHINGLE_LENGTH = 10
# A run of 7 cards each the next in new-deck order (same suit, rank one up, or one down all the
# way): about 400 * (2/52) * (1/52)**5 = 4e-8 per shuffled 8-deck shoe.
NEW_DECK_RUN_LENGTH = 7


def dealt_order(player: Sequence[str], banker: Sequence[str]) -> list[str]:
    """A coup's cards in the order they left the shoe: Player, Banker, Player, Banker, then
    Player's third card and Banker's third card (normalised codes)."""
    if not (_normalised(player) and _normalised(banker)):  # as stored: already normalised
        player = [parse_card(code).code for code in player]
        banker = [parse_card(code).code for code in banker]
    order = []
    for index in range(max(len(player), len(banker))):
        if index < len(player):
            order.append(player[index])
        if index < len(banker):
            order.append(banker[index])
    return order


_NORMAL = frozenset(ALL_CARD_CODES)


def _normalised(codes: Sequence[object]) -> bool:
    """Whether every code is a card's normal two-character code (as stored); False for anything
    else, unhashable values included (parse_card then names the one that is no card)."""
    try:
        return _NORMAL.issuperset(codes)
    except TypeError:
        return False


# Seven or more cards of one suit in a row: the only stretches a new-deck run can lie in.
_SAME_SUIT_STRETCH = re.compile(rf"(.)\1{{{NEW_DECK_RUN_LENGTH - 1},}}")


def shingle_digest(codes: Sequence[str]) -> int:
    """A signed 64-bit digest of consecutive card codes (BLAKE2b): equal runs, equal digests; two
    different runs collide with probability 2**-64."""
    digest = hashlib.blake2b(" ".join(codes).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def dealt_digest(codes: Sequence[str], length: int = SHINGLE_LENGTH) -> int:
    """A signed 64-bit digest (BLAKE2b) of a shoe's whole dealt order and the shingle length: equal
    as long as the cards, and so every shingle, are the same."""
    text = f"{length}|" + " ".join(codes)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big", signed=True)


def shingles(codes: Sequence[str], length: int = SHINGLE_LENGTH) -> list[tuple[int, int]]:
    """(position of the first card, digest) of every run of `length` consecutive cards."""
    if not _normalised(codes):
        return [(start, shingle_digest(codes[start : start + length])) for start in range(len(codes) - length + 1)]
    # Normalised codes are two characters each: a run's text (codes joined by spaces) is a slice of
    # the whole shoe's text, 3 bytes a card, hashed without joining each run again.
    # A copy of an empty hasher costs less than a new one (no keyword arguments to parse).
    text, width, empty = " ".join(codes).encode(), 3 * length - 1, hashlib.blake2b(digest_size=8)
    found = []
    for start in range(len(codes) - length + 1):
        hasher = empty.copy()
        hasher.update(text[3 * start : 3 * start + width])
        found.append((start, _SIGNED_64(hasher.digest())[0]))
    return found


_SIGNED_64 = struct.Struct(">q").unpack


@dataclass(frozen=True, slots=True)
class Run:
    start: int  # position of its first card in the shoe's dealt order
    cards: tuple[str, ...]


def new_deck_runs(codes: Sequence[str], length: int = NEW_DECK_RUN_LENGTH) -> list[Run]:
    """Runs of at least `length` cards in new-deck order: each card of the same suit as the one
    before and one rank above it (A, 2 ... K), or one rank below it all the way."""
    if length == NEW_DECK_RUN_LENGTH and _normalised(codes):
        # A run lies within `length` or more cards of one suit in a row (a change of suit ends any
        # run): only those stretches are walked.
        suits = "".join(code[1] for code in codes)
        return [
            Run(run.start + stretch.start(), run.cards)
            for stretch in _SAME_SUIT_STRETCH.finditer(suits)
            for run in _new_deck_runs(codes[stretch.start() : stretch.end()], length)
        ]
    return _new_deck_runs(codes, length)


def _new_deck_runs(codes: Sequence[str], length: int) -> list[Run]:
    runs = []
    start, step = 0, 0
    ranks = [RANKS.index(code[0]) for code in codes]

    def close(end: int) -> None:
        if end - start >= length:
            runs.append(Run(start, tuple(codes[start:end])))

    for index in range(1, len(codes) + 1):
        if index < len(codes) and codes[index][1] == codes[index - 1][1]:
            delta = ranks[index] - ranks[index - 1]
            if delta in (1, -1) and (step in (0, delta)):
                step = delta
                continue
        close(index)
        # A card that breaks the direction may still start a run with the card before it.
        if index < len(codes) and codes[index][1] == codes[index - 1][1] and abs(ranks[index] - ranks[index - 1]) == 1:
            start, step = index - 1, ranks[index] - ranks[index - 1]
        else:
            start, step = index, 0
    return runs


def sequence_repeat(cards: int, position: int, earlier: str) -> Violation:
    return violation(
        "shoe_sequence_repeat",
        f"From card {position} of this shoe, {cards} cards in a row came out in the same order as in "
        f"{earlier}: the shoe may not have been shuffled, or was swapped for a stacked one.",
    )


def new_deck_order_run(run: Run) -> Violation:
    return violation(
        "new_deck_order_run",
        f"{NEW_DECK_RUN_LENGTH} or more cards in new-deck order ({' '.join(run.cards[:NEW_DECK_RUN_LENGTH])} "
        f"...), from card {run.start + 1} of the shoe: the decks may not have been shuffled.",
    )


def concatenated(coups: Iterable[tuple[Sequence[str], Sequence[str]]]) -> tuple[list[str], list[int]]:
    """The shoe's cards in dealt order over its coups (player, banker), and for each card the index
    of the coup that dealt it."""
    codes, owners = [], []
    for index, (player, banker) in enumerate(coups):
        order = dealt_order(player, banker)
        codes.extend(order)
        owners.extend([index] * len(order))
    return codes, owners


def stale_feed(minutes: int, last_coup: int | None) -> Violation:
    heard = f"since coup {last_coup}" if last_coup is not None else "since the shoe was started"
    return violation(
        "stale_feed",
        f"An open table's dealing shoe has sent no coup for {minutes} minutes ({heard}): a dead card "
        f"reader, or a game played without being reported.",
    )


def coup_rate_high(coups: int, maximum: int) -> Violation:
    return violation(
        "coup_rate_high",
        f"{coups} coups dealt at this table within one hour, more than the {maximum} a dealer can deal: "
        f"coups posted twice by a device, or a game not dealt as reported.",
    )
