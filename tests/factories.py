"""Builders for tests: a pit made through the services, as the product makes it."""

from decimal import Decimal

from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_create_from_preset
from pit.shoes.services import CoupInput, WagerInput, coup_record, shoe_start
from pit.tables.services import table_create, table_open


def paytable(preset: str = "commission_box") -> PaytableConfiguration:
    existing = PaytableConfiguration.objects.filter(preset=preset, superseded_by__isnull=True).first()
    return existing or paytable_create_from_preset(preset=preset)


def table(code: str = "BB1", game: str = "big", preset: str = "commission_box", open_: bool = True, **kwargs):
    limits = kwargs.pop("limits", {"player": ("25", "10000"), "banker": ("25", "10000"), "tie": ("5", "1000")})
    made = table_create(
        code=code,
        name=kwargs.pop("name", f"Table {code}"),
        game=game,
        paytable=paytable(preset),
        limits={bet: (Decimal(low), Decimal(high)) for bet, (low, high) in limits.items()},
        **kwargs,
    )
    return table_open(table=made) if open_ else made


def shoe(table_=None, **kwargs):
    return shoe_start(table=table_ or table(), cut_card_position=kwargs.pop("cut_card_position", 380), **kwargs)


def wager(seat: int, bet: str, amount: str, paid: str | None = None) -> WagerInput:
    return WagerInput(seat=seat, bet=bet, amount=Decimal(amount), paid=None if paid is None else Decimal(paid))


def coup(shoe_, number: int, player: list[str], banker: list[str], wagers=(), **kwargs):
    return coup_record(
        shoe=shoe_, coup=CoupInput(number=number, player=player, banker=banker, wagers=tuple(wagers), **kwargs)
    ).coup
