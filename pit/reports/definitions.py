"""What a report is, once: typed columns, a streaming row source, subtotal levels and totals.

Every format (CSV, XLSX, JSON, the on-screen summary) renders the same `ReportDefinition` through
`report_lines`, which turns the ordered detail rows into detail, subtotal and total lines while
holding only one running sum per open group: memory stays constant whatever the range.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum
from typing import Any, TypedDict

from django.utils import translation
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.money import variance_label
from pit.core.replica import read_from_replica

# A variance in words (over, short, balanced) worded where it is shown, like the other text values.
variance_words = lazy(variance_label, str)


def machine_text(text: Any) -> Any:
    """A marked string in the words it was written in (its msgid), whatever language is active:
    what machines read (CSV headers, JSON values). Anything else comes back as it is."""
    if isinstance(text, Promise):
        with translation.override(None):
            return str(text)
    return text


class ColumnType(StrEnum):
    TEXT = "text"
    INTEGER = "integer"
    MONEY = "money"  # Decimal in major units; the row's `currency` says which currency
    PERCENTAGE = "percentage"  # a ratio (0.0123 is 1.23 %); CSV/JSON show it in percent
    DECIMAL = "decimal"  # a plain number such as a count of standard deviations
    DATE = "date"
    DATETIME = "datetime"


class Total(StrEnum):
    SUM = "sum"  # subtotal and total rows add the detail rows up
    CARRY = "carry"  # the value that identifies the group (table, shoe ...), kept on its subtotal
    NONE = "none"  # left blank on subtotal and total rows


@dataclass(frozen=True)
class Column:
    """`key` is the column's JSON key; `label` its heading for people (marked for translation);
    `name` the stable CSV header machines read (the label's English, in every language)."""

    key: str
    label: Any  # str or a lazily translated string
    type: ColumnType = ColumnType.TEXT
    # How subtotal/total lines fill the column: a Total, or a function of the group's sums.
    total: Total | Callable[[dict[str, Any]], Any] = Total.NONE
    width: int = 12
    hidden: bool = False  # summed for derived totals (e.g. variance behind a z-score), never shown
    places: int = 2  # DECIMAL and PERCENTAGE: decimals shown in CSV/JSON (in percent for PERCENTAGE)
    # A patron's personal data (name, nationality): only a reader who may see it gets the column
    # (`ReportDefinition.for_reader`); everyone else gets the report without it.
    personal: bool = False

    @property
    def name(self) -> str:
        return machine_text(self.label)


class ColumnOptions(TypedDict, total=False):
    """Column's keyword arguments, for options shared by several columns (`Column(key, label, **options)`)."""

    type: ColumnType
    total: Total | Callable[[dict[str, Any]], Any]
    width: int
    hidden: bool
    places: int


@dataclass(frozen=True)
class Level:
    """A subtotal level: detail rows sharing `keys` are one group; its subtotal line keeps `carry`."""

    name: str
    keys: tuple[str, ...]
    label: Any  # str or a lazily translated string


@dataclass(frozen=True)
class ReportFilters:
    date_from: dt.date
    date_to: dt.date
    tables: tuple[str, ...] = ()  # table codes; empty: every table
    game: str = ""  # big, midi, mini; empty: every game
    only_variances: bool = False  # commission reports: only seats whose count differs from the ledger

    @property
    def days(self) -> int:
        return (self.date_to - self.date_from).days + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.date_from.isoformat(),
            "to": self.date_to.isoformat(),
            "tables": list(self.tables),
            "game": self.game,
            "only_variances": self.only_variances,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportFilters:
        return cls(
            date_from=dt.date.fromisoformat(data["from"]),
            date_to=dt.date.fromisoformat(data["to"]),
            tables=tuple(data.get("tables", ())),
            game=data.get("game", ""),
            only_variances=bool(data.get("only_variances", False)),
        )


@dataclass(frozen=True)
class ReportDefinition:
    slug: str
    title: Any  # str or a lazily translated string, as `description`
    description: Any
    columns: tuple[Column, ...]
    rows: Callable[[ReportFilters], Iterable[dict[str, Any]]]  # detail rows, ordered by the levels' keys
    estimate: Callable[[ReportFilters], int]  # detail rows expected (progress of background exports)
    levels: tuple[Level, ...] = ()  # outermost first
    filters_used: tuple[str, ...] = ("tables", "game")
    audience: str = "reports"  # who may run it: see pit.reports.permissions
    # One total line per value of these keys (money in two currencies is never added up; the
    # commission report also keeps shoes still dealing out of the reconciled totals).
    total_keys: tuple[str, ...] = ("currency",)
    # Where a detail row leads on screen (its reconciliation, a table-day's shoes), or None.
    link: Callable[[dict[str, Any]], str | None] | None = None
    # The CSV lines after the header straight from the database (PostgreSQL's COPY), the same bytes
    # as the Python renderer's; returns None where the database cannot (SQLite). None: Python only.
    csv_lines: Callable[[ReportFilters], Any] | None = None
    # Bridging lines after the totals, where another report shows the same figure differently: from
    # the filters and the totals ((total keys, sums) per total line), the lines' values.
    bridge: Callable[[ReportFilters, list[tuple[dict[str, Any], dict[str, Any]]]], Iterable[dict[str, Any]]] | None = (
        None
    )
    # The columns a PDF for sign-off prints (a landscape page holds a dozen); empty: no PDF.
    pdf_columns: tuple[str, ...] = ()

    @property
    def visible_columns(self) -> tuple[Column, ...]:
        return tuple(column for column in self.columns if not column.hidden)

    @property
    def summed_keys(self) -> tuple[str, ...]:
        return tuple(column.key for column in self.columns if column.total == Total.SUM)

    @property
    def personal_keys(self) -> frozenset[str]:
        return frozenset(column.key for column in self.columns if column.personal)

    def for_reader(self, *, personal: bool) -> ReportDefinition:
        """The report as one reader gets it: whole for a reader who may see personal data, otherwise
        without its personal columns, and its rows without their values."""
        keys = self.personal_keys
        if personal or not keys:
            return self
        rows = self.rows

        def without_personal(filters: ReportFilters) -> Iterator[dict[str, Any]]:
            for row in rows(filters):
                yield {key: value for key, value in row.items() if key not in keys}

        return replace(
            self,
            columns=tuple(column for column in self.columns if not column.personal),
            rows=without_personal,
            csv_lines=None,
            pdf_columns=tuple(key for key in self.pdf_columns if key not in keys),
        )


DETAIL = "detail"
TOTAL = "total"
BRIDGE = "bridge"


# A line's kind ("detail", "shoe subtotal", "total", "bridge") stays as it is in CSV and JSON; XLSX,
# the PDF and the screen show it in the reader's words (`line_label`).
KIND_WORDS = {DETAIL: _("detail"), TOTAL: _("total"), BRIDGE: _("bridge")}
LEVEL_WORDS = {"table": _("table"), "shoe": _("shoe"), "day": _("day"), "game": _("game"), "month": _("month")}


def line_label(kind: str) -> str:
    """A line's kind in the active language (in English, the kind itself)."""
    if kind in KIND_WORDS:
        return str(KIND_WORDS[kind])
    level, _space, rest = kind.partition(" ")
    if rest == "subtotal":
        return gettext("%(level)s subtotal") % {"level": LEVEL_WORDS.get(level, level)}
    return kind


@dataclass
class Line:
    """One line of a rendered report: `kind` is "detail", "<level> subtotal" or "total"."""

    kind: str
    values: dict[str, Any]

    @property
    def is_detail(self) -> bool:
        return self.kind == DETAIL


@dataclass
class _Group:
    key: tuple
    first: dict[str, Any]
    sums: dict[str, Any] = field(default_factory=dict)
    rows: int = 0


def _add(sums: dict[str, Any], values: list[tuple[str, Any]]) -> None:
    """A row's summed values (those not None, `_summed`) added to a group's sums."""
    for key, value in values:
        current = sums.get(key)
        sums[key] = value if current is None else current + value


def _summed(row: dict[str, Any], keys: tuple[str, ...]) -> list[tuple[str, Any]]:
    return [(key, value) for key in keys if (value := row.get(key)) is not None]


def _summary_values(definition: ReportDefinition, group: _Group, carry: tuple[str, ...]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for column in definition.columns:
        if column.total == Total.SUM:
            values[column.key] = group.sums.get(column.key)
        elif column.total == Total.CARRY:
            values[column.key] = group.first.get(column.key) if column.key in carry else None
        elif callable(column.total):
            values[column.key] = column.total(group.sums)
        else:
            values[column.key] = None
    values["currency"] = group.first.get("currency")
    return values


def _total_values(definition: ReportDefinition, group: _Group) -> dict[str, Any]:
    values = _summary_values(definition, group, ())
    values.update(zip(definition.total_keys, group.key, strict=True))
    values["detail_rows"] = group.rows
    return values


def report_lines(definition: ReportDefinition, filters: ReportFilters) -> Iterator[Line]:
    """Detail lines as the rows come, a subtotal line when a group ends, and the totals at the end
    (one per value of the definition's `total_keys`, currency among them: money in different
    currencies is never added up). The rows must come ordered by the levels' keys, outermost first:
    a subtotal closes exactly the rows of its key."""
    levels = definition.levels
    summed = definition.summed_keys
    open_groups: list[_Group | None] = [None] * len(levels)
    totals: dict[tuple, _Group] = {}
    total_keys = definition.total_keys
    # When the outermost level's keys hold the totals' (currency among them), each of its groups lies
    # in one total: its sums are added to the total once, as it closes, instead of row by row (the
    # same sums: whole numbers and Decimals far below the context's precision add up exactly).
    by_group = bool(levels) and set(total_keys) <= set(levels[0].keys)

    def total_of(key: tuple, currency: Any) -> _Group:
        total = totals.get(key)
        if total is None:
            total = totals[key] = _Group(key, {"currency": currency})
        return total

    def close_from(depth: int) -> Iterator[Line]:
        for index in range(len(levels) - 1, depth - 1, -1):
            group = open_groups[index]
            if group is not None:
                carry = tuple(key for level in levels[: index + 1] for key in level.keys)
                yield Line(f"{levels[index].name} subtotal", _summary_values(definition, group, carry))
                open_groups[index] = None
                if by_group and index == 0:
                    first = group.first
                    total = total_of(tuple([first.get(name) for name in total_keys]), first.get("currency"))
                    _add(total.sums, list(group.sums.items()))
                    total.rows += group.rows

    for row in read_from_replica(definition.rows(filters)):
        keys = [tuple([row.get(name) for name in level.keys]) for level in levels]
        for depth, key in enumerate(keys):
            group = open_groups[depth]
            if group is None or group.key != key:
                yield from close_from(depth)
                break
        row_sums = _summed(row, summed)  # once for the row, added to each group it counts in
        for depth, key in enumerate(keys):
            group = open_groups[depth]
            if group is None:
                group = open_groups[depth] = _Group(key, row)
            _add(group.sums, row_sums)
            group.rows += 1
        if not by_group:
            total = total_of(tuple([row.get(name) for name in total_keys]), row.get("currency"))
            _add(total.sums, row_sums)
            total.rows += 1
        yield Line(DETAIL, row)
    yield from close_from(0)
    # In the words the values were written in: the order is the same in every language.
    ordered = sorted(totals, key=lambda values: tuple(str(machine_text(value) or "") for value in values))
    for key in ordered:
        yield Line(TOTAL, _total_values(definition, totals[key]))
    if definition.bridge is not None:
        figures = [(dict(zip(definition.total_keys, key, strict=True)), totals[key].sums) for key in ordered]
        for values in read_from_replica(definition.bridge(filters, figures)):
            yield Line(BRIDGE, values)


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Lists of up to `size` items from an iterable, read lazily (itertools.batched is 3.12+)."""
    batch: list[Any] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def ratio(numerator_key: str, denominator_key: str) -> Callable[[dict[str, Any]], Decimal | None]:
    """A derived total: sums[numerator] / sums[denominator] (hold % = win / handle)."""

    def compute(sums: dict[str, Any]) -> Decimal | None:
        denominator = sums.get(denominator_key)
        numerator = sums.get(numerator_key)
        if not denominator or numerator is None:
            return None
        return Decimal(numerator) / Decimal(denominator)

    return compute
