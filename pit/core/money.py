"""Money in one place: integer minor units in the database, Decimal in arithmetic, strings in JSON.

Conversions are exact; a value with more decimals than its currency has is an error, never rounded
silently (rounding rules belong to the paytable, in the game engine).
"""

from decimal import Decimal, InvalidOperation
from typing import overload

# ISO 4217 minor-unit exponents that differ from the usual two.
_EXPONENTS = {"JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "BHD": 3, "KWD": 3, "JOD": 3, "OMR": 3, "TND": 3}
_SYMBOLS = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "AUD": "A$",
    "NZD": "NZ$",
    "CAD": "C$",
    "SGD": "S$",
    "HKD": "HK$",
    "MOP": "MOP$",
    "JPY": "¥",
}


class MoneyError(ValueError):
    """A money value that cannot be represented exactly in its currency."""


def exponent(currency: str) -> int:
    return _EXPONENTS.get(currency, 2)


def minor_unit(currency: str) -> Decimal:
    """The currency's smallest amount (ISO 4217): Decimal("0.01") in USD, Decimal("1") in JPY."""
    return Decimal(1).scaleb(-exponent(currency))


def settlement_unit(currency: str) -> Decimal:
    """The smallest amount a table in `currency` pays or charges (`pit.game.settle`'s `unit`): the
    cent, or the currency's own minor unit where it has none (yen, won)."""
    return max(minor_unit(currency), Decimal("0.01"))


def to_minor(amount: Decimal, currency: str) -> int:
    """Decimal("125.50") in USD -> 12550. Refuses fractions finer than the currency's minor unit."""
    if not isinstance(amount, Decimal):
        raise MoneyError(f"{amount!r} is not a Decimal amount")
    if not amount.is_finite():
        raise MoneyError(f"{amount} is not a finite amount")
    scaled = amount.scaleb(exponent(currency))
    if scaled != scaled.to_integral_value():
        raise MoneyError(f"{amount} has more decimals than {currency} allows ({exponent(currency)})")
    return int(scaled)


@overload
def from_minor(minor: int, currency: str) -> Decimal: ...
@overload
def from_minor(minor: None, currency: str) -> None: ...
@overload
def from_minor(minor: int | None, currency: str) -> Decimal | None: ...
def from_minor(minor: int | None, currency: str) -> Decimal | None:
    """12550 in USD -> Decimal("125.50"), quantized to the currency's minor unit."""
    if minor is None:
        return None
    places = exponent(currency)
    return Decimal(minor).scaleb(-places).quantize(Decimal(1).scaleb(-places))


def parse_amount(text: str, currency: str) -> Decimal:
    """A decimal string from the outside world, checked to fit the currency exactly."""
    try:
        amount = Decimal(text)
    except (InvalidOperation, TypeError) as exc:
        raise MoneyError(f"{text!r} is not a decimal amount") from exc
    to_minor(amount, currency)
    return amount


def format_money(minor: int | None, currency: str) -> str:
    """12550, USD -> "$125.50"; -500, USD -> "-$5.00". For people, never for machines."""
    if minor is None:
        return "—"
    amount = from_minor(minor, currency)
    sign = "-" if amount < 0 else ""
    symbol = _SYMBOLS.get(currency)
    number = f"{abs(amount):,.{exponent(currency)}f}"
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{number} {currency}"


# The sign of a box variance, said once for every screen, export and message: variance = counted -
# expected, so a box that holds more than the ledger says is over (positive) and one that holds less
# is short (negative).
VARIANCE_RULE = "variance = counted - expected: over is positive, short is negative"


def variance_label(variance: int | Decimal | None) -> str:
    """ "over", "short" or "balanced" for a variance (counted - expected); "" for None."""
    if variance is None:
        return ""
    return "over" if variance > 0 else "short" if variance < 0 else "balanced"
