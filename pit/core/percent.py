"""Percentages in one place: every percentage pit shows (screens, exports, messages) is rounded here.

The rule: a ratio is shown in percent, rounded half away from zero (Decimal's ROUND_HALF_UP) at the
decimals the figure states, and a zero is never shown negative. -0.39125 at two decimals is -39.13,
0.361249 is 36.12, -0.00001 is 0.00. Exact Decimal arithmetic throughout: never a float.
"""

from decimal import ROUND_HALF_UP, Decimal


def round_percent(value: Decimal | int, places: int = 2) -> Decimal:
    """A figure already in percent (39.125) at `places` decimals, half away from zero: 39.13."""
    rounded = Decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return rounded if rounded else abs(rounded)  # never -0.00


def percent(ratio: Decimal | int, places: int = 2) -> Decimal:
    """A ratio (0.1523) in percent at `places` decimals: Decimal("15.23")."""
    return round_percent(Decimal(ratio) * 100, places)


def percent_of(part: Decimal | int, whole: Decimal | int, places: int = 2) -> Decimal | None:
    """part / whole in percent at `places` decimals; None when the whole is zero."""
    if not whole:
        return None
    return percent(Decimal(part) / Decimal(whole), places)


def percent_text(ratio: Decimal | int | None, places: int = 2, sign: str = " %") -> str:
    """A ratio for people: "15.23 %" ("—" for None)."""
    if ratio is None:
        return "—"
    return f"{percent(ratio, places)}{sign}"


def rounded_ratio(ratio: Decimal | int, places: int = 2) -> Decimal:
    """The ratio whose percent is `percent(ratio, places)` exactly (a spreadsheet's % cell shows it as is)."""
    return percent(ratio, places).scaleb(-2)
