"""Shoe integrity: cards seen against the shoe's capacity, coup numbers, coups after the shoe's
close, and play at a closed table."""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

from pit import game
from pit.compliance.checks.context import RunContext, cards_seen
from pit.compliance.checks.findings import Finding

if TYPE_CHECKING:  # chunk.py imports this module: its row type is imported for annotations only
    from pit.compliance.checks.chunk import CoupRow

logger = logging.getLogger(__name__)


class ShoeIntegrity:
    """One shoe's integrity, coup after coup in number order: `advance` for every coup of the shoe
    (the cards seen and the numbers count from the first), `findings` for those judged."""

    def __init__(self, shoe: dict, coups: list[CoupRow]) -> None:
        self.shoe = shoe
        self.seen = Counter(shoe["burn_cards"] or ())
        self.burn_codes = set(self.seen)
        # Cards only accumulate: when the whole shoe breaks no capacity rule, no coup of it does, and
        # the per-coup counting is skipped (one engine call per shoe instead of one per coup).
        whole_shoe = Counter(self.seen)
        for coup in coups:
            whole_shoe.update(coup[1])
            whole_shoe.update(coup[2])
        self.over_capacity = self.overdealt = False
        try:
            for finding in game.check_cards_seen(shoe["decks"], whole_shoe):
                self.over_capacity |= finding.code == "card_over_capacity"
                self.overdealt |= finding.code == "shoe_overdealt"
        except (ValueError, game.InvalidCard):
            logger.warning("shoe %s: cards that name no card", shoe["id"])
        # The numbers of the coup before the last advanced and of the last (None before the first).
        self.previous_number: int | None = None
        self.last_number: int | None = None

    def advance(self, player_codes: list[str], banker_codes: list[str], number: int) -> None:
        if self.over_capacity or self.overdealt:
            self.seen.update([*player_codes, *banker_codes])
        self.previous_number, self.last_number = self.last_number, number

    def findings(
        self,
        index: int,
        pk: int,
        codes: list[str],
        number: int,
        after_close: bool,
        recorded_at,
        context: RunContext,
    ) -> list[Finding]:
        """The coup's integrity findings, counting from the burn up to it (after its `advance`)."""
        shoe, decks, seen = self.shoe, self.shoe["decks"], self.seen
        findings: list[Finding] = []
        # A card over capacity is charged to the coup that dealt it (the burn's own excess, if any, to
        # the first coup); an overdealt shoe to every coup past its end.
        if self.over_capacity:
            charged = set(codes) | (self.burn_codes if index == 0 else set())
            for code in sorted(charged):
                for finding in context.card_seen(decks, code, seen[code], pk):
                    findings.append(Finding(f"card_over_capacity:coup{pk}:{code}", finding, pk))
        if self.overdealt:
            for finding in cards_seen(decks, seen, pk):
                if finding.code == "shoe_overdealt":
                    findings.append(Finding(f"shoe_overdealt:coup{pk}", finding, pk))
        gap = game.check_coup_number(number, self.previous_number)
        if gap is not None:
            findings.append(Finding(f"coup_number_gap:coup{pk}", gap, pk))
        if after_close:
            findings.append(
                Finding(f"coup_after_shoe_closed:coup{pk}", game.coup_after_shoe_closed(number, shoe["sequence"]), pk)
            )
        if context.table_closed_at(shoe["table_id"], recorded_at):
            findings.append(
                Finding(
                    f"play_at_closed_table:coup{pk}",
                    game.play_at_closed_table(number, context.table_codes[shoe["table_id"]]),
                    pk,
                )
            )
        return findings
