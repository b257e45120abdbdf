"""Paytables as data: each bet an ordered list of rules over outcome facts, plus commission settings.
JSON round trip (`to_dict`/`from_dict`) for the database; every way in validates (InvalidPaytable)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from typing import Any

from .coup import FACTS
from .money import to_decimal


class InvalidPaytable(ValueError):
    """A paytable (or part of one) that cannot be played; the message names the problem."""


class BetResult(StrEnum):
    WIN = "win"
    PUSH = "push"
    LOSE = "lose"


class CommissionMode(StrEnum):
    BOX = "box"  # even money paid, commission owed into the seat's commission box
    DEDUCTED = "deducted"  # the payout itself is net of commission, nothing owed
    NONE = "none"


class RoundingMode(StrEnum):
    HALF_UP = "half_up"
    UP = "up"
    DOWN = "down"


# The bet types the product knows by name; a paytable may define others over the same facts.
BET_TYPES: dict[str, str] = {
    "player": "Player",
    "banker": "Banker",
    "tie": "Tie",
    "player_pair": "Player Pair",
    "banker_pair": "Banker Pair",
    "dragon_7": "Dragon 7",
    "panda_8": "Panda 8",
    "either_pair": "Either Pair",
}
# The bets a tie pushes when the paytable says ties push.
MAIN_BETS = frozenset({"player", "banker"})
_BET_NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")


def _enum(enum: type[StrEnum], value: object, what: str) -> Any:
    try:
        if isinstance(value, str):
            return enum(value)
    except ValueError:
        pass
    choices = ", ".join(member.value for member in enum)
    raise InvalidPaytable(f"{what} must be one of {choices}, not {value!r}")


def _decimal(value: object, what: str) -> Decimal:
    if isinstance(value, float):
        raise InvalidPaytable(f"{what} must be a decimal string, not the float {value!r}")
    try:
        return to_decimal(value, what)  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        raise InvalidPaytable(str(error)) from None


@dataclass(frozen=True, slots=True)
class Ratio:
    """Odds 'numerator to denominator': 8:1 pays 8 for 1, 19:20 pays 19 for 20, 1:2 pays 1 for 2."""

    numerator: int
    denominator: int

    def __post_init__(self) -> None:
        for part in (self.numerator, self.denominator):
            if not isinstance(part, int) or isinstance(part, bool) or part < 1:
                raise InvalidPaytable(
                    f"odds {self.numerator!r}:{self.denominator!r} need two whole numbers of at least 1"
                )

    @classmethod
    def parse(cls, text: str | Ratio) -> Ratio:
        if isinstance(text, Ratio):
            return text
        match = re.fullmatch(r"\s*(\d+)\s*(?::|to)\s*(\d+)\s*", text) if isinstance(text, str) else None
        if match is None:
            raise InvalidPaytable(f"{text!r} is not odds like '8:1' or '19:20'")
        return cls(int(match[1]), int(match[2]))

    def as_fraction(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)

    def __str__(self) -> str:
        return f"{self.numerator}:{self.denominator}"


@dataclass(frozen=True, slots=True)
class Rounding:
    """Round an amount to a multiple of `increment`: half up, always up, or always down."""

    increment: Decimal
    mode: RoundingMode = RoundingMode.HALF_UP

    def __post_init__(self) -> None:
        increment = _decimal(self.increment, "rounding increment")
        if increment <= 0:
            raise InvalidPaytable(f"rounding increment must be above 0, not {increment}")
        object.__setattr__(self, "increment", increment)
        object.__setattr__(self, "mode", _enum(RoundingMode, self.mode, "rounding mode"))

    def apply(self, amount: Decimal | Fraction) -> Decimal:
        steps = Fraction(amount) / Fraction(self.increment)
        if self.mode is RoundingMode.UP:
            whole = math.ceil(steps)
        elif self.mode is RoundingMode.DOWN:
            whole = math.floor(steps)
        else:
            whole = math.floor(steps + Fraction(1, 2))
        return self.increment * whole

    def at_least(self, unit: Decimal) -> Rounding:
        """The same rounding on a whole number of `unit`s: a cent (or quarter) increment becomes 1 in
        a currency without minor units, rounded the same way (half up, up or down)."""
        steps = Fraction(self.increment) / Fraction(unit)
        if steps.denominator == 1:
            return self
        return Rounding(unit * max(math.ceil(steps), 1), self.mode)

    def to_dict(self) -> dict[str, str]:
        return {"increment": str(self.increment), "mode": self.mode.value}


@dataclass(frozen=True, slots=True)
class BetRule:
    """When every fact in `when` holds, the bet has `result`; a win pays `odds`, less commission if set."""

    when: frozenset[str]
    result: BetResult
    odds: Ratio | None = None
    commission: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.when, str):
            raise InvalidPaytable(f"a rule's facts must be a set of names, not the string {self.when!r}")
        when = frozenset(self.when)
        unknown = sorted(fact for fact in when if fact not in FACTS)
        if unknown:
            raise InvalidPaytable(f"unknown fact {unknown[0]!r} (known facts: {', '.join(sorted(FACTS))})")
        result = _enum(BetResult, self.result, "a rule's result")
        odds = Ratio.parse(self.odds) if isinstance(self.odds, str) else self.odds
        if result is BetResult.WIN and not isinstance(odds, Ratio):
            raise InvalidPaytable("a winning rule needs odds such as '1:1'")
        if result is not BetResult.WIN and odds is not None:
            raise InvalidPaytable(f"odds apply only to a win, not to a {result.value}")
        if not isinstance(self.commission, bool):
            raise InvalidPaytable(f"a rule's commission must be true or false, not {self.commission!r}")
        if self.commission and result is not BetResult.WIN:
            raise InvalidPaytable("commission is charged only on a win")
        object.__setattr__(self, "when", when)
        object.__setattr__(self, "result", result)
        object.__setattr__(self, "odds", odds)

    def matches(self, facts: frozenset[str]) -> bool:
        return self.when <= facts

    def to_dict(self) -> dict[str, Any]:
        return {
            "when": sorted(self.when),
            "result": self.result.value,
            "odds": str(self.odds) if self.odds is not None else None,
            "commission": self.commission,
        }

    @classmethod
    def from_dict(cls, data: object) -> BetRule:
        if not isinstance(data, Mapping):
            raise InvalidPaytable(f"a rule must be an object, not {data!r}")
        _no_unknown_keys(data, {"when", "result", "odds", "commission"}, "a rule")
        when = data.get("when", [])
        if not isinstance(when, list) or not all(isinstance(fact, str) for fact in when):
            raise InvalidPaytable(f"a rule's 'when' must be a list of fact names, not {when!r}")
        if "result" not in data:
            raise InvalidPaytable("a rule needs a 'result' (win, push or lose)")
        odds = data.get("odds")
        if odds is not None and not isinstance(odds, str):
            raise InvalidPaytable(f"odds must be a string like '8:1', not {odds!r}")
        # A string of odds is parsed by __post_init__, after the checks of the facts and the result.
        return cls(frozenset(when), data["result"], odds, data.get("commission", False))  # type: ignore[arg-type]


_LOSE = BetRule(frozenset(), BetResult.LOSE)
_PUSH = BetRule(frozenset({"tie"}), BetResult.PUSH)


@dataclass(frozen=True, slots=True)
class BetDefinition:
    """A bet type: its rules, tried in order; the first that matches decides and no match loses."""

    bet: str
    rules: tuple[BetRule, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.bet, str) or not _BET_NAME.match(self.bet):
            raise InvalidPaytable(f"{self.bet!r} is not a bet name (lower case letters, digits and _)")
        rules = tuple(self.rules)
        if not rules:
            raise InvalidPaytable(f"bet {self.bet!r} has no rules")
        if not all(isinstance(rule, BetRule) for rule in rules):
            raise InvalidPaytable(f"bet {self.bet!r}: every rule must be a BetRule")
        object.__setattr__(self, "rules", rules)

    def resolve(self, facts: frozenset[str]) -> BetRule:
        for rule in self.rules:
            if rule.when <= facts:
                return rule
        return _LOSE

    def to_dict(self) -> dict[str, Any]:
        return {"rules": [rule.to_dict() for rule in self.rules]}


def _no_unknown_keys(data: Mapping[object, object], allowed: set[str], what: str) -> None:
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        raise InvalidPaytable(f"{what} has unknown field {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")


@dataclass(frozen=True)
class Paytable:
    """The payouts, commission mode, rate and rounding and bet increments a table plays under."""

    name: str
    bets: Mapping[str, BetDefinition]
    commission_mode: CommissionMode = CommissionMode.BOX
    commission_rate: Decimal = Decimal("0.05")
    commission_rounding: Rounding = field(default_factory=lambda: Rounding(Decimal("0.01")))
    bet_increments: Mapping[str, Decimal] = field(default_factory=dict)
    ties_push: bool = True  # a tie pushes Player and Banker bets, ahead of their own rules

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidPaytable("a paytable needs a name")
        if not isinstance(self.bets, Mapping) or not self.bets:
            raise InvalidPaytable(f"paytable {self.name!r} has no bets")
        for key, definition in self.bets.items():
            if not isinstance(definition, BetDefinition):
                raise InvalidPaytable(f"bet {key!r} must be a BetDefinition")
            if key != definition.bet:
                raise InvalidPaytable(f"bet {key!r} is filed under a different name ({definition.bet!r})")
        mode = _enum(CommissionMode, self.commission_mode, "commission mode")
        rate = _decimal(self.commission_rate, "commission rate")
        if not 0 <= rate < 1:
            raise InvalidPaytable(f"commission rate must be at least 0 and below 1, not {rate}")
        if mode is CommissionMode.NONE:
            if rate != 0:
                raise InvalidPaytable(f"commission mode none needs a commission rate of 0, not {rate}")
            for definition in self.bets.values():
                if any(rule.commission for rule in definition.rules):
                    raise InvalidPaytable(f"bet {definition.bet!r} charges commission but the commission mode is none")
        if not isinstance(self.commission_rounding, Rounding):
            raise InvalidPaytable("commission rounding must be a Rounding")
        increments = {}
        for bet, increment in dict(self.bet_increments).items():
            if bet not in self.bets:
                raise InvalidPaytable(f"bet increment for {bet!r}, which the paytable does not offer")
            amount = _decimal(increment, f"increment for {bet!r}")
            if amount <= 0:
                raise InvalidPaytable(f"increment for {bet!r} must be above 0, not {amount}")
            increments[bet] = amount
        if not isinstance(self.ties_push, bool):
            raise InvalidPaytable(f"ties_push must be true or false, not {self.ties_push!r}")
        # Copies, so that changing the caller's dicts later cannot change a validated paytable.
        object.__setattr__(self, "bets", dict(self.bets))
        object.__setattr__(self, "commission_mode", mode)
        object.__setattr__(self, "commission_rate", rate)
        object.__setattr__(self, "bet_increments", increments)

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.bets), self.commission_mode, self.commission_rate))

    def resolve(self, bet: str, facts: frozenset[str]) -> BetRule:
        """The rule that decides `bet` for an outcome with these facts (KeyError for an unknown bet)."""
        definition = self.bets[bet]
        if self.ties_push and bet in MAIN_BETS and "tie" in facts:
            return _PUSH
        return definition.resolve(facts)

    def facts_used(self) -> frozenset[str]:
        used = {fact for definition in self.bets.values() for rule in definition.rules for fact in rule.when}
        if self.ties_push and MAIN_BETS & set(self.bets):
            used.add("tie")
        return frozenset(used)

    def describe(self, bet: str) -> str:
        """How the bet pays, for tables and messages: '1:1 less 5% commission; push on tie'."""
        parts = []
        rate = f"{(self.commission_rate * 100).normalize():f}%"
        for rule in self.bets[bet].rules:
            condition = " and ".join(sorted(rule.when)) or "otherwise"
            if rule.result is BetResult.WIN:
                pays = f"{rule.odds}"
                if rule.commission and self.commission_mode is not CommissionMode.NONE:
                    pays += f" less {rate} commission"
                parts.append(f"{pays} on {condition}")
            else:
                parts.append(f"{rule.result.value} on {condition}")
        if self.ties_push and bet in MAIN_BETS:
            parts.insert(0, "push on tie")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: decimals and odds as strings."""
        return {
            "name": self.name,
            "commission_mode": self.commission_mode.value,
            "commission_rate": str(self.commission_rate),
            "commission_rounding": self.commission_rounding.to_dict(),
            "bet_increments": {bet: str(amount) for bet, amount in self.bet_increments.items()},
            "ties_push": self.ties_push,
            "bets": {bet: definition.to_dict() for bet, definition in self.bets.items()},
        }

    @classmethod
    def from_dict(cls, data: object) -> Paytable:
        """Rebuild and validate a paytable from `to_dict` output; InvalidPaytable names any problem."""
        if not isinstance(data, Mapping):
            raise InvalidPaytable(f"a paytable must be an object, not {type(data).__name__}")
        _no_unknown_keys(
            data,
            {
                "name",
                "commission_mode",
                "commission_rate",
                "commission_rounding",
                "bet_increments",
                "ties_push",
                "bets",
            },
            "the paytable",
        )
        for required in ("name", "bets", "commission_mode", "commission_rate", "commission_rounding"):
            if required not in data:
                raise InvalidPaytable(f"the paytable needs a {required!r} field")
        bets_data = data["bets"]
        if not isinstance(bets_data, Mapping):
            raise InvalidPaytable("'bets' must map bet names to their rules")
        bets = {}
        for bet, definition in bets_data.items():
            if not isinstance(definition, Mapping) or not isinstance(definition.get("rules"), list):
                raise InvalidPaytable(f"bet {bet!r} must be an object with a list of 'rules'")
            _no_unknown_keys(definition, {"rules"}, f"bet {bet!r}")
            rules = []
            for index, rule in enumerate(definition["rules"], start=1):
                try:
                    rules.append(BetRule.from_dict(rule))
                except InvalidPaytable as error:
                    raise InvalidPaytable(f"bet {bet!r}, rule {index}: {error}") from None
            bets[bet] = BetDefinition(bet, tuple(rules))
        rounding = data["commission_rounding"]
        if not isinstance(rounding, Mapping) or "increment" not in rounding:
            raise InvalidPaytable("'commission_rounding' must be an object with an 'increment' and a 'mode'")
        _no_unknown_keys(rounding, {"increment", "mode"}, "commission rounding")
        increments = data.get("bet_increments", {})
        if not isinstance(increments, Mapping):
            raise InvalidPaytable("'bet_increments' must map bet names to amounts")
        return cls(
            name=data["name"],
            bets=bets,
            commission_mode=data["commission_mode"],
            commission_rate=data["commission_rate"],
            commission_rounding=Rounding(rounding["increment"], rounding.get("mode", RoundingMode.HALF_UP)),
            bet_increments=dict(increments),
            ties_push=data.get("ties_push", True),
        )


