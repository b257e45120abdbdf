"""The paytables a protection run reads: each one's engine rules and house edges, read once per run."""

from __future__ import annotations

from decimal import Decimal

from pit import game
from pit.game.money import decimal_sqrt
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable


class Paytables:
    """Each paytable's engine rules and house edges, read once per run (not once per shoe)."""

    def __init__(self) -> None:
        self.rules: dict[int, game.Paytable] = {}
        self.edges: dict[int, dict[str, tuple[Decimal, Decimal]]] = {}
        # (paytable, bet, stake) -> (stake x house edge, stake x standard deviation per unit)
        self.products: dict[tuple[int, str, int], tuple[Decimal, Decimal]] = {}

    def load(self, paytable_ids: set[int]) -> None:
        missing = paytable_ids - set(self.rules)
        for pk, rules, house in PaytableConfiguration.objects.filter(pk__in=missing).values_list(
            "pk", "rules", "house_edges"
        ):
            self.rules[pk] = engine_paytable(rules)
            self.edges[pk] = {
                name: (Decimal(figures["house_edge"]), decimal_sqrt(Decimal(figures["variance"])))
                for name, figures in house.items()
            }
