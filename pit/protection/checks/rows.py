"""The coup and wager rows the protection checks read (the rule checks' sweep reads the same
columns first and hands its rows over as they are), and the name their findings are recorded under."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

PROTECTION_CHECK = "game_protection"

# A coup as game protection reads it (by position: the rule checks' sweep reads these first, then
# columns of its own).
COUP_COLUMNS = ("pk", "player_cards", "banker_cards", "gaming_day", "dealt_at", "paytable_id")

# A chunk's coups per shoe, in number order: rows by position, COUP_COLUMNS (or the first of them)
# first, then columns of the reader's own (the shoe; the rule checks' CoupRow fields). Only read here,
# so the rule checks' lists of CoupRows are taken as they are.
CoupsByShoe = Mapping[int, Sequence[tuple[Any, ...]]]


class WagerRow(NamedTuple):
    """A wager as the protection checks and the rule checks read it (`WAGER_COLUMNS`)."""

    pk: int
    coup_id: int
    seat: int
    bet: str
    currency: str
    amount_minor: int
    paid_minor: int | None
    payout_minor: int
    commission_minor: int
    result: str
    correction_id: int | None


WAGER_COLUMNS = WagerRow._fields


def wager_rows(rows: list[tuple]) -> list[WagerRow]:
    """`WAGER_COLUMNS` rows (a `values_list(*WAGER_COLUMNS)`'s) as WagerRows."""
    return list(map(WagerRow._make, rows))
