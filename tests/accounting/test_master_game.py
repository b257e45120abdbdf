"""The statutory win and the master game report: the formula, shifts, and totals that tie to the
recorded counts and slips, recomputed here from the rows (not through the report's code)."""

import datetime as dt
import io
import json
from collections import defaultdict
from decimal import Decimal

import openpyxl
import pytest

from pit.accounting.models import CountKind, DropCount, InventoryCount, SlipKind, SlipStep
from pit.accounting.selectors import period_figures, statutory_win_minor
from pit.accounting.services import inventory_record, slip_request
from pit.reports.accounting import MASTER_GAME
from pit.reports.catalog import REPORTS, TABLE_RESULTS
from pit.reports.definitions import ReportFilters, report_lines
from pit.reports.renderers import csv_chunks, json_chunks, xlsx_write
from tests import factories
from tests.accounting.conftest import DAY, day_of_play

pytestmark = pytest.mark.django_db

DAY2 = DAY + dt.timedelta(days=1)
OCTOBER = dt.date(2026, 10, 30)
D = Decimal


def test_the_formula():
    # The worked example of docs/guides/accountant.md:
    # drop 5,550 + closer 4,000 + credits 500 - opener 4,000 - fills 3,000.
    assert statutory_win_minor(drop=555000, closer=400000, credits=50000, opener=400000, fills=300000) == 305000
    assert statutory_win_minor(drop=0, closer=100, credits=0, opener=300, fills=0) == -200