# --- Presets -------------------------------------------------------------------------------------


def win(when: Iterable[str], odds: str, *, commission: bool = False) -> BetRule:
    return BetRule(frozenset(when), BetResult.WIN, Ratio.parse(odds), commission)


def push(when: Iterable[str]) -> BetRule:
    return BetRule(frozenset(when), BetResult.PUSH)


def bets(**definitions: Iterable[BetRule]) -> dict[str, BetDefinition]:
    return {bet: BetDefinition(bet, tuple(rules)) for bet, rules in definitions.items()}


_CENT_HALF_UP = Rounding(Decimal("0.01"), RoundingMode.HALF_UP)
_PAIRS = {"player_pair": [win({"player_pair"}, "11:1")], "banker_pair": [win({"banker_pair"}, "11:1")]}


def _commission_game(name: str, mode: CommissionMode, **overrides: Any) -> Paytable:
    definitions = {
        "player": [win({"player_wins"}, "1:1")],
        "banker": [win({"banker_wins"}, "1:1", commission=True)],
        "tie": [win({"tie"}, "8:1")],
        **_PAIRS,
    }
    definitions.update(overrides.pop("definitions", {}))
    return Paytable(
        name=name,
        bets=bets(**definitions),
        commission_mode=mode,
        commission_rate=Decimal("0.05"),
        commission_rounding=overrides.pop("rounding", _CENT_HALF_UP),
        **overrides,
    )


