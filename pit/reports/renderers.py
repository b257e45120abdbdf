"""Render a report definition as CSV (streamed), XLSX (openpyxl write-only) or JSON (streamed).

All three walk the same `report_lines`; none builds the whole report in memory. A first column,
"Line", tells detail rows from subtotals and totals in CSV and XLSX ("line" in JSON).

Languages: CSV headers are the columns' stable names (`Column.name`, the English labels) unless
translated headers are asked for; CSV and JSON values and JSON keys are the same in every language;
XLSX, the PDF and the screen are in the reader's language (see docs/design/reports.md).

Text cells are written so that no spreadsheet evaluates them, whoever typed them (a floor device's
note, an accountant's explanation, a table name): see `csv_safe_text` and `_Cells.text`.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Callable, Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import IO, Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from pit.core.money import exponent, format_money, from_minor, to_minor
from pit.core.percent import percent, percent_text
from pit.records.selectors import record_heads

from .definitions import (
    Column,
    ColumnType,
    Line,
    ReportDefinition,
    ReportFilters,
    line_label,
    machine_text,
    report_lines,
)

LINE_LABEL = _("Line")
# CSV headers: the columns' stable names (what systems read), or their labels in the reader's language.
HEADERS_MACHINE = "machine"
HEADERS_TRANSLATED = "translated"
HEADERS = (HEADERS_MACHINE, HEADERS_TRANSLATED)
XLSX_MAX_ROWS = 1_048_576  # Excel's limit per sheet; a longer report continues on the next sheet
Progress = Callable[[int], None]
DETAIL_PROGRESS_EVERY = 1000  # detail rows between two calls of an export's progress


def _none_or(convert: Callable[[Any, str | None], Any]) -> Converter:
    return lambda value, currency: None if value is None else convert(value, currency)


def money_value(value: Decimal | int, currency: str | None) -> Decimal:
    """An amount at its currency's places, exactly (0 is 0.00 in USD, never "0"); an amount finer
    than its currency allows is an error (pit.core.money.to_minor), never rounded here."""
    amount = Decimal(value)
    return from_minor(to_minor(amount, currency), currency) if currency else amount


# A column's value on one line (with the line's currency) as the formats carry it.
Converter = Callable[[Any, str | None], Any]


def value_converter(column: Column) -> Converter:
    """The one definition of a cell's value, which every format renders (CSV and JSON as text,
    XLSX typed, the screen for people): money at its currency's places, percentages in percent by
    `pit.core.percent` (half away from zero at the column's places), decimals at theirs, dates and
    datetimes (in the casino's time zone, whole seconds) as such, integers and text as they are."""
    if column.type == ColumnType.MONEY:
        return _none_or(money_value)
    if column.type == ColumnType.PERCENTAGE:
        places = column.places
        return _none_or(lambda value, _currency: percent(value, places))
    if column.type == ColumnType.DECIMAL:
        step = Decimal(1).scaleb(-column.places)
        return _none_or(lambda value, _currency: Decimal(value).quantize(step, rounding=ROUND_HALF_UP))
    if column.type == ColumnType.DATETIME:
        zone = timezone.get_current_timezone()  # looked up once: it is a context-local per call
        return _none_or(lambda value, _currency: value.astimezone(zone).replace(microsecond=0))
    if column.type == ColumnType.INTEGER:
        return _none_or(lambda value, _currency: int(value))
    if column.type == ColumnType.TEXT:
        return _none_or(lambda value, _currency: str(value))  # a marked value in the active language
    return lambda value, _currency: value  # dates


def text_converter(column: Column) -> Converter:
    """How CSV and JSON carry a column's values: `value_converter`'s, as text (money and decimals
    exact decimal strings, percentages in percent, dates and datetimes ISO 8601); integers stay
    integers. Made once per column, applied to every line."""
    typed = value_converter(column)
    if column.type in (ColumnType.DATE, ColumnType.DATETIME):
        separator = {"timespec": "seconds"} if column.type == ColumnType.DATETIME else {}
        return lambda value, currency: None if value is None else typed(value, currency).isoformat(**separator)
    if column.type == ColumnType.INTEGER:
        return typed
    if column.type == ColumnType.TEXT:
        # A marked value (a bridging line, a section) as written, in every language.
        return lambda value, _currency: None if value is None else str(machine_text(value))
    return lambda value, currency: None if value is None else str(typed(value, currency))


def text_value(column: Column, value: Any, currency: str | None = None) -> str | int | None:
    return text_converter(column)(value, currency)


# OWASP "CSV injection": a cell starting with one of these is a formula to Excel, LibreOffice or
# Google Sheets (a leading tab or carriage return is stripped before the formula is read).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe_text(text: str) -> str:
    """A text cell as CSV carries it: one that a spreadsheet would evaluate gets a leading single
    quote, which every spreadsheet reads as "this is text" (OWASP's advice). Only text columns go
    through here: a negative amount stays a number."""
    return "'" + text if text.startswith(FORMULA_TRIGGERS) else text


def csv_converter(column: Column) -> Converter:
    if column.type != ColumnType.TEXT:
        return text_converter(column)
    # Text as text_converter gives it (the value's str, a marked one in English), made safe for spreadsheets.
    return lambda value, _currency: None if value is None else csv_safe_text(str(machine_text(value)))


def _lines(definition: ReportDefinition, filters: ReportFilters, progress: Progress | None) -> Iterator[Line]:
    written = 0
    for line in report_lines(definition, filters):
        if line.is_detail:
            written += 1
            if progress is not None and written % DETAIL_PROGRESS_EVERY == 0:
                progress(written)
        yield line
    if progress is not None:
        progress(written)


# ------------------------------------------------------------------------------------ CSV


class _Echo:
    """A file-like object whose write returns what it is given (csv.writer into a generator)."""

    def write(self, value: str) -> str:
        return value


def csv_header_names(definition: ReportDefinition, headers: str = HEADERS_MACHINE) -> list[str]:
    """The CSV's header: the stable names ("Line", then each column's `name`: its English label, in
    every language), or with `headers="translated"` the labels in the active language."""
    if headers not in HEADERS:
        raise ValueError(f"headers is one of {', '.join(HEADERS)}, not {headers!r}")
    if headers == HEADERS_TRANSLATED:
        return [str(LINE_LABEL), *(str(column.label) for column in definition.visible_columns)]
    return [machine_text(LINE_LABEL), *(column.name for column in definition.visible_columns)]


def _csv_header(writer, definition: ReportDefinition, headers: str = HEADERS_MACHINE) -> bytes:
    return ("\ufeff" + writer.writerow(csv_header_names(definition, headers))).encode()


def csv_chunks(
    definition: ReportDefinition,
    filters: ReportFilters,
    progress: Progress | None = None,
    lines_per_chunk: int = 500,
    headers: str = HEADERS_MACHINE,
) -> Iterator[bytes]:
    """The CSV as UTF-8 byte chunks of a few hundred lines each (BOM first, so Excel reads UTF-8):
    from the database's COPY where the report and the database have one (`csv_lines`), else from
    `report_lines`. Both write the same bytes. The header is worded now, in the language active at
    the call (a streamed response sends it later)."""
    header = _csv_header(csv.writer(_Echo()), definition, headers)
    return _csv_chunks(definition, filters, progress, lines_per_chunk, header)


def _csv_chunks(definition, filters, progress, lines_per_chunk, header: bytes) -> Iterator[bytes]:
    copied = definition.csv_lines(filters) if definition.csv_lines is not None else None
    if copied is None:
        yield from _python_csv_chunks(definition, filters, progress, lines_per_chunk, header)
        return
    yield header
    # COPY sends one message per line, "\n"-ended (a note's own line breaks sit inside its quotes);
    # the csv module ends lines with "\r\n". Detail lines are those starting "detail,".
    live = progress is not None and copied.own_connection
    detail = ord("d")
    written = 0
    buffer: list = []
    for line in copied.lines:
        buffer.append(line[:-1])
        if line[0] == detail:
            written += 1
            if live and progress is not None and written % DETAIL_PROGRESS_EVERY == 0:
                progress(written)
        if len(buffer) >= lines_per_chunk:
            buffer.append(b"")
            yield b"\r\n".join(buffer)
            buffer = []
    if buffer:
        buffer.append(b"")
        yield b"\r\n".join(buffer)
    if progress is not None:
        progress(written)


def python_csv_chunks(
    definition: ReportDefinition,
    filters: ReportFilters,
    progress: Progress | None = None,
    lines_per_chunk: int = 500,
    headers: str = HEADERS_MACHINE,
) -> Iterator[bytes]:
    """`csv_chunks` rendered in Python from `report_lines` (every report, every database)."""
    header = _csv_header(csv.writer(_Echo()), definition, headers)
    return _python_csv_chunks(definition, filters, progress, lines_per_chunk, header)


def _python_csv_chunks(definition, filters, progress, lines_per_chunk, header: bytes) -> Iterator[bytes]:
    writer = csv.writer(_Echo())
    columns = definition.visible_columns
    converters = [(column.key, csv_converter(column)) for column in columns]
    yield header
    buffer: list[str] = []
    for line in _lines(definition, filters, progress):
        values, currency = line.values, line.values.get("currency")
        buffer.append(
            writer.writerow([line.kind, *[convert(values.get(key), currency) for key, convert in converters]])
        )
        if len(buffer) >= lines_per_chunk:
            yield "".join(buffer).encode()
            buffer = []
    if buffer:
        yield "".join(buffer).encode()


def csv_write(
    definition: ReportDefinition,
    filters: ReportFilters,
    out: IO[bytes],
    progress: Progress | None = None,
    headers: str = HEADERS_MACHINE,
):
    for chunk in csv_chunks(definition, filters, progress, headers=headers):
        out.write(chunk)


# ------------------------------------------------------------------------------------ JSON


def json_chunks(definition: ReportDefinition, filters: ReportFilters) -> Iterator[bytes]:
    """{"report", "title", "filters", "columns", "rows": [...], "totals": [...]}, streamed; money
    is a decimal string, each row carries its currency and its line kind. Keys and values are the
    same in every language; the title and the columns' labels are worded now, in the active one."""
    columns = definition.visible_columns
    head = {
        "report": definition.slug,
        "title": str(definition.title),
        "filters": filters.to_dict(),
        "columns": [{"key": column.key, "label": str(column.label), "type": str(column.type)} for column in columns],
    }
    return _json_chunks(definition, filters, head)


def _json_chunks(definition: ReportDefinition, filters: ReportFilters, head: dict[str, Any]) -> Iterator[bytes]:
    columns = definition.visible_columns
    yield (json.dumps(head)[:-1] + ', "rows": [').encode()
    converters = [(column.key, text_converter(column)) for column in columns]
    totals = []
    first = True
    for line in report_lines(definition, filters):
        values, currency = line.values, line.values.get("currency")
        row = {"line": line.kind, **{key: convert(values.get(key), currency) for key, convert in converters}}
        if line.kind == "total":
            totals.append(row)
            continue
        yield ((", " if not first else "") + json.dumps(row)).encode()
        first = False
    tail = ""
    if definition.slug in REPORTS_WITH_RECORD_HEADS:
        tail = ', "record_heads": ' + json.dumps(record_heads(first_day=filters.date_from, last_day=filters.date_to))
    yield ('], "totals": ' + json.dumps(totals) + tail + "}").encode()


# ------------------------------------------------------------------------------------ XLSX


def _symbol(currency: str) -> str:
    """The symbol `format_money` puts before an amount ("$"), or "" when it names the code after it."""
    shown = format_money(0, currency)
    return "" if shown.endswith(f" {currency}") else shown[: shown.index("0")]


def money_format(currency: str | None) -> str:
    """An Excel number format for an amount in `currency`: "$"#,##0.00, or #,##0.00 "CHF"."""
    places = exponent(currency or "")
    number = "#,##0" + ("." + "0" * places if places else "")
    symbol = _symbol(currency) if currency else ""
    if symbol:
        positive = f'"{symbol}"{number}'
        return f"{positive};-{positive}"
    return f'{number} "{currency}"' if currency else number


_FORMATS = {
    ColumnType.INTEGER: "0",
    ColumnType.DATE: "yyyy-mm-dd",
    ColumnType.DATETIME: "yyyy-mm-dd hh:mm:ss",
}


def number_format(column: Column, currency: str | None) -> str | None:
    """The Excel number format of a column's cells: the currency's for money, "0.00%" for a
    two-decimal percentage ("0.0000%" for four), "0.00" for a two-decimal number."""
    if column.type == ColumnType.MONEY:
        return money_format(currency)
    if column.type == ColumnType.PERCENTAGE:
        return ("0." + "0" * column.places if column.places else "0") + "%"
    if column.type == ColumnType.DECIMAL:
        return "0." + "0" * column.places if column.places else "0"
    return _FORMATS.get(column.type)


def xlsx_value(column: Column, typed: Any) -> Any:
    """`value_converter`'s value as an XLSX cell holds it: a percentage as the ratio of its rounded
    percent (the cell shows exactly the CSV's digits), a datetime without its zone (in the casino's)."""
    if typed is None:
        return None
    if column.type == ColumnType.PERCENTAGE:
        return typed.scaleb(-2)
    if column.type == ColumnType.DATETIME:
        return typed.replace(tzinfo=None)
    return typed


class _Cells:
    """Styled write-only cells, made once per (column, currency, bold, quote) and reused row after
    row: openpyxl serialises a row as soon as it is appended, so a cell's value can be replaced on
    the next row. Never twice in one row: the key holds the column, so each column of a row has a
    cell of its own (one shared by two columns would show the last value in both)."""

    def __init__(self, sheet):
        self.sheet = sheet
        self.cache: dict[tuple, WriteOnlyCell] = {}

    def _styled(self, key: tuple, number: str | None, bold: bool, risky: bool = False) -> WriteOnlyCell:
        cell = self.cache.get(key)
        if cell is None:
            cell = WriteOnlyCell(self.sheet)
            if number is not None:
                cell.number_format = number
            if bold:
                cell.font = Font(bold=True)
            if risky:
                cell.quotePrefix = True
            self.cache[key] = cell
        return cell

    def text(self, column: Column, value: str, bold: bool) -> Any:
        """A typed string cell, never a formula (openpyxl would take "=..." for one, "#N/A" for an
        error). One a spreadsheet would evaluate if retyped also carries Excel's quote prefix, so
        it stays text when edited; its value is kept as written."""
        risky = value.startswith(FORMULA_TRIGGERS)
        if not (risky or bold or value.startswith("#")):
            return value  # openpyxl types a plain string as a string
        cell = self._styled(("text", column.key, risky, bold), None, bold, risky)
        cell.value = value
        cell.data_type = "s"
        return cell

    def cell(self, column: Column, typed: Any, currency: str | None, bold: bool) -> Any:
        if typed is None:
            return None
        if column.type == ColumnType.TEXT:
            return self.text(column, typed, bold)
        if not bold and column.type == ColumnType.INTEGER:
            return typed
        money_currency = currency if column.type == ColumnType.MONEY else None
        cell = self._styled((column.key, money_currency, bold), number_format(column, currency), bold)
        cell.value = xlsx_value(column, typed)
        return cell


def _new_sheet(workbook: Workbook, definition: ReportDefinition, number: int):
    name = str(definition.title)
    title = name[:28] if number == 1 else f"{name[:24]} ({number})"
    sheet = workbook.create_sheet(title=title)
    sheet.freeze_panes = "A2"
    sheet.column_dimensions["A"].width = 16
    for index, column in enumerate(definition.visible_columns, start=2):
        sheet.column_dimensions[get_column_letter(index)].width = column.width
    header = []
    for label in (LINE_LABEL, *(column.label for column in definition.visible_columns)):
        cell = WriteOnlyCell(sheet, value=str(label))
        cell.font = Font(bold=True)
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        header.append(cell)
    sheet.append(header)
    return sheet, _Cells(sheet)


def xlsx_write(
    definition: ReportDefinition,
    filters: ReportFilters,
    out: IO[bytes] | str,
    progress: Progress | None = None,
    max_rows: int = XLSX_MAX_ROWS,
) -> None:
    """Write the report as an .xlsx workbook (write-only mode: rows go to disk as they come).

    Typed cells: money as numbers with the currency's format, dates as dates, percentages as
    ratios shown in %; header row bold and frozen; subtotal and total rows bold. For people: the
    sheet's title, headings, line kinds and text values in the active language."""
    workbook = Workbook(write_only=True)
    columns = definition.visible_columns
    converters = [(column, value_converter(column)) for column in columns]
    sheets = 1
    sheet, cells = _new_sheet(workbook, definition, sheets)
    rows_on_sheet = 1
    for line in _lines(definition, filters, progress):
        if rows_on_sheet >= max_rows:
            sheets += 1
            sheet, cells = _new_sheet(workbook, definition, sheets)
            rows_on_sheet = 1
        bold = not line.is_detail
        currency = line.values.get("currency")
        kind_text = line_label(line.kind)
        kind = WriteOnlyCell(sheet, value=kind_text)
        if bold:
            kind.font = Font(bold=True)
        sheet.append(
            [
                kind if bold else kind_text,
                *(
                    cells.cell(column, convert(line.values.get(column.key), currency), currency, bold)
                    for column, convert in converters
                ),
            ]
        )
        rows_on_sheet += 1
    if definition.slug in REPORTS_WITH_RECORD_HEADS:
        _record_heads_sheet(workbook, filters)
    workbook.save(out)


# ------------------------------------------------------------------------------------ record heads

# The reports that publish each gaming day's hash-chain heads (pit.records): a signed export pins the record.
REPORTS_WITH_RECORD_HEADS = frozenset({"commission"})


def _record_heads_sheet(workbook: Workbook, filters: ReportFilters) -> None:
    """A last sheet, "Record heads": per gaming day its digest, then each shoe's chain length and head."""
    sheet = workbook.create_sheet(title=str(_("Record heads")))
    for letter, width in zip("ABCDEF", (12, 10, 8, 8, 8, 68), strict=True):
        sheet.column_dimensions[letter].width = width
    heads = (
        _("Gaming day"),
        _("Table"),
        _("Shoe"),
        _("Shoe id"),
        _("Rows"),
        _("Head hash (SHA-256; a day's row: its digest)"),
    )
    sheet.append([str(head) for head in heads])
    digest = str(_("day digest"))
    for day in record_heads(first_day=filters.date_from, last_day=filters.date_to):
        gaming_day = dt.date.fromisoformat(day["gaming_day"])
        sheet.append([gaming_day, digest, None, None, sum(s["rows"] for s in day["shoes"]), day["digest"]])
        for shoe in day["shoes"]:
            sheet.append([gaming_day, shoe["table"], shoe["sequence"], shoe["shoe"], shoe["rows"], shoe["head"]])


# ------------------------------------------------------------------------------------ summary


def report_summary(definition: ReportDefinition, filters: ReportFilters) -> dict[str, Any]:
    """What the reports page shows on screen: the total lines (one per currency) and how many
    detail rows the report holds."""
    totals: list[dict[str, Any]] = []
    for line in report_lines(definition, filters):
        if line.kind == "total":
            totals.append(line.values)
    columns = [column for column in definition.visible_columns if column.key in _summed_or_derived(definition)]
    summary: dict[str, Any] = {
        "columns": columns,
        "totals": [
            {
                "currency": total.get("currency"),
                # What else keys the total (the commission report's section), before the currency.
                "label": " ".join(str(total.get(key)) for key in definition.total_keys if key != "currency"),
                "rows": total.get("detail_rows", 0),
                "cells": [display_text(column, total.get(column.key), total.get("currency")) for column in columns],
            }
            for total in totals
        ],
    }
    # The same, one row per figure and one column per total: it fits a screen however many
    # figures a report totals.
    summary["figures"] = [
        {"label": column.label, "cells": [total["cells"][index] for total in summary["totals"]]}
        for index, column in enumerate(columns)
    ]
    return summary


def report_page(definition: ReportDefinition, filters: ReportFilters, page: int, per_page: int) -> dict[str, Any]:
    """One page of the report as the reports page shows it: `per_page` detail rows with the
    subtotals among them, each cell as display text, and where each detail row leads. Walks the
    report once (the caller has bounded its size)."""
    columns = definition.visible_columns
    first, last = (page - 1) * per_page, page * per_page
    details = 0
    lines: list[dict[str, Any]] = []
    for line in report_lines(definition, filters):
        if line.kind == "total":
            continue
        inside = first <= details < last if line.is_detail else first < details <= last
        if line.is_detail:
            details += 1
        if not inside:
            continue
        values, currency = line.values, line.values.get("currency")
        lines.append(
            {
                "kind": line.kind,
                "label": line_label(line.kind),
                "link": definition.link(values) if definition.link and line.is_detail else None,
                "cells": [
                    {"text": display_text(column, values.get(column.key), currency), "number": column.type in _NUMBERS}
                    for column in columns
                ],
            }
        )
    pages = max((details + per_page - 1) // per_page, 1)
    return {"columns": columns, "lines": lines, "page": page, "pages": pages, "rows": details}


_NUMBERS = frozenset({ColumnType.MONEY, ColumnType.INTEGER, ColumnType.DECIMAL, ColumnType.PERCENTAGE})


def _summed_or_derived(definition: ReportDefinition) -> set[str]:
    return {column.key for column in definition.columns if column.total not in ("carry", "none")}


def display_text(column: Column, value: Any, currency: str | None) -> str:
    """A cell for people on the reports page (and the PDF): `value_converter`'s value, money with
    its symbol, a percentage with " %"."""
    if value is None:
        return "—"
    if column.type == ColumnType.MONEY and currency:
        return format_money(to_minor(money_value(value, currency), currency), currency)
    if column.type == ColumnType.PERCENTAGE:
        return percent_text(value, column.places)
    if column.type == ColumnType.TEXT:
        return str(value)  # a marked value (a bridging line, a section) in the reader's language
    return str(text_value(column, value, currency))


__all__ = [
    "csv_chunks",
    "csv_header_names",
    "csv_safe_text",
    "csv_write",
    "json_chunks",
    "money_format",
    "report_page",
    "report_summary",
    "text_value",
    "xlsx_write",
]
