"""Every cell of every line kind of every report is the same in CSV, JSON and XLSX.

The reports and their line kinds come from the registry (`REPORTS`, each definition's levels and
bridge), so a new report or level is covered without a line here. Two walks: synthetic rows, a
distinct value in every column of every line (so a label written into the wrong column, or one
cell shown in two columns, cannot pass), and the reports of the test pit as the database gives
them (the bridges of the commission report and table results included)."""

import csv
import datetime as dt
import io
import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

import openpyxl
import pytest

from pit.reports.catalog import REPORTS
from pit.reports.definitions import BRIDGE, DETAIL, TOTAL, ColumnType, ReportDefinition, ReportFilters, report_lines
from pit.reports.renderers import (
    csv_chunks,
    csv_safe_text,
    json_chunks,
    number_format,
    text_converter,
    value_converter,
    xlsx_write,
)
from tests.reports import test_commission_bridge
from tests.reports.conftest import DAY_1, DAY_2

D = Decimal
FILTERS = ReportFilters(DAY_1, DAY_2)
across = test_commission_bridge.across  # the fixture: BB2's shoe dealt across the start of a gaming day
ROWS = 8  # detail rows: two groups at the outer level, two in each at the inner (at most two levels)


def line_kinds(definition: ReportDefinition) -> set[str]:
    """The kinds of line a report writes, from its definition."""
    kinds = {DETAIL, TOTAL, *(f"{level.name} subtotal" for level in definition.levels)}
    return kinds | ({BRIDGE} if definition.bridge is not None else set())


def _group(definition: ReportDefinition, key: str, index: int) -> int:
    """Which group a detail row is in for a column: the outermost level keyed by it, else its own."""
    for depth, level in enumerate(definition.levels):
        if key in level.keys:
            return index // (ROWS // 2 ** (depth + 1))
    return index


def _value(column, group: int, position: int, currency: str) -> Any:
    kind = column.type
    if kind == ColumnType.TEXT:
        return f"{column.key} {group}"
    if kind == ColumnType.INTEGER:
        return 10 * position + group + 1
    if kind == ColumnType.MONEY:
        return D(100 * position + group + 1) if currency == "JPY" else D(f"{position}.{group + 1:02}")
    if kind == ColumnType.PERCENTAGE:
        return D(f"0.{position % 10}{group}7351")
    if kind == ColumnType.DECIMAL:
        return D(f"{position}.{group}371")
    if kind == ColumnType.DATE:
        return dt.date(2026, 11, 2) + dt.timedelta(days=group)
    return dt.datetime(2026, 11, 2, 10, group, 7, 5000, tzinfo=dt.UTC)


def synthetic(definition: ReportDefinition) -> ReportDefinition:
    """The definition over synthetic rows (ordered by its levels, two currencies where a level is
    keyed by currency) and, if it has a bridge, a bridge line per total filling every column."""

    def rows(_filters):
        for index in range(ROWS):
            currency = "JPY" if _group(definition, "currency", index) % 2 else "USD"
            row = {
                column.key: _value(column, _group(definition, column.key, index), position, currency)
                for position, column in enumerate(definition.columns)
            }
            row["currency"] = currency
            yield row

    def bridge(_filters, totals):
        for number, (keys, _sums) in enumerate(totals):
            currency = keys.get("currency") or "USD"
            line = {
                column.key: _value(column, 90 + number, position, currency)
                for position, column in enumerate(definition.columns)
            }
            texts = {column.key: f"bridge {column.key}" for column in definition.columns if column.type == "text"}
            yield {**line, **texts, "currency": currency}

    return replace(
        definition,
        rows=rows,
        csv_lines=None,
        bridge=bridge if definition.bridge is not None else None,
        link=None,
    )


def expected(definition: ReportDefinition, filters: ReportFilters):
    """Per line: its kind, the text of each visible column (CSV's and JSON's) and the typed value."""
    columns = definition.visible_columns
    texts = [text_converter(column) for column in columns]
    typed = [value_converter(column) for column in columns]
    for line in report_lines(definition, filters):
        currency = line.values.get("currency")
        values = [line.values.get(column.key) for column in columns]
        yield (
            line.kind,
            currency,
            [convert(value, currency) for convert, value in zip(texts, values, strict=True)],
            [convert(value, currency) for convert, value in zip(typed, values, strict=True)],
        )


def _csv(definition, filters):
    text = b"".join(csv_chunks(definition, filters)).decode().removeprefix("\ufeff")
    return list(csv.reader(io.StringIO(text)))[1:]


def _json(definition, filters):
    body = json.loads(b"".join(json_chunks(definition, filters)))
    keys = [column.key for column in definition.visible_columns]
    assert [column["key"] for column in body["columns"]] == keys
    rows = [row for row in body["rows"] if row["line"] != BRIDGE]
    bridges = [row for row in body["rows"] if row["line"] == BRIDGE]
    return [[row["line"], *(row[key] for key in keys)] for row in rows + body["totals"] + bridges]


def _xlsx(definition, filters):
    out = io.BytesIO()
    xlsx_write(definition, filters, out)
    sheet = openpyxl.load_workbook(io.BytesIO(out.getvalue())).worksheets[0]
    return list(sheet.iter_rows(min_row=2))


def _xlsx_typed(column, cell):
    """An XLSX cell's value in `value_converter`'s terms, with its number format."""
    value = cell.value
    if value is None:
        return None
    if column.type == ColumnType.MONEY:
        return D(str(value))
    if column.type == ColumnType.PERCENTAGE:
        return D(str(value)).scaleb(2)
    if column.type == ColumnType.DECIMAL:
        return D(str(value))
    if column.type == ColumnType.DATE:
        return value.date()
    return value