PRESETS: dict[str, Paytable] = {
    # Even money on Banker, 5% of the win owed into the commission box (seeds 001, 002, 004).
    "commission_box": _commission_game("commission_box", CommissionMode.BOX),
    # The payout is net of 5%; commission rounds up to the cent so the house never overpays.
    "commission_deducted": _commission_game(
        "commission_deducted", CommissionMode.DEDUCTED, rounding=Rounding(Decimal("0.01"), RoundingMode.UP)
    ),
    # Banker paid 19 to 20 (seed 000); fractional payouts round down to the cent.
    "commission_19_20": Paytable(
        name="commission_19_20",
        bets=bets(
            player=[win({"player_wins"}, "1:1")],
            banker=[win({"banker_wins"}, "19:20")],
            tie=[win({"tie"}, "8:1")],
            **_PAIRS,
        ),
        commission_mode=CommissionMode.NONE,
        commission_rate=Decimal("0"),
    ),
    # Mini-baccarat (seed 002): Banker in $5 increments, so commission is a whole number of quarters.
    "mini_commission_box": _commission_game(
        "mini_commission_box",
        CommissionMode.BOX,
        rounding=Rounding(Decimal("0.25"), RoundingMode.UP),
        bet_increments={"banker": Decimal("5")},
    ),
    # Non-commission (seed 000): Banker winning with 6 pays 1 to 2.
    "no_commission": Paytable(
        name="no_commission",
        bets=bets(
            player=[win({"player_wins"}, "1:1")],
            banker=[win({"banker_wins_with_6"}, "1:2"), win({"banker_wins"}, "1:1")],
            tie=[win({"tie"}, "8:1")],
            **_PAIRS,
        ),
        commission_mode=CommissionMode.NONE,
        commission_rate=Decimal("0"),
    ),
    "tie_9_to_1": _commission_game("tie_9_to_1", CommissionMode.BOX, definitions={"tie": [win({"tie"}, "9:1")]}),
    # EZ Baccarat: no commission; a Banker win on a three-card 7 pushes; Dragon 7 and Panda 8.
    "ez_baccarat": Paytable(
        name="ez_baccarat",
        bets=bets(
            player=[win({"player_wins"}, "1:1")],
            banker=[push({"banker_wins_three_card_7"}), win({"banker_wins"}, "1:1")],
            tie=[win({"tie"}, "8:1")],
            dragon_7=[win({"banker_wins_three_card_7"}, "40:1")],
            panda_8=[win({"player_wins_three_card_8"}, "25:1")],
        ),
        commission_mode=CommissionMode.NONE,
        commission_rate=Decimal("0"),
    ),
}


