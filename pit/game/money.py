"""Money as Decimal: strict conversion (never from float) and the one display format for messages."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation, localcontext

CENT = Decimal("0.01")


def to_decimal(value: Decimal | int | str, what: str = "amount") -> Decimal:
    """A finite Decimal from a Decimal, int or decimal string; floats are refused (they are not money)."""
    if isinstance(value, (bool, float)):
        raise TypeError(f"{what} must be a Decimal, int or decimal string, not {type(value).__name__}")
    try:
        amount = value if isinstance(value, Decimal) else Decimal(value.strip() if isinstance(value, str) else value)
    except (InvalidOperation, TypeError, ValueError):
        raise ValueError(f"{what} {value!r} is not a decimal number") from None
    if not amount.is_finite():
        raise ValueError(f"{what} {value!r} is not a finite number")
    return amount


def format_amount(amount: Decimal) -> str:
    """'1,234.50': thousands separated, at least two decimals, more only when the amount has them."""
    exponent = amount.as_tuple().exponent  # an int, or a letter for infinities and NaNs
    places = max(2, -exponent) if isinstance(exponent, int) else 2
    return f"{amount:,.{places}f}"


def decimal_sqrt(value: Decimal) -> Decimal:
    """A square root to 34 significant digits (standard deviations of money figures from their variances)."""
    with localcontext() as context:
        context.prec = 34
        return value.sqrt()
