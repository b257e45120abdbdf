"""Reads of table accounting: the figures of each table and period, and the statutory win.

Statutory win = drop + closer + credits - opener - fills, per table and period (a gaming day, or
a shift when shifts are shorter than 24 h); a day's win is the sum of its shifts'. Fills and
credits count what the table signed for (the `received` step of each slip). Win-to-drop (hold %)
is win / drop.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Sum

from pit.core.money import to_minor
from pit.rollups.results import TableDays, table_result_rows

from . import persistence
from .models import (
    Adjustment,
    CountKind,
    DayAction,
    DropCount,
    Figure,
    GamingDayEvent,
    InventoryCount,
    Slip,
    SlipBook,
    SlipKind,
    SlipStep,
    SlipStepKind,
    SlipVoid,
)

# How each figure enters the statutory win (an adjustment of it moves the win the same way).
WIN_SIGN = {Figure.DROP: 1, Figure.CLOSER: 1, Figure.CREDITS: 1, Figure.OPENER: -1, Figure.FILLS: -1}


def statutory_win_minor(*, drop: int, closer: int, credits: int, opener: int, fills: int) -> int:
    """The statutory win of a table for a period, in minor units."""
    return drop + closer + credits - opener - fills


def win_to_drop(win: int | Decimal | None, drop: int | Decimal | None) -> Decimal | None:
    """Hold % on drop as a ratio (0.1523 is 15.23 %); None without a drop."""
    if win is None or not drop:
        return None
    return Decimal(win) / Decimal(drop)


@dataclass
class PeriodFigures:
    """What is recorded for one table and period (minor units; None: not recorded yet)."""

    gaming_day: dt.date
    table_id: int
    shift: int
    currency: str = ""
    opener: int | None = None
    closer: int | None = None
    fills: int = 0
    credits: int = 0
    drop: int | None = None
    adjustments: int = 0  # the net effect of adjustments on the win (already in the figures)
    shifts: set[int] = field(default_factory=set)  # the shifts with any record
    counted: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # figure -> its shifts

    @property
    def complete(self) -> bool:
        """Opener, closer and drop recorded for every shift that has any record."""
        return all(self.counted[name] == self.shifts for name in ("opener", "closer", "drop"))

    @property
    def win(self) -> int | None:
        """None until the opener, the closer and the drop are all recorded."""
        if not self.complete or self.drop is None or self.closer is None or self.opener is None:
            return None
        return statutory_win_minor(
            drop=self.drop, closer=self.closer, credits=self.credits, opener=self.opener, fills=self.fills
        )


def _add(current: int | None, amount: int) -> int:
    return amount if current is None else current + amount


def period_figures(
    *, date_from: dt.date, date_to: dt.date, table_ids=None, by_shift: bool = False
) -> dict[tuple[dt.date, int, int], PeriodFigures]:
    """Figures per (gaming day, table id, shift), or per (gaming day, table id, 0) for whole days
    (the shifts added up), in five queries. Adjustments of closed days are in the figures."""
    scope: dict[str, Any] = {"gaming_day__range": (date_from, date_to)}
    if table_ids is not None:
        scope["table_id__in"] = list(table_ids)
    figures: dict[tuple[dt.date, int, int], PeriodFigures] = {}

    def at(day, table_id, shift, currency) -> PeriodFigures:
        key = (day, table_id, shift if by_shift else 0)
        item = figures.get(key)
        if item is None:
            item = figures[key] = PeriodFigures(gaming_day=day, table_id=table_id, shift=key[2], currency=currency)
        item.shifts.add(shift)
        return item

    for day, table_id, shift, kind, currency, total in InventoryCount.objects.filter(**scope).values_list(
        "gaming_day", "table_id", "shift", "kind", "currency", "total_minor"
    ):
        item = at(day, table_id, shift, currency)
        if kind == CountKind.OPENER:
            item.opener = _add(item.opener, total)
        else:
            item.closer = _add(item.closer, total)
        item.counted[kind].add(shift)
    slip_scope = {f"slip__{name}": value for name, value in scope.items()}
    received = (
        SlipStep.objects.filter(step=SlipStepKind.RECEIVED, **slip_scope)
        .values_list("slip__gaming_day", "slip__table_id", "slip__shift", "slip__kind", "slip__currency")
        .annotate(total=Sum("total_minor"))
        .order_by()
    )
    for day, table_id, shift, kind, currency, total in received:
        item = at(day, table_id, shift, currency)
        if kind == SlipKind.FILL:
            item.fills += total
        else:
            item.credits += total
    for day, table_id, shift, currency, total in DropCount.objects.filter(**scope).values_list(
        "gaming_day", "table_id", "shift", "currency", "total_minor"
    ):
        item = at(day, table_id, shift, currency)
        item.drop = _add(item.drop, total)
        item.counted["drop"].add(shift)
    # Adjustments of closed days change the figures they name; the counts themselves stay.
    for day, table_id, shift, figure, currency, amount in Adjustment.objects.filter(**scope).values_list(
        "gaming_day", "table_id", "shift", "figure", "currency", "amount_minor"
    ):
        item = at(day, table_id, shift, currency)
        setattr(item, figure, _add(getattr(item, figure), amount))
        item.adjustments += WIN_SIGN[figure] * amount
    return figures


def win_difference_minor(*, table, gaming_day: dt.date) -> tuple[int, int, int] | None:
    """(statutory win, wager-based house win, drop) of a table-day in minor units; None until the day's
    opener, closer and drop are recorded. The house win is pit's own (the table results report)."""
    item = period_figures(date_from=gaming_day, date_to=gaming_day, table_ids=[table.pk]).get((gaming_day, table.pk, 0))
    if item is None or item.win is None or item.drop is None:
        return None
    days = TableDays(date_from=gaming_day, date_to=gaming_day, tables=(table.code,))
    house_win = sum((row["house_win"] for row in table_result_rows(days)), Decimal(0))
    return item.win, to_minor(house_win, table.currency), item.drop


