"""The card reconciliation and the key log export like every report: CSV, JSON and XLSX from the
one definition, with the figures of the controls recorded by hand."""

import csv
import datetime as dt
import io
import json

import openpyxl

from pit.controls import services
from pit.reports.catalog import REPORTS
from pit.reports.definitions import ReportFilters
from pit.reports.renderers import csv_chunks, json_chunks, xlsx_write
from tests import factories

HOUR = dt.timedelta(hours=1)


def _csv(report, filters):
    return list(csv.DictReader(io.StringIO(b"".join(csv_chunks(report, filters)).decode("utf-8-sig"))))


def test_the_card_reconciliation_and_the_key_log_in_every_format(pit, tmp_path):
    decks = services.decks_receive(
        serials=["D1", "D2", "D3"], storage=pit.room, received_by=pit.ann, second_signer=pit.ben, received_at=pit.start
    )
    shoe = factories.shoe(pit.bb1, shuffled_at=pit.start + HOUR, decks=2, cut_card_position=90)
    services.decks_issue(decks=decks[:2], shoe=shoe, issued_by=pit.cal, taken_by=pit.ann, issued_at=pit.start + HOUR)
    services.deck_return(deck=decks[0], storage=pit.room, by=pit.ann, at=pit.start + 3 * HOUR)
    services.deck_destroy(deck=decks[0], by=pit.cal, witness=pit.ben, at=pit.start + 4 * HOUR)
    services.storage_count_record(
        storage=pit.room, decks=2, counted_by=pit.cal, witness=pit.ben, counted_at=pit.start + 5 * HOUR
    )
    services.key_access_set(key=pit.key, holders=[pit.ann], effective_from=pit.start)
    issue = services.key_issue(
        key=pit.key, table=pit.bb1, issued_to=pit.ann, issued_by=pit.cal, purpose="drop", issued_at=pit.start + HOUR
    )
    services.key_return(issue=issue, returned_by=pit.ann, received_by=pit.cal, returned_at=pit.start + 2 * HOUR)
    filters = ReportFilters(date_from=pit.day, date_to=pit.day)

    report = REPORTS["card-reconciliation"]
    (row,) = [line for line in _csv(report, filters) if line["Gaming day"]]
    assert {key: row[key] for key in ("Received", "Issued", "Returned", "Destroyed", "In storage", "At tables")} == {
        "Received": "3",
        "Issued": "2",
        "Returned": "1",
        "Destroyed": "1",
        "In storage": "1",
        "At tables": "1",
    }
    # The book holds D3 (never issued); the count found 2: one deck more than the book.
    assert (row["Balanced"], row["In storage by place"], row["Counted"], row["Count - book"]) == (
        "yes",
        "CR1: 1",
        "CR1: 2",
        "1",
    )
    lines = json.loads(b"".join(json_chunks(report, filters)))
    assert [row["destroyed_to_date"] for row in lines["rows"] if row["line"] == "detail"] == [1]

    keys = REPORTS["key-log"]
    (logged,) = [line for line in _csv(keys, filters) if line["Key"]]
    assert (logged["Key"], logged["Issued to"], logged["Minutes out"], logged["On its list"], logged["Late"]) == (
        "DBR-1",
        "ann",
        "60",
        "yes",
        "no",
    )
    path = tmp_path / "keys.xlsx"
    with path.open("wb") as out:
        xlsx_write(keys, filters, out)
    sheet = openpyxl.load_workbook(path).active
    assert [cell.value for cell in sheet[1]][:3] == ["Line", "Issued at", "Key"]
