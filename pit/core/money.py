"""Money in one place: integer minor units in the database, Decimal in arithmetic, strings in JSON.

Conversions are exact; a value with more decimals than its currency has is an error, never rounded
silently (rounding rules belong to the paytable, in the game engine).
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import overload

from django.utils import translation
from django.utils.translation import pgettext


@dataclass(frozen=True)
class Currency:
    """A currency of the pits: its ISO 4217 code and minor unit (the exponent: 2 for cents, 0 for
    none), and its sign for people, in English and in Chinese (a reader in Macau or Manila writes
    US$ for the dollar that an American writes $)."""

    code: str
    exponent: int
    symbol: str
    symbol_zh: str


# The currencies the pits deal in. Macau's tables play in Hong Kong dollars and report in patacas.
CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("HKD", 2, "HK$", "HK$"),
        Currency("MOP", 2, "MOP$", "MOP$"),
        Currency("USD", 2, "$", "US$"),
        Currency("SGD", 2, "S$", "S$"),
        Currency("PHP", 2, "₱", "₱"),
        Currency("KRW", 0, "₩", "₩"),
        Currency("AUD", 2, "A$", "A$"),
        Currency("NZD", 2, "NZ$", "NZ$"),
        Currency("CAD", 2, "C$", "C$"),
        Currency("EUR", 2, "€", "€"),
        Currency("GBP", 2, "£", "£"),
        Currency("JPY", 0, "¥", "JP¥"),
        Currency("CNY", 2, "CN¥", "¥"),
        Currency("KHR", 2, "KHR ", "KHR "),
        Currency("VND", 0, "₫", "₫"),
        Currency("MYR", 2, "RM", "RM"),
        Currency("THB", 2, "฿", "฿"),
    )
}
# ISO 4217 minor-unit exponents of other currencies that differ from the usual two.
_EXPONENTS = {"CLP": 0, "ISK": 0, "BHD": 3, "KWD": 3, "JOD": 3, "OMR": 3, "TND": 3} | {
    c.code: c.exponent for c in CURRENCIES.values()
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


def currency_symbol(currency: str, language: str | None = None) -> str:
    """The sign people read before an amount in `language` (the active language by default); ""
    for a currency outside the table, which is then written with its code after the number."""
    known = CURRENCIES.get(currency)
    if known is None:
        return ""
    language = language if language is not None else (translation.get_language() or "en")
    return known.symbol_zh if language.lower().startswith("zh") else known.symbol


def money_display(amount: Decimal | None, currency: str, *, language: str | None = None) -> str:
    """An amount for people, in the active language (or `language`): the currency's sign, thousands
    separated, as many decimals as the currency has. Decimal("-12345.5"), "HKD" -> "-HK$12,345.50";
    in Chinese USD is "US$". For screens, PDFs and people's sheets, never for machine columns (CSV
    and JSON keep their decimal strings). None -> "—"."""
    if amount is None:
        return "—"
    if not isinstance(amount, Decimal):
        raise MoneyError(f"{amount!r} is not a Decimal amount")
    places = exponent(currency)
    amount = amount.quantize(Decimal(1).scaleb(-places))
    sign = "-" if amount < 0 else ""
    # Both of pit's other languages group by thousands with "," and write "." before the decimals,
    # as English does (Macau, Hong Kong, Taiwan and the mainland alike).
    number = f"{abs(amount):,.{places}f}"
    symbol = currency_symbol(currency, language)
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{number} {currency}"


def format_money(minor: int | None, currency: str) -> str:
    """12550, USD -> "$125.50"; -500, USD -> "-$5.00" (in the active language: money_display).
    For people, never for machines."""
    if minor is None:
        return "—"
    return money_display(from_minor(minor, currency), currency)


# The sign of a box variance, said once for every screen, export and message: variance = counted -
# expected, so a box that holds more than the ledger says is over (positive) and one that holds less
# is short (negative).
VARIANCE_RULE = "variance = counted - expected: over is positive, short is negative"


def variance_label(variance: int | Decimal | None) -> str:
    """ "over", "short" or "balanced" for a variance (counted - expected); "" for None."""
    if variance is None:
        return ""
    return "over" if variance > 0 else "short" if variance < 0 else "balanced"


def variance_display(variance: int | Decimal | None) -> str:
    """variance_label in the reader's language, for screens and people's sheets (the label itself
    stays the machine value of exports): "over" / "short" / "balanced"; "" for None."""
    label = variance_label(variance)
    words = {
        "over": pgettext("box variance", "over"),
        "short": pgettext("box variance", "short"),
        "balanced": pgettext("box variance", "balanced"),
    }
    return words.get(label, "")
