"""CSV, XLSX and JSON render the same definitions: parsed back, typed, with the same totals."""

import csv
import datetime as dt
import io
import json
from decimal import Decimal

import openpyxl
import pytest

from pit.reports.catalog import COMMISSION, COMMISSION_DETAIL, TABLE_RESULTS
from pit.reports.definitions import ReportFilters, report_lines
from pit.reports.renderers import csv_chunks, json_chunks, money_format, xlsx_write
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, at

D = Decimal
FILTERS = ReportFilters(DAY_1, DAY_2)


def parsed_csv(report, filters=FILTERS):
    text = b"".join(csv_chunks(report, filters)).decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def workbook(report, filters=FILTERS, **kwargs):
    out = io.BytesIO()
    xlsx_write(report, filters, out, **kwargs)
    out.seek(0)
    return openpyxl.load_workbook(out)


def test_commission_csv_has_every_line_and_exact_decimal_totals(pit):
    rows = parsed_csv(COMMISSION)
    assert list(rows[0])[:7] == ["Line", "Section", "Gaming day", "Table", "Game", "Shoe", "Seat"]
    assert [row["Line"] for row in rows].count("detail") == 5
    details = [row for row in rows if row["Line"] == "detail"]
    total = rows[-1]
    assert total["Line"] == "total" and total["Currency"] == "USD"
    for label in ("Accrued", "Expected in box", "Counted", "Variance (counted - expected)"):
        assert D(total[label]) == sum(D(row[label]) for row in details)
    assert (total["Accrued"], total["Counted"], total["Variance (counted - expected)"]) == ("102.00", "85.00", "-5.00")
    seat_5 = next(row for row in details if row["Seat"] == "5")
    assert (seat_5["Gaming day"], seat_5["Reconciliation"], seat_5["Explained by"]) == (
        "2026-11-02",
        "Variance explained",
        "accountant",
    )


def test_table_results_csv_shows_hold_in_percent(pit):
    rows = parsed_csv(TABLE_RESULTS)
    mb1 = next(row for row in rows if row["Table"] == "MB1")
    assert mb1["Hold %"] == "2.5000"  # 5.00 won on 200.00 wagered
    assert mb1["House win"] == "5.00"
    assert D(mb1["Std devs from theoretical"]) == D(mb1["Std devs from theoretical"]).quantize(D("0.01"))
    assert "Variance" not in rows[0]  # hidden column


def test_commission_xlsx_is_typed_formatted_frozen_and_totalled(pit):
    book = workbook(COMMISSION)
    sheet = book.worksheets[0]
    assert sheet.freeze_panes == "A2"
    header = [cell.value for cell in sheet[1]]
    assert header[:4] == ["Line", "Section", "Gaming day", "Table"]
    assert sheet[1][0].font.bold
    column = {label: index for index, label in enumerate(header)}
    rows = list(sheet.iter_rows(min_row=2))
    assert [row[0].value for row in rows] == [
        "detail",
        "detail",
        "detail",
        "detail",
        "shoe subtotal",
        "detail",
        "shoe subtotal",
        "table subtotal",
        "total",
    ]
    first = rows[0]
    assert first[column["Gaming day"]].value == dt.datetime(2026, 11, 2)  # a date cell
    assert first[column["Gaming day"]].is_date
    assert first[column["Gaming day"]].number_format == "yyyy-mm-dd"
    accrued = first[column["Accrued"]]
    assert accrued.data_type == "n" and accrued.value == 15
    assert accrued.number_format == '"$"#,##0.00;-"$"#,##0.00'
    assert first[column["Seat"]].value == 1 and first[column["Seat"]].data_type == "n"
    total = rows[-1]
    assert total[0].font.bold and total[column["Accrued"]].font.bold
    details = [row for row in rows if row[0].value == "detail"]
    for label in ("Accrued", "Expected in box", "Counted", "Variance (counted - expected)", "Collected at shuffle"):
        cell = total[column[label]]
        assert cell.data_type == "n"
        assert D(str(cell.value)) == sum(D(str(row[column[label]].value)) for row in details)
    assert D(str(total[column["Variance (counted - expected)"]].value)) == D("-5")
    assert sheet.column_dimensions["C"].width == 12  # gaming day