def day_is_closed(gaming_day: dt.date) -> bool:
    """A day is locked while its latest close/re-open event is a close."""
    latest = GamingDayEvent.objects.filter(gaming_day=gaming_day).order_by("-id").values_list("action", flat=True)
    return latest.first() == DayAction.CLOSED


def device_holds(*, device_id: int, scope: str) -> bool:
    """Whether the device is granted `scope` (pit.accounting.models.DeviceGrant)."""
    return persistence.device_holds(device_id, scope)


def days_closed(days: list[dt.date]) -> list[dt.date]:
    """Those of `days` that are locked (their latest close/re-open event a close), in order; one query."""
    return closed_among(persistence.day_actions(days))


def closed_among(actions: list[tuple[dt.date, str]]) -> list[dt.date]:
    """The days whose latest of `actions` (gaming day, action; oldest first) is a close, in order."""
    latest: dict[dt.date, str] = {}
    for day, action in actions:
        latest[day] = action
    return sorted(day for day, action in latest.items() if action == DayAction.CLOSED)


def daily_holds(*, table_id: int, date_from: dt.date, date_to: dt.date) -> list[tuple[dt.date, int, int]]:
    """(gaming day, win, drop) of a table's complete days with a drop, in order."""
    figures = period_figures(date_from=date_from, date_to=date_to, table_ids=[table_id])
    return sorted(
        (item.gaming_day, item.win, item.drop) for item in figures.values() if item.win is not None and item.drop
    )


# ---------------------------------------------------------------------------------------- the slip series
@dataclass(frozen=True)
class SeriesGap:
    number: int
    next_number: int  # the first number after it that was used or voided
    table_id: int  # the table of the first slip after it (a finding names a table)
    gaming_day: dt.date


@dataclass
class BookState:
    """Every number of one slip book accounted for: used by a slip, voided, or unused (above the
    highest number used or voided); a number below that neither used nor voided is a gap."""

    book: Any
    used: dict[int, Any] = field(default_factory=dict)  # number -> its slip
    voided: dict[int, Any] = field(default_factory=dict)  # number -> its SlipVoid
    gaps: list[SeriesGap] = field(default_factory=list)
    unused: list[tuple[int, int]] = field(default_factory=list)  # runs (first, last)

    @property
    def label(self) -> str:
        return f"{self.book.first}-{self.book.last}"


def _runs(numbers: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs


def slip_series() -> list[BookState]:
    """Each slip book with its numbers accounted for (pit.accounting.services.slip_series_check)."""
    states = []
    slips = {
        int(slip.number): slip
        for slip in Slip.objects.filter(number__regex=r"^[0-9]+$").only("number", "kind", "table_id", "gaming_day")
    }
    voids = {void.number: void for void in SlipVoid.objects.select_related("witness", "recorded_by_user")}
    for book in SlipBook.objects.order_by("first"):
        state = BookState(book)
        numbers = range(book.first, book.last + 1)
        state.used = {number: slips[number] for number in numbers if number in slips}
        state.voided = {number: voids[number] for number in numbers if number in voids}
        accounted = sorted(state.used.keys() | state.voided.keys())
        highest = accounted[-1] if accounted else book.first - 1
        missing = [
            number for number in range(book.first, highest) if number not in state.used and number not in state.voided
        ]
        for number in missing:
            following = next(later for later in accounted if later > number)
            after = next((later for later in accounted if later > number and later in state.used), None)
            slip = state.used[after] if after is not None else None
            if slip is None:  # only voids after the gap: the first slip before it names the table
                before = [earlier for earlier in accounted if earlier < number and earlier in state.used]
                slip = state.used[before[-1]] if before else None
            if slip is None:
                continue  # a book with voids only: no slip names a table (the report still shows the gap)
            state.gaps.append(SeriesGap(number, following, slip.table_id, slip.gaming_day))
        state.unused = _runs(list(range(highest + 1, book.last + 1)))
        states.append(state)
    return states
