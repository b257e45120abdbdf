"""A coup's input checked against its table and settled by the game engine, before anything is written."""

from dataclasses import dataclass
from typing import cast

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from pit import game
from pit.core.money import MoneyError, settlement_unit, to_minor
from pit.shoes.services.values import CoupInput, SettledWager
from pit.tables.models import Table


def posted_cards(codes, field_name: str) -> tuple[game.Card, ...]:
    """The cards posted as `field_name` (a list of card codes); ValidationError naming the field."""
    if not isinstance(codes, list | tuple):
        raise ValidationError({field_name: gettext('Give the cards as a list of card codes, e.g. ["5H", "KD"].')})
    try:
        return game.parse_cards(codes)
    except game.InvalidCard as exc:
        raise ValidationError({field_name: str(exc)}) from exc


@dataclass
class PreparedCoup:
    item: CoupInput
    player: tuple[game.Card, ...]
    banker: tuple[game.Card, ...]
    evaluation: game.Evaluation
    wagers: list[SettledWager]


# The engine's settlements of a batch, by evaluation then (bet, stake in minor units): (result, payout, commission).
Settled = dict[game.Evaluation, dict[tuple[str, int], tuple[str, int, int]]]


def coup_prepare(
    item: CoupInput, table: Table, paytable: game.Paytable, settled: Settled | None = None
) -> PreparedCoup:
    """Check a coup's input against the table and settle it with the engine; ValidationError if malformed.

    `settled` memoizes the engine's settlements over a batch (a settlement depends on nothing but the
    paytable, the bet, the stake and the evaluation, and a day repeats the same few thousand)."""
    errors: dict[str, str] = {}
    if not isinstance(item.number, int) or isinstance(item.number, bool) or item.number < 1:
        errors["number"] = gettext("A coup number is a whole number from 1 up.")
    hands: dict[str, tuple[game.Card, ...]] = {}
    for name, codes in (("player", item.player), ("banker", item.banker)):
        try:
            hands[name] = posted_cards(codes, name)
        except ValidationError as exc:
            errors.update({k: v[0] for k, v in exc.message_dict.items()})
            continue
        if not 2 <= len(hands[name]) <= 3:
            errors[name] = gettext("A hand holds two or three cards; {count} were given.").format(
                count=len(hands[name])
            )
    if item.reported_winner not in ("", *game.Winner):
        errors["reported_winner"] = gettext("{item_reported_winner!r} is not a winner (player, banker or tie).").format(
            item_reported_winner=item.reported_winner
        )
    wager_keys: set[tuple[int, str]] = set()
    minors: list[tuple[int, int | None]] = []
    for index, wager in enumerate(item.wagers):
        where = f"wagers[{index}]"
        if wager.seat not in table.seats:
            seats = ", ".join(str(seat) for seat in table.seats)
            errors[f"{where}.seat"] = gettext(
                "{wager_seat} is not a seat at table {table_code} (seats {seats})."
            ).format(wager_seat=wager.seat, table_code=table.code, seats=seats)
        if wager.bet not in paytable.bets:
            errors[f"{where}.bet"] = gettext("{wager_bet!r} is not a bet at table {table_code} ({names}).").format(
                wager_bet=wager.bet, table_code=table.code, names=", ".join(sorted(paytable.bets))
            )
        if (wager.seat, wager.bet) in wager_keys:
            errors[f"{where}.bet"] = gettext(
                "Seat {wager_seat} has two {wager_bet} wagers in this coup; send one."
            ).format(wager_seat=wager.seat, wager_bet=wager.bet)
        wager_keys.add((wager.seat, wager.bet))
        minor: dict[str, int | None] = {"amount": 0, "paid": None}
        for money_field in ("amount", "paid"):
            value = getattr(wager, money_field)
            if value is None:
                continue
            try:
                minor[money_field] = converted = to_minor(value, table.currency)
            except MoneyError as exc:
                errors[f"{where}.{money_field}"] = str(exc)
                continue
            if money_field == "amount" and converted <= 0:
                errors[f"{where}.amount"] = gettext("A wager amount must be positive.")
            if money_field == "paid" and converted < 0:
                errors[f"{where}.paid"] = gettext("A paid amount cannot be negative.")
        minors.append((cast(int, minor["amount"]), minor["paid"]))  # an amount is never None
    if errors:
        raise ValidationError(errors)

    evaluation = game.evaluate(game.Coup(player=hands["player"], banker=hands["banker"]))
    settled_here: dict[tuple[str, int], tuple[str, int, int]] = (
        {} if settled is None else settled.setdefault(evaluation, {})
    )
    wagers: list[SettledWager] = []
    for wager, (amount_minor, paid_minor) in zip(item.wagers, minors, strict=True):
        key = (wager.bet, amount_minor)
        settlement = settled_here.get(key)
        if settlement is None:
            engine = game.settle(paytable, wager.bet, wager.amount, evaluation, unit=settlement_unit(table.currency))
            settlement = settled_here[key] = (
                str(engine.result),
                to_minor(engine.payout, table.currency),
                to_minor(engine.commission, table.currency),
            )
        wagers.append(SettledWager(wager.seat, wager.bet, table.currency, amount_minor, *settlement, paid_minor))
    return PreparedCoup(item, hands["player"], hands["banker"], evaluation, wagers)
