"""Print the exact odds of a paytable for a shoe: outcome probabilities, house edge and variance per bet."""

import json
import re
from fractions import Fraction
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, at_least, integer, text
from pit.game import (
    PRESETS,
    InvalidCard,
    Odds,
    Paytable,
    card_composition_after,
    composition_after,
    exact_odds,
    fraction_to_decimal,
    needs_cards,
)

MAIN_OUTCOMES = ("player_wins", "banker_wins", "tie")


class Command(PitCommand):
    help = (
        "Exact (enumerated, not simulated) probabilities, house edge and variance of every bet of a "
        "paytable, for a full shoe or one depleted by the cards seen."
    )
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--decks", type=integer, default=8, help="Decks in the shoe (default 8).")
        source = parser.add_mutually_exclusive_group()
        source.add_argument(
            "--preset", type=text, choices=sorted(PRESETS), default="commission_box", help="A preset paytable."
        )
        source.add_argument(
            "--paytable", type=text, metavar="FILE", help="A paytable as JSON (Paytable.to_dict format)."
        )
        parser.add_argument(
            "--seen", type=text, default="", help="Cards already out of the shoe, e.g. 'AS KD 5C' (depleted-shoe odds)."
        )
        parser.add_argument("--json", dest="as_json", action="store_true", help="Print JSON, decimals as strings.")
        parser.add_argument("--places", type=at_least(0), default=None, help="Decimal places (table 6, JSON 12).")

    def handle(
        self,
        *args: Any,
        decks: int,
        preset: str,
        paytable: str | None,
        seen: str,
        as_json: bool,
        places: int | None,
        **options: Any,
    ) -> None:
        table = self._paytable(preset, paytable)
        try:
            # A suit or colour bet needs the suits seen (by card), any other bet their ranks.
            after = card_composition_after if needs_cards(table) else composition_after
            composition = after(decks, [code for code in re.split(r"[\s,]+", seen) if code])
            odds = exact_odds(table, composition)
        except (InvalidCard, ValueError) as error:
            raise CommandError(str(error)) from None
        if as_json:
            self.stdout.write(json.dumps(odds.to_dict(places if places is not None else 12), indent=2))
        else:
            self._print_table(table, odds, decks, places if places is not None else 6)

    def _paytable(self, preset: str, path: str | None) -> Paytable:
        if not path:
            return PRESETS[preset]
        try:
            with open(path, encoding="utf-8") as stream:
                return Paytable.from_dict(json.load(stream))
        except OSError as error:
            raise CommandError(
                gettext("cannot read {path}: {value}").format(path=path, value=error.strerror or error)
            ) from None
        except ValueError as error:  # bad JSON, or InvalidPaytable naming the problem
            raise CommandError(f"{path}: {error}") from None

    def _print_table(self, table: Paytable, odds: Odds, decks: int, places: int) -> None:
        def number(value: Fraction) -> str:
            return str(fraction_to_decimal(value, places))

        def percent(value: Fraction) -> str:
            return f"{fraction_to_decimal(value * 100, max(places - 2, 2))}%"

        write = self.stdout.write
        write(f"Paytable {table.name}: {decks}-deck shoe, {odds.composition.total} cards left")
        write("")
        shown = [*MAIN_OUTCOMES, *sorted(table.facts_used() - set(MAIN_OUTCOMES))]
        width = max(len(fact) for fact in shown)
        write(f"{'Outcome':<{width}}  Probability")
        for fact in shown:
            write(f"{fact:<{width}}  {number(odds.outcome_probabilities[fact])}")
        write("")
        bet_width = max(len("Bet"), *(len(bet) for bet in odds.bets))
        columns = f"{'House edge':>12}  {'Variance':>12}  {'Win':>10}  {'Push':>10}  {'Lose':>10}"
        write(f"{'Bet':<{bet_width}}  {columns}")
        for bet, bet_odds in odds.bets.items():
            flag = "  FAVOURS THE PLAYER" if bet_odds.house_edge < 0 else ""
            write(
                f"{bet:<{bet_width}}  {percent(bet_odds.house_edge):>12}  {number(bet_odds.variance):>12}  "
                f"{number(bet_odds.probability('win')):>10}  {number(bet_odds.probability('push')):>10}  "
                f"{number(bet_odds.probability('lose')):>10}{flag}"
            )
        write("")
        for bet in odds.bets:
            write(f"{bet}: {table.describe(bet)}")