# --- Side-bet presets ----------------------------------------------------------------------------
#
# The side bets of the field, each over the engine's facts, on a commission game (its side bets
# are priced independently of the main bets). Pay tables as published; docs/side-bets.md gives each
# bet's facts, pay table, published house edge and the engine's.


def _side_bet_game(name: str, **side_bets: list[BetRule]) -> Paytable:
    return _commission_game(name, CommissionMode.BOX, definitions=side_bets)


def _dragon_bonus(side: str) -> list[BetRule]:
    # A natural win pays 1:1 and a natural tie pushes, ahead of the margins; a win by 1-3 loses.
    margins = {9: "30:1", 8: "10:1", 7: "6:1", 6: "4:1", 5: "2:1", 4: "1:1"}
    return [
        win({f"{side}_wins_natural"}, "1:1"),
        push({"natural_tie"}),
        *(win({f"{side}_wins_by_{margin}"}, odds) for margin, odds in margins.items()),
    ]


def _lucky_6(two_cards: str, three_cards: str) -> list[BetRule]:
    return [win({"banker_wins_two_card_6"}, two_cards), win({"banker_wins_three_card_6"}, three_cards)]


def _super_tie(mixed: str) -> list[BetRule]:
    # A tie of 6-9 with three cards each: 100:1 all six cards one colour, `mixed` otherwise; any
    # other tie 7:1 (21st Century Baccarat; Wizard of Odds' pay tables 1 and 2).
    six_card = {"tie", "player_drew", "banker_drew"}
    return [
        *(win(six_card | {f"tie_on_{total}", "one_colour"}, "100:1") for total in (6, 7, 8, 9)),
        *(win(six_card | {f"tie_on_{total}"}, mixed) for total in (6, 7, 8, 9)),
        win({"tie"}, "7:1"),
    ]