def _csv_text(column, value):
    """CSV's text of a cell: JSON's, with formula-like text made inert (see test_safe_exports)."""
    if value is None:
        return ""
    return csv_safe_text(value) if column.type == ColumnType.TEXT else str(value)


def assert_every_cell_equal(definition: ReportDefinition, filters: ReportFilters) -> set[str]:
    """Compare every cell of every line in the three formats; returns the line kinds seen."""
    lines = list(expected(definition, filters))
    csv_rows, json_rows, xlsx_rows = _csv(definition, filters), _json(definition, filters), _xlsx(definition, filters)
    # JSON keeps the totals in their own list, after the rows: compare in CSV's order of kinds.
    order = [line for line in lines if line[0] not in (TOTAL, BRIDGE)]
    order += [line for line in lines if line[0] == TOTAL] + [line for line in lines if line[0] == BRIDGE]
    assert len(csv_rows) == len(xlsx_rows) == len(lines) == len(json_rows)
    columns = definition.visible_columns
    for number, (kind, currency, texts, typed) in enumerate(lines):
        where = f"{definition.slug} line {number} ({kind})"
        assert csv_rows[number] == [kind, *map(_csv_text, columns, texts)], where
        xlsx_row = xlsx_rows[number]
        assert xlsx_row[0].value == kind, where
        for column, value, cell in zip(columns, typed, xlsx_row[1:], strict=True):
            shown = value.replace(tzinfo=None) if column.type == ColumnType.DATETIME and value else value
            shown = None if shown == "" else shown  # a workbook holds no empty string: an empty cell
            assert _xlsx_typed(column, cell) == shown, f"{where}, {column.label}"
            if value is not None and column.type in (ColumnType.MONEY, ColumnType.PERCENTAGE, ColumnType.DECIMAL):
                assert cell.number_format == number_format(column, currency), f"{where}, {column.label}"
            if kind != DETAIL and value is not None:
                assert cell.font.bold, f"{where}, {column.label}"
    for number, (kind, _currency, texts, _typed) in enumerate(order):
        assert json_rows[number] == [kind, *texts], f"{definition.slug} JSON line {number} ({kind})"
    return {line[0] for line in lines}


@pytest.mark.parametrize("slug", sorted(REPORTS))
def test_every_line_kind_has_the_same_cells_in_every_format(slug, db):
    definition = synthetic(REPORTS[slug])
    assert assert_every_cell_equal(definition, FILTERS) == line_kinds(definition)


def test_percentage_formats_state_their_places():
    columns = [column for report in REPORTS.values() for column in report.visible_columns]
    for column in columns:
        if column.type == ColumnType.PERCENTAGE:
            assert number_format(column, None) == "0." + "0" * column.places + "%", column.key
    hold = next(column for column in REPORTS["master-game"].columns if column.key == "hold")
    assert number_format(hold, "USD") == "0.00%"  # never "0.%"


@pytest.mark.parametrize("slug", sorted(REPORTS))
def test_the_pit_s_reports_have_the_same_cells_in_every_format(slug, pit, across):
    kinds = set()
    for filters in (FILTERS, ReportFilters(DAY_2, DAY_2)):  # the second: BB2's shoe crosses its edge
        kinds |= assert_every_cell_equal(REPORTS[slug], filters)
    if slug in ("commission", "table-results"):
        assert BRIDGE in kinds  # BB2's shoe across the start of a day, MB1's deducted commission


def _xlsx_lines(slug):
    definition = REPORTS[slug]
    header = [column.key for column in definition.visible_columns]
    return [
        (row[0].value, dict(zip(header, (cell.value for cell in row[1:]), strict=True)))
        for row in _xlsx(definition, FILTERS)
    ]


def test_the_labels_of_subtotals_and_bridges_in_xlsx(pit, across):
    """The cells that read wrong in XLSX: each now holds its own value."""
    bridge = [values for kind, values in _xlsx_lines("table-results") if kind == BRIDGE]
    assert bridge[0]["table"] == "Commission in this report (by the coup's gaming day)"
    assert all(values["currency"] == "USD" and values["table"] != "USD" for values in bridge)
    assert bridge[-1]["table"] == "Unexplained difference" and bridge[-1]["commission"] == 0
    shoe = next(values for kind, values in _xlsx_lines("commission") if kind == "shoe subtotal")
    assert (shoe["section"], shoe["table"], shoe["game"], shoe["currency"]) == (
        "Closed shoes",
        "BB1",
        "Big baccarat",
        "USD",
    )
    table = next(values for kind, values in _xlsx_lines("commission-detail") if kind == "table subtotal")
    assert (table["table"], table["currency"]) == ("BB1", "USD")
    violations = next(values for kind, values in _xlsx_lines("violations") if kind == "table subtotal")
    assert (violations["table"], violations["game"]) == ("BB1", "Big baccarat")
    game = next(values for kind, values in _xlsx_lines("master-game") if kind == "game subtotal")
    assert (game["currency"], game["game"]) == ("USD", "Big baccarat")


def test_a_zero_amount_has_its_currency_s_places(pit, across):
    text = b"".join(csv_chunks(REPORTS["table-results"], FILTERS)).decode()
    unexplained = next(line for line in text.splitlines() if "Unexplained difference" in line)
    assert unexplained.split(",")[-1] == "0.00" or ",0.00," in unexplained
    body = json.loads(b"".join(json_chunks(REPORTS["table-results"], FILTERS)))
    bridge = [row for row in body["rows"] if row["line"] == BRIDGE]
    assert bridge[-1]["table"] == "Unexplained difference" and bridge[-1]["commission"] == "0.00"
