"""The master game report's win-to-drop follows the one rounding rule in every format and on screen:
-7,825 on a 20,000 drop is -39.125 %, shown -39.13 (half-up), recomputed here from the counts."""

import io
import json
from decimal import Decimal

import openpyxl
import pytest

from pit.accounting.models import DropCount, InventoryCount
from pit.accounting.services import drop_record, inventory_record
from pit.reports.accounting import MASTER_GAME
from pit.reports.definitions import ReportFilters
from pit.reports.renderers import csv_chunks, json_chunks, report_summary, xlsx_write
from tests.accounting.conftest import DAY


@pytest.fixture(autouse=True)
def _one_person_may_sign(settings):
    # What this module tests is not who signs: segregation of duties has its own tests
    # (tests/api/test_segregation_of_duties.py), so one test user may take every step here.
    settings.PIT_SEGREGATION_OF_DUTIES = False


FILTERS = ReportFilters(date_from=DAY, date_to=DAY)


def _play(pit):
    # Opener $37,825 (1,113 x $25 and 100 x $100), closer $10,000, drop $20,000 in notes.
    for kind, chips in (("opener", {"2500": 1113, "10000": 100}), ("closer", {"10000": 100})):
        inventory_record(
            table=pit.bb1,
            gaming_day=DAY,
            kind=kind,
            chips=chips,
            dealer=pit.dealer,
            pit_boss=pit.boss,
            actor=pit.actor,
        )
    drop_record(table=pit.bb1, gaming_day=DAY, cash={"10000": 200}, actor=pit.actor)


def test_win_to_drop_is_rounded_half_up_everywhere(pit):
    _play(pit)
    # From the rows: win = drop + closer - opener (no slips).
    counts = {count.kind: count.total_minor for count in InventoryCount.objects.all()}
    drop = DropCount.objects.get().total_minor
    win = drop + counts["closer"] - counts["opener"]
    assert (win, drop) == (-782500, 2000000)
    assert Decimal(win) / Decimal(drop) == Decimal("-0.39125")

    body = json.loads(b"".join(json_chunks(MASTER_GAME, FILTERS)))
    assert body["rows"][0]["hold"] == "-39.13"
    assert body["totals"][0]["hold"] == "-39.13"
    assert body["rows"][0]["win"] == "-7825.00"
    header, first = b"".join(csv_chunks(MASTER_GAME, FILTERS)).decode().splitlines()[:2]
    assert dict(zip(header.removeprefix("\ufeff").split(","), first.split(","), strict=True))["Win-to-drop %"] == (
        "-39.13"
    )
    out = io.BytesIO()
    xlsx_write(MASTER_GAME, FILTERS, out)
    sheet = openpyxl.load_workbook(io.BytesIO(out.getvalue())).worksheets[0]
    labels = [cell.value for cell in sheet[1]]
    cell = sheet[2][labels.index("Win-to-drop %")]
    assert (Decimal(str(cell.value)), cell.number_format) == (Decimal("-0.3913"), "0.00%")
    summary = report_summary(MASTER_GAME, FILTERS)
    assert {figure["label"]: figure["cells"][0] for figure in summary["figures"]}["Win-to-drop %"] == ("-39.13 %")