@pytest.fixture
def played(pit, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        shoe = factories.shoe(pit.bb1)
        at = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
        factories.coup(
            shoe,
            1,
            ["2H", "KD"],
            ["8C", "KS"],
            dealt_at=at,
            wagers=[factories.wager(1, "banker", "100"), factories.wager(2, "player", "300")],
        )
    day_of_play(pit, pit.bb1, OCTOBER, opener=50, closer=50, drop=10)
    day_of_play(pit, pit.bb1, DAY, opener=50, closer=40, fills=[20], credits=[5], drop=30)
    day_of_play(pit, pit.mb1, DAY, opener=20, closer=22, fills=[10], drop=4)
    day_of_play(pit, pit.bb1, DAY2, opener=40, closer=60, credits=[10], drop=15)
    # A fill requested on DAY2 and never received does not count in the win.
    slip_request(
        kind="fill", number="lost", table=pit.bb1, gaming_day=DAY2, reason="tray", chips={"10000": 7}, actor=pit.actor
    )
    return pit


def recomputed() -> dict[tuple, int]:
    """(day, table code) -> statutory win in cents, straight from the recorded rows."""
    parts = defaultdict(int)
    for count in InventoryCount.objects.select_related("table"):
        sign = 1 if count.kind == CountKind.CLOSER else -1
        parts[count.gaming_day, count.table.code] += sign * count.total_minor
    for step in SlipStep.objects.filter(step="received").select_related("slip__table"):
        sign = 1 if step.slip.kind == SlipKind.CREDIT else -1
        parts[step.slip.gaming_day, step.slip.table.code] += sign * step.total_minor
    for drop in DropCount.objects.select_related("table"):
        parts[drop.gaming_day, drop.table.code] += drop.total_minor
    return dict(parts)


def test_master_game_rows_and_totals_tie_to_the_records(played):
    lines = list(report_lines(MASTER_GAME, ReportFilters(date_from=DAY, date_to=DAY2)))
    wins = recomputed()
    cents = Decimal("0.01")
    details = [line.values for line in lines if line.kind == "detail"]
    assert [(row["gaming_day"], row["game"], row["table"]) for row in details] == [
        (DAY, "Big baccarat", "BB1"),
        (DAY, "Mini baccarat", "MB1"),
        (DAY2, "Big baccarat", "BB1"),
    ]
    for row in details:
        assert row["win"] == wins[row["gaming_day"], row["table"]] * cents
        assert row["status"] == "complete"
    bb1 = details[0]
    # In $100 chips: drop 30 + closer 40 + credits 5 - opener 50 - fills 20 = 5, so $500.
    assert (bb1["opener"], bb1["closer"], bb1["fills"], bb1["credits"], bb1["drop"], bb1["win"]) == (
        D("5000.00"),
        D("4000.00"),
        D("2000.00"),
        D("500.00"),
        D("3000.00"),
        D("500.00"),
    )
    assert bb1["hold"] == D("500.00") / D("3000.00")
    # Beside it, pit's own figures for the table and day, as the table results report has them.
    results = next(
        line.values
        for line in report_lines(TABLE_RESULTS, ReportFilters(date_from=DAY, date_to=DAY))
        if line.kind == "detail"
    )
    assert (bb1["house_win"], bb1["theoretical_win"], bb1["commission"]) == (
        results["house_win"],
        results["theoretical_win"],
        results["commission"],
    )
    assert bb1["win_difference"] == bb1["win"] - results["house_win"]
    # Month to date and year to date: October counts in the year only.
    day2 = details[2]
    assert day2["win_mtd"] == (wins[DAY, "BB1"] + wins[DAY2, "BB1"]) * cents
    assert day2["win_ytd"] == (wins[OCTOBER, "BB1"] + wins[DAY, "BB1"] + wins[DAY2, "BB1"]) * cents
    assert day2["drop_mtd"] == D("4500.00")
    # Subtotals per game and per day (the pit), and the grand total.
    subtotal = {
        (line.kind, line.values["gaming_day"], line.values["game"]): line.values
        for line in lines
        if line.kind != "detail" and line.kind != "total"
    }
    assert subtotal["day subtotal", DAY, None]["win"] == (wins[DAY, "BB1"] + wins[DAY, "MB1"]) * cents
    assert subtotal["day subtotal", DAY, None]["win_mtd"] == (wins[DAY, "BB1"] + wins[DAY, "MB1"]) * cents
    assert subtotal["game subtotal", DAY, "Mini baccarat"]["win"] == wins[DAY, "MB1"] * cents
    total = lines[-1].values
    assert lines[-1].kind == "total"
    in_range = [wins[key] for key in wins if DAY <= key[0] <= DAY2]
    assert total["win"] == sum(in_range) * cents
    assert total["drop"] == D("4900.00")
    assert total["hold"] == total["win"] / total["drop"]
    assert total["win_mtd"] is None  # to-date figures never add up across days


def test_incomplete_day_shows_what_is_missing(pit):
    inventory_record(
        table=pit.bb1,
        gaming_day=DAY,
        kind="opener",
        chips={"10000": 5},
        dealer=pit.dealer,
        pit_boss=pit.boss,
        secrets=pit.secrets,
        actor=pit.actor,
    )
    row = next(line.values for line in report_lines(MASTER_GAME, ReportFilters(date_from=DAY, date_to=DAY)))
    assert (row["status"], row["opener"], row["win"], row["hold"]) == ("missing closer, drop", D("500.00"), None, None)


def test_shifts_add_up_to_the_day(pit, settings):
    settings.PIT_ACCOUNTING_SHIFT_HOURS = 8
    day_of_play(pit, pit.bb1, DAY, opener=50, closer=45, fills=[5], drop=12, shift=1)
    day_of_play(pit, pit.bb1, DAY, opener=45, closer=50, credits=[2], drop=3, shift=2)
    by_shift = period_figures(date_from=DAY, date_to=DAY, by_shift=True)
    # Shift 1: 12 + 45 + 0 - 50 - 5 = 2 chips of $100; shift 2: 3 + 50 + 2 - 45 - 0 = 10 chips.
    assert {key[2]: item.win for key, item in by_shift.items()} == {1: 20000, 2: 100000}
    day = period_figures(date_from=DAY, date_to=DAY)[DAY, pit.bb1.pk, 0]
    assert day.win == sum(item.win for item in by_shift.values())


def test_the_report_is_in_the_catalog_in_every_format(played):
    assert REPORTS["master-game"] is MASTER_GAME
    filters = ReportFilters(date_from=DAY, date_to=DAY)
    body = json.loads(b"".join(json_chunks(MASTER_GAME, filters)))
    detail = body["rows"][0]
    assert (detail["table"], detail["win"], detail["hold"]) == ("BB1", "500.00", "16.67")
    csv_text = b"".join(csv_chunks(MASTER_GAME, filters)).decode()
    assert "Statutory win" in csv_text.splitlines()[0]
    out = io.BytesIO()
    xlsx_write(MASTER_GAME, filters, out)
    sheet = openpyxl.load_workbook(io.BytesIO(out.getvalue())).active
    header = [cell.value for cell in sheet[1]]
    first = dict(zip(header, (cell.value for cell in sheet[2]), strict=True))
    assert (first["Table"], first["Statutory win"], first["Drop"]) == ("BB1", 500, 3000)
