"""The bets' names for people, in the reader's language: one per code of the engine's
`pit.game.BET_TYPES` (tests/core/test_translations.py holds the two equal). The engine's English
names stay what its sentences, the records and the machines read."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from pit import game

BET_NAMES: dict[str, StrOrPromise] = {
    "player": _("Player"),
    "banker": _("Banker"),
    "tie": _("Tie"),
    "player_pair": _("Player Pair"),
    "banker_pair": _("Banker Pair"),
    "dragon_7": _("Dragon 7"),
    "panda_8": _("Panda 8"),
    "either_pair": _("Either Pair"),
    "perfect_pair": _("Perfect Pair"),
    "dragon_bonus_player": _("Dragon Bonus Player"),
    "dragon_bonus_banker": _("Dragon Bonus Banker"),
    "big": _("Big"),
    "small": _("Small"),
    "tiger": _("Tiger"),
    "small_tiger": _("Small Tiger"),
    "big_tiger": _("Big Tiger"),
    "tiger_tie": _("Tiger Tie"),
    "tiger_pair": _("Tiger Pair"),
    "lucky_6": _("Lucky 6"),
    "lucky_7": _("Lucky 7"),
    "super_lucky_7": _("Super Lucky 7"),
    "player_natural_8": _("Player Natural 8"),
    "player_natural_9": _("Player Natural 9"),
    "banker_natural_8": _("Banker Natural 8"),
    "banker_natural_9": _("Banker Natural 9"),
    "super_tie": _("Super Tie"),
    "egalite_0": _("Egalité 0"),
    "egalite_1": _("Egalité 1"),
    "egalite_2": _("Egalité 2"),
    "egalite_3": _("Egalité 3"),
    "egalite_4": _("Egalité 4"),
    "egalite_5": _("Egalité 5"),
    "egalite_6": _("Egalité 6"),
    "egalite_7": _("Egalité 7"),
    "egalite_8": _("Egalité 8"),
    "egalite_9": _("Egalité 9"),
}


def bet_name(code: str) -> str:
    """The bet's name in the active language (the engine's English one, or the code itself, for a
    code this table lacks)."""
    name = BET_NAMES.get(code)
    return str(name) if name is not None else game.BET_TYPES.get(code, code)