def test_table_results_xlsx_percentages_and_theoretical(pit):
    sheet = workbook(TABLE_RESULTS).worksheets[0]
    header = [cell.value for cell in sheet[1]]
    rows = list(sheet.iter_rows(min_row=2))
    mb1 = next(row for row in rows if row[header.index("Table")].value == "MB1")
    hold = mb1[header.index("Hold %")]
    assert hold.value == pytest.approx(0.025) and hold.number_format == "0.0000%"  # Hold % has 4 places
    assert mb1[header.index("Std devs from theoretical")].number_format == "0.00"
    # The total, before the lines bridging to the commission report (MB1 deducts its commission).
    csv_total = next(row for row in parsed_csv(TABLE_RESULTS) if row["Line"] == "total")
    xlsx_total = next(row for row in rows if row[0].value == "total")
    assert D(str(xlsx_total[header.index("House win")].value)) == D(csv_total["House win"]) == D("-2003.00")


def test_a_report_longer_than_a_sheet_continues_on_the_next(pit):
    book = workbook(COMMISSION_DETAIL, max_rows=6)
    assert len(book.worksheets) > 1
    written = [row[0].value for sheet in book.worksheets for row in sheet.iter_rows(min_row=2)]
    assert all(sheet.cell(1, 1).value == "Line" for sheet in book.worksheets)
    assert written == [line.kind for line in report_lines(COMMISSION_DETAIL, FILTERS)]


def test_json_carries_money_as_decimal_strings(pit):
    body = json.loads(b"".join(json_chunks(COMMISSION, FILTERS)))
    assert body["report"] == "commission"
    assert body["filters"] == {
        "from": "2026-11-02",
        "to": "2026-11-03",
        "tables": [],
        "game": "",
        "only_variances": False,
    }
    assert {"key": "accrued", "label": "Accrued", "type": "money"} in body["columns"]
    seat_5 = next(row for row in body["rows"] if row["seat"] == 5)
    assert seat_5["variance"] == "-5.00" and seat_5["shoe"] == 1 and seat_5["gaming_day"] == "2026-11-02"
    assert body["totals"] == [next(row for row in body["totals"])]
    assert body["totals"][0]["accrued"] == "102.00" and body["totals"][0]["currency"] == "USD"


def test_money_formats_follow_the_currency():
    assert money_format("USD") == '"$"#,##0.00;-"$"#,##0.00'
    assert money_format("JPY") == '"¥"#,##0;-"¥"#,##0'
    assert money_format("CHF") == '#,##0.00 "CHF"'
    assert money_format("KWD") == '#,##0.000 "KWD"'


def test_totals_are_per_currency_and_cells_carry_their_currency(pit, django_capture_on_commit_callbacks):
    yen = factories.table("JB1", game="big", currency="JPY", limits={"banker": ("100", "1000000")})
    shoe = factories.shoe(yen, shuffled_at=at(DAY_1, 12))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "1000")], dealt_at=at(DAY_1, 12, 5))
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, closed_at=at(DAY_1, 13), box_counts=[(1, D("50"))])
    totals = [line.values for line in report_lines(COMMISSION, FILTERS) if line.kind == "total"]
    assert [(total["currency"], total["accrued"], total["counted"]) for total in totals] == [
        ("JPY", D("50"), D("50")),
        ("USD", D("102.00"), D("85.00")),
    ]
    sheet = workbook(COMMISSION).worksheets[0]
    header = [cell.value for cell in sheet[1]]
    yen_row = next(row for row in sheet.iter_rows(min_row=2) if row[header.index("Table")].value == "JB1")
    assert yen_row[header.index("Accrued")].number_format == '"¥"#,##0;-"¥"#,##0'
    assert yen_row[header.index("Accrued")].value == 50
    csv_totals = [row for row in parsed_csv(COMMISSION) if row["Line"] == "total"]
    assert [(row["Currency"], row["Accrued"]) for row in csv_totals] == [("JPY", "50"), ("USD", "102.00")]


def test_times_have_one_precision_in_every_format(pit):
    """Recorded times carry whole seconds in XLSX, as in CSV and JSON (they kept milliseconds)."""
    sheet = workbook(COMMISSION_DETAIL).worksheets[0]
    header = [cell.value for cell in sheet[1]]
    xlsx_times = [row[header.index("Recorded at")].value for row in sheet.iter_rows(min_row=2)]
    xlsx_times = [value for value in xlsx_times if value is not None]
    csv_times = [row["Recorded at"] for row in parsed_csv(COMMISSION_DETAIL) if row["Recorded at"]]
    assert xlsx_times and all(value.microsecond == 0 for value in xlsx_times)
    assert [value.isoformat() for value in xlsx_times] == [text[:19] for text in csv_times]