_PLAYER_7 = {"player_wins", "player_total_7"}
_LUCKY_7 = [win(_PLAYER_7 | {"player_two_cards"}, "6:1"), win(_PLAYER_7 | {"player_drew"}, "15:1")]
# Player wins with 7 over Banker's 6: both three cards 100:1, Player three and Banker two 40:1,
# both two 30:1 (the three tracks Macau approved; Player two over a three-card 6 is not one).
_SUPER_LUCKY_7 = [
    win(_PLAYER_7 | {"banker_total_6", "player_drew", "banker_drew"}, "100:1"),
    win(_PLAYER_7 | {"banker_total_6", "player_drew", "banker_two_cards"}, "40:1"),
    win(_PLAYER_7 | {"banker_total_6", "player_two_cards", "banker_two_cards"}, "30:1"),
]
_EGALITE_PAYS = {
    0: "150:1",
    1: "215:1",
    2: "225:1",
    3: "200:1",
    4: "120:1",
    5: "110:1",
    6: "45:1",
    7: "45:1",
    8: "80:1",
    9: "80:1",
}
_TIGER_FAMILY = {
    "tiger": _lucky_6("12:1", "20:1"),
    "small_tiger": [win({"banker_wins_two_card_6"}, "22:1")],
    "big_tiger": [win({"banker_wins_three_card_6"}, "50:1")],
    "tiger_tie": [win({"tie_on_6"}, "35:1")],
    "tiger_pair": [win({"twin_pairs"}, "100:1"), win({"both_pairs"}, "20:1"), win({"either_pair"}, "4:1")],
}
_PERFECT_PAIR = [win({"either_suited_pair"}, "25:1")]
_PERFECT_PAIR_BOTH = [win({"both_suited_pairs"}, "200:1"), win({"either_suited_pair"}, "25:1")]
_DRAGON_BONUS = {"dragon_bonus_player": _dragon_bonus("player"), "dragon_bonus_banker": _dragon_bonus("banker")}
_BIG_SMALL = {"big": [win({"big"}, "54:100")], "small": [win({"small"}, "3:2")]}

