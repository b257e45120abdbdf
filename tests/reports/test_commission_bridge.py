"""When the commission report and table results legitimately differ, both show the bridge between
them, and it closes exactly. A shoe dealt across the start of a gaming day: its first coup's
commission is table results' on 2 Nov, its second's on 3 Nov, and all of it is the commission
report's on 3 Nov (the day of its last coup). Every figure is recomputed from the rows in the
database (wagers, the ledger, the coups), never from the report code."""

import datetime as dt
from collections import defaultdict
from decimal import Decimal

import pytest

from pit.ledger.models import CommissionEntry, EntryKind
from pit.reports.catalog import COMMISSION, TABLE_RESULTS
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.models import Coup, Wager
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, at
from tests.reports.test_table_results import deducted_of

D = Decimal


@pytest.fixture
def across(pit, django_capture_on_commit_callbacks):
    """BB2's shoe 1: coup 1 at 23:30 on 2 Nov (gaming day 2 Nov), coup 2 at 06:30 on 3 Nov (gaming
    day 3 Nov, which starts at 06:00); Banker wins both, 10.00 and 5.00 of commission owed."""
    with django_capture_on_commit_callbacks(execute=True):
        table = factories.table("BB2", game="big", preset="commission_box")
        shoe = factories.shoe(table, shuffled_at=at(DAY_1, 23))
        factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "200")], dealt_at=at(DAY_1, 23, 30))
        factories.coup(shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY_2, 6, 30))
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, closed_at=at(DAY_2, 7), box_counts=[(1, D("15.00"))])
    assert list(Coup.objects.filter(shoe=shoe).values_list("gaming_day", flat=True)) == [DAY_1, DAY_2]
    return shoe


def _independent(first: dt.date, last: dt.date) -> dict[str, D]:
    """From the rows: ledger commission (accruals net of their reversals) by the coup's day and by
    the shoe's day (its last coup's), what crosses the range's edges, and what was deducted."""
    shoe_day = {}
    for coup in Coup.objects.order_by("shoe_id", "number"):
        shoe_day[coup.shoe_id] = coup.gaming_day  # the last by number wins
    figures = defaultdict(D)
    for entry in CommissionEntry.objects.select_related("wager__coup", "reverses__wager__coup"):
        accrual = entry if entry.kind == EntryKind.ACCRUED else entry.reverses
        if accrual is None or accrual.kind != EntryKind.ACCRUED:
            continue
        amount = D(entry.amount_minor) / 100
        coup_in = first <= accrual.wager.coup.gaming_day <= last
        shoe_in = first <= shoe_day[entry.shoe_id] <= last
        figures["by_coup_day"] += amount if coup_in else 0
        figures["by_shoe_day"] += amount if shoe_in else 0
        figures["out"] += amount if coup_in and not shoe_in else 0
        figures["in"] += amount if shoe_in and not coup_in else 0
    figures["deducted"] = sum(
        (deducted_of(item) for item in Wager.objects.filter(coup__gaming_day__range=(first, last))), D(0)
    )
    return figures


def _bridge(report, first, last):
    lines = list(report_lines(report, ReportFilters(first, last)))
    totals = [line.values for line in lines if line.kind == "total"]
    bridge = [line.values for line in lines if line.kind == "bridge"]
    return totals, bridge


@pytest.mark.parametrize(
    ("first", "last", "out", "in_"),
    [(DAY_1, DAY_1, D("10.00"), D("0.00")), (DAY_2, DAY_2, D("0.00"), D("10.00"))],
)
def test_a_shoe_dealt_across_the_day_bridges_table_results_to_the_commission_report(across, first, last, out, in_):
    expected = _independent(first, last)
    assert (expected["out"], expected["in"]) == (out, in_)

    totals, bridge = _bridge(TABLE_RESULTS, first, last)
    (total,) = totals  # USD only
    amounts = [line["commission"] for line in bridge]
    assert [line["table"] for line in bridge] == [
        "Commission in this report (by the coup's gaming day)",
        "less: deducted from payouts (never in the commission ledger)",
        "less: on coups of shoes the commission report files on another day",
        "plus: on coups outside the range of shoes it files in the range",
        "Equals: accrued in the commission report (by the shoe's gaming day)",
        "Unexplained difference",
    ]
    assert {line["currency"] for line in bridge} == {"USD"}
    assert amounts[:5] == [total["commission"], -expected["deducted"], -out, in_, expected["by_shoe_day"]]
    assert total["commission"] == expected["by_coup_day"] + expected["deducted"]
    assert sum(amounts[:4]) == amounts[4] and amounts[5] == 0  # it closes exactly

    commission_totals, commission_bridge = _bridge(COMMISSION, first, last)
    accrued = sum(line["accrued"] for line in commission_totals)  # closed shoes and shoes still dealing
    assert accrued == expected["by_shoe_day"] == amounts[4]
    steps = [line["accrued"] for line in commission_bridge]
    assert [line["explanation"] for line in commission_bridge] == [
        "Accrued in this report (by the shoe's gaming day)",
        "less: on coups dealt on a day outside the range",
        "plus: on coups in the range of shoes filed on another day",
        "Equals: on the coups of the range (table results' commission less deducted)",
        "Unexplained difference",
    ]
    assert steps == [accrued, -in_, out, expected["by_coup_day"], 0]
    assert expected["by_coup_day"] == total["commission"] - expected["deducted"]


def test_no_bridge_when_the_reports_agree(across):
    """Both days: every coup and every shoe of BB2 is in the range, nothing crosses an edge; the
    commission report has nothing to bridge, table results only MB1's deducted commission."""
    _, commission_bridge = _bridge(COMMISSION, DAY_1, DAY_2)
    assert commission_bridge == []
    totals, bridge = _bridge(TABLE_RESULTS, DAY_1, DAY_2)
    amounts = [line["commission"] for line in bridge]
    expected = _independent(DAY_1, DAY_2)
    assert amounts == [totals[0]["commission"], -expected["deducted"], 0, 0, expected["by_shoe_day"], 0]
    assert expected["deducted"] == D("5.00")


def test_a_shoe_is_filed_under_its_last_coup_by_number_not_its_latest_day(pit, django_capture_on_commit_callbacks):
    """The last coup is the highest number, even when the floor's clock put it on an earlier day than
    the coup before (the integer key of `shoes_in_range` orders by number first)."""
    with django_capture_on_commit_callbacks(execute=True):
        table = factories.table("BB3", game="big", preset="commission_box")
        shoe = factories.shoe(table, shuffled_at=at(DAY_1, 9))
        factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY_2, 9))
        factories.coup(shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY_1, 9, 30))

    def shoes(day):
        lines = report_lines(COMMISSION, ReportFilters(day, day, tables=("BB3",)))
        return [(line.values["shoe"], line.values["gaming_day"]) for line in lines if line.kind == "detail"]

    assert (shoes(DAY_1), shoes(DAY_2)) == ([(1, DAY_1)], [])
