"""Reads of paytable configurations, and their conversion to the game engine's Paytable."""
import json
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


def paytable_current_versions():
    """The newest version of every paytable family."""
    return PaytableConfiguration.objects.filter(superseded_by__isnull=True).order_by("code")