SIDE_BET_PRESETS: dict[str, Paytable] = {
    "perfect_pair": _side_bet_game("perfect_pair", perfect_pair=_PERFECT_PAIR),
    "perfect_pair_both": _side_bet_game("perfect_pair_both", perfect_pair=_PERFECT_PAIR_BOTH),
    "dragon_bonus": _side_bet_game("dragon_bonus", **_DRAGON_BONUS),
    "big_small": _side_bet_game("big_small", **_BIG_SMALL),
    "tiger": _side_bet_game("tiger", **_TIGER_FAMILY),
    "lucky_6": _side_bet_game("lucky_6", lucky_6=_lucky_6("12:1", "23:1")),
    "lucky_6_12_20": _side_bet_game("lucky_6_12_20", lucky_6=_lucky_6("12:1", "20:1")),
    "lucky_7": _side_bet_game("lucky_7", lucky_7=_LUCKY_7, super_lucky_7=_SUPER_LUCKY_7),
    "natural_8_9": _side_bet_game(
        "natural_8_9",
        **{
            f"{side}_natural_{n}": [win({f"{side}_natural_{n}"}, "9:1")]
            for side in ("player", "banker")
            for n in (8, 9)
        },
    ),
    "super_tie": _side_bet_game("super_tie", super_tie=_super_tie("25:1")),
    "super_tie_20": _side_bet_game("super_tie_20", super_tie=_super_tie("20:1")),
    "egalite": _side_bet_game(
        "egalite", **{f"egalite_{total}": [win({f"tie_on_{total}"}, odds)] for total, odds in _EGALITE_PAYS.items()}
    ),
    # A live-dealer table with the field's side bets side by side: the richest preset.
    "live_side_bets": _side_bet_game(
        "live_side_bets",
        perfect_pair=_PERFECT_PAIR,
        **_DRAGON_BONUS,
        **_BIG_SMALL,
        **_TIGER_FAMILY,
        lucky_7=_LUCKY_7,
        super_lucky_7=_SUPER_LUCKY_7,
        super_tie=_super_tie("25:1"),
    ),
}
PRESETS.update(SIDE_BET_PRESETS)
BET_TYPES.update(
    {
        "perfect_pair": "Perfect Pair",
        "dragon_bonus_player": "Dragon Bonus Player",
        "dragon_bonus_banker": "Dragon Bonus Banker",
        "big": "Big",
        "small": "Small",
        "tiger": "Tiger",
        "small_tiger": "Small Tiger",
        "big_tiger": "Big Tiger",
        "tiger_tie": "Tiger Tie",
        "tiger_pair": "Tiger Pair",
        "lucky_6": "Lucky 6",
        "lucky_7": "Lucky 7",
        "super_lucky_7": "Super Lucky 7",
        "player_natural_8": "Player Natural 8",
        "player_natural_9": "Player Natural 9",
        "banker_natural_8": "Banker Natural 8",
        "banker_natural_9": "Banker Natural 9",
        "super_tie": "Super Tie",
        **{f"egalite_{total}": f"Egalité {total}" for total in range(10)},
    }
)
