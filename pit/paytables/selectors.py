"""Reads of paytable configurations, and their conversion to the game engine's Paytable."""

import json
from decimal import Decimal
from functools import lru_cache

from pit import game
from pit.paytables.models import PaytableConfiguration


@lru_cache(maxsize=256)
def _engine_paytable_from_json(rules_json: str) -> game.Paytable:
    return game.Paytable.from_dict(json.loads(rules_json))


def engine_paytable(rules: dict | PaytableConfiguration) -> game.Paytable:
    """The engine's Paytable for stored rules (cached: a settled configuration never changes)."""
    if isinstance(rules, PaytableConfiguration):
        rules = rules.rules
    return _engine_paytable_from_json(json.dumps(rules, sort_keys=True))


@lru_cache(maxsize=512)
def _edges_for(rules_json: str, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    odds = game.exact_odds(_engine_paytable_from_json(rules_json), decks)
    return {
        bet: (game.fraction_to_decimal(figures.house_edge, 16), game.fraction_to_decimal(figures.variance, 16))
        for bet, figures in odds.bets.items()
    }


def paytable_edges(*, rules: dict | PaytableConfiguration, decks: int) -> dict[str, tuple[Decimal, Decimal]]:
    """Per bet, (house edge, variance per unit bet) exactly as the engine computes them for a full
    shoe of `decks` decks (a 6-deck pair edge is 11.2540%, an 8-deck one 10.3614%). Cached per
    rules and deck count: a computation takes about a quarter of a second, and the rules of a
    version that settled a coup never change."""
    if isinstance(rules, PaytableConfiguration):
        rules = rules.rules
    return _edges_for(json.dumps(rules, sort_keys=True), decks)
