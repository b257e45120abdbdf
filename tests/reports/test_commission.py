"""The commission report and the ledger detail: every figure against sums taken from the ledger."""

import datetime as dt
from collections import defaultdict
from decimal import Decimal

from pit.core.money import from_minor
from pit.ledger.models import BoxCount, CollectionReason, CommissionEntry, EntryKind
from pit.reports.catalog import COMMISSION, COMMISSION_DETAIL
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.models import Shoe
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, at

D = Decimal


def lines(report, **filters):
    filters.setdefault("date_from", DAY_1)
    filters.setdefault("date_to", DAY_2)
    return list(report_lines(report, ReportFilters(**filters)))


def details(all_lines):
    return [line.values for line in all_lines if line.kind == "detail"]


def ledger_by_seat(shoes):
    """(shoe id, seat) -> figures, summed in Python from the ledger's rows (not the report's SQL)."""
    figures = defaultdict(lambda: defaultdict(int))
    for entry in CommissionEntry.objects.filter(shoe__in=shoes).select_related("reverses"):
        source = entry.reverses if entry.kind == EntryKind.REVERSAL else entry
        if source.kind == EntryKind.ACCRUED:
            bucket = "accrued"
        elif source.collection_reason == CollectionReason.PLAYER_LEFT:
            bucket = "departure"
        else:
            bucket = "shuffle"
        figures[(entry.shoe_id, entry.seat)][bucket] += entry.amount_minor
        if source.kind == EntryKind.ACCRUED:  # a reversed accrual's wager is no longer counted
            figures[(entry.shoe_id, entry.seat)]["wagers"] += 1 if entry.kind == EntryKind.ACCRUED else -1
    for count in BoxCount.objects.filter(shoe__in=shoes):
        figures[(count.shoe_id, count.seat)]["counted"] += count.counted_minor
    return figures


def test_commission_rows_match_the_ledger_seat_by_seat(pit):
    rows = details(lines(COMMISSION))
    expected = ledger_by_seat([pit.shoe_a, pit.shoe_b])
    assert [(row["shoe"], row["seat"]) for row in rows] == [(1, 1), (1, 2), (1, 3), (1, 5), (2, 1)]
    shoes = {1: pit.shoe_a.pk, 2: pit.shoe_b.pk}
    for row in rows:
        seat = expected[(shoes[row["shoe"]], row["seat"])]
        assert row["accrued"] == from_minor(seat["accrued"], "USD")
        assert row["collected_at_departure"] == from_minor(-seat["departure"], "USD")
        assert row["expected"] == from_minor(seat["accrued"] + seat["departure"], "USD")
        assert row["counted"] == from_minor(seat["counted"], "USD")
        assert row["variance"] == row["counted"] - row["expected"]
        assert row["collected_at_shuffle"] == from_minor(-seat["shuffle"], "USD")
        assert row["commission_wagers"] == seat["wagers"]
    # And the figures themselves, worked out by hand: seat 1 owed 5 + 15 less the reversed 5.
    seat_1, seat_2, seat_3, seat_5, shoe_2_seat_1 = rows
    assert (seat_1["accrued"], seat_1["expected"], seat_1["counted"], seat_1["variance"]) == (
        D("15.00"),
        D("15.00"),
        D("15.00"),
        D("0.00"),
    )
    assert (seat_2["accrued"], seat_2["collected_at_departure"], seat_2["expected"]) == (
        D("12.00"),
        D("12.00"),
        D("0.00"),
    )
    assert (seat_3["accrued"], seat_3["counted"]) == (D("0.00"), D("0.00"))
    assert (seat_5["expected"], seat_5["counted"], seat_5["variance"]) == (D("50.00"), D("45.00"), D("-5.00"))
    assert shoe_2_seat_1["accrued"] == D("25.00")
    assert seat_5["status"] == "Variance explained"
    assert seat_5["explained_by"] == "accountant"
    assert seat_5["explanation"] == "A 5.00 chip fell under the rail"
    assert shoe_2_seat_1["status"] == "Balanced" and shoe_2_seat_1["explained_by"] == ""
    assert [row["gaming_day"] for row in rows] == [DAY_1] * 4 + [DAY_2]


def test_commission_subtotals_per_shoe_and_table_and_grand_total(pit):
    all_lines = lines(COMMISSION)
    kinds = [line.kind for line in all_lines]
    assert kinds == [
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
    rows = details(all_lines)
    shoe_1 = all_lines[4].values
    table = all_lines[7].values
    total = all_lines[8].values
    for key in (
        "accrued",
        "collected_at_departure",
        "expected",
        "counted",
        "variance",
        "collected_at_shuffle",
    ):
        assert shoe_1[key] == sum(row[key] for row in rows if row["shoe"] == 1)
        assert table[key] == sum(row[key] for row in rows)
        assert total[key] == table[key]
    # The grand total, straight from the ledger of both shoes.
    ledger = CommissionEntry.objects.filter(shoe__in=[pit.shoe_a, pit.shoe_b])
    accrued = sum(e.amount_minor for e in ledger if e.kind == EntryKind.ACCRUED)
    reversed_ = sum(e.amount_minor for e in ledger if e.kind == EntryKind.REVERSAL)
    assert total["accrued"] == from_minor(accrued + reversed_, "USD") == D("102.00")
    assert total["counted"] == D("85.00")
    assert total["variance"] == D("-5.00")
    assert total["detail_rows"] == 5
    assert (shoe_1["shoe"], shoe_1["status"], shoe_1["explained_by"], shoe_1["seat"]) == (
        1,
        "Variance explained",
        "accountant",
        None,
    )
    assert (table["table"], table["shoe"], table["gaming_day"]) == ("BB1", None, None)


def test_commission_filters(pit):
    only_day_2 = details(lines(COMMISSION, date_from=DAY_2, date_to=DAY_2))
    assert [(row["shoe"], row["seat"]) for row in only_day_2] == [(2, 1)]
    variances = lines(COMMISSION, only_variances=True)
    assert [(line.kind, line.values.get("seat")) for line in variances] == [
        ("detail", 5),
        ("shoe subtotal", None),
        ("table subtotal", None),
        ("total", None),
    ]
    assert variances[-1].values["variance"] == D("-5.00")
    assert details(lines(COMMISSION, tables=("MB1",))) == []
    assert details(lines(COMMISSION, game="mini")) == []
    assert len(details(lines(COMMISSION, tables=("BB1",), game="big"))) == 5
    assert lines(COMMISSION, date_from=dt.date(2026, 10, 1), date_to=dt.date(2026, 10, 31)) == []


def test_a_shoe_reports_under_the_gaming_day_of_its_last_coup(pit, django_capture_on_commit_callbacks):
    # Shuffled on 3 Nov at 23:00, coups before and after the 06:00 start of the 4 Nov gaming day.
    day_3, day_4 = DAY_2, DAY_2 + dt.timedelta(days=1)
    shoe = factories.shoe(pit.bb1, shuffled_at=at(day_3, 23))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(day_3, 23, 30))
    factories.coup(shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(day_4, 6, 30))
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, closed_at=at(day_4, 7), box_counts=[(1, D("10.00"))])
    assert [row["shoe"] for row in details(lines(COMMISSION, date_from=day_3, date_to=day_3))] == [2]
    on_day_4 = details(lines(COMMISSION, date_from=day_4, date_to=day_4))
    assert [(row["shoe"], row["gaming_day"], row["accrued"]) for row in on_day_4] == [(3, day_4, D("10.00"))]


def test_a_shoe_without_coups_reports_under_the_day_it_closed(pit, django_capture_on_commit_callbacks):
    # Closed at 05:00 on 4 Nov: still the 3 Nov gaming day. Its box held 5.00 nobody owed.
    shoe = factories.shoe(pit.bb1, shuffled_at=at(DAY_2, 23))
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, closed_at=at(DAY_2 + dt.timedelta(days=1), 5), box_counts=[(3, D("5.00"))])
    rows = details(lines(COMMISSION, date_from=DAY_2, date_to=DAY_2))
    assert [(row["shoe"], row["seat"], row["expected"], row["counted"], row["variance"]) for row in rows] == [
        (2, 1, D("25.00"), D("25.00"), D("0.00")),
        (3, 3, D("0.00"), D("5.00"), D("5.00")),
    ]
    assert (
        details(lines(COMMISSION, date_from=DAY_2 + dt.timedelta(days=1), date_to=DAY_2 + dt.timedelta(days=1))) == []
    )


def test_a_dealing_shoe_shows_what_it_owes_with_nothing_counted_yet(pit):
    shoe = factories.shoe(factories.table("BB2", game="big"), shuffled_at=at(DAY_1, 12))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(2, "banker", "60")], dealt_at=at(DAY_1, 12, 5))
    (row,) = details(lines(COMMISSION, tables=("BB2",)))
    assert (row["accrued"], row["expected"], row["counted"], row["variance"], row["status"]) == (
        D("3.00"),
        D("3.00"),
        None,
        None,
        "Dealing",
    )


def test_commission_detail_lists_every_ledger_entry_once(pit):
    all_lines = lines(COMMISSION_DETAIL)
    rows = details(all_lines)
    entries = CommissionEntry.objects.filter(shoe__in=[pit.shoe_a, pit.shoe_b])
    assert sorted(row["entry"] for row in rows) == sorted(entry.pk for entry in entries)
    by_id = {entry.pk: entry for entry in entries.select_related("wager__coup")}
    for row in rows:
        entry = by_id[row["entry"]]
        assert row["amount"] == from_minor(entry.amount_minor, "USD")
        assert row["kind"] == entry.kind
        if entry.wager_id:
            assert (row["coup"], row["bet"], row["stake"]) == (
                entry.wager.coup.number,
                "banker",
                entry.wager.amount,
            )
    total = all_lines[-1].values
    # Every seat's balance ends at zero once the shuffle collection is written.
    assert total["amount"] == D("0.00")
    assert total["detail_rows"] == entries.count() == 11
    reversal = next(row for row in rows if row["kind"] == "reversal")
    assert (reversal["reverses"], reversal["note"], reversal["amount"]) == (
        Shoe.objects.get(pk=pit.shoe_a.pk).commission_entries.get(kind="accrued", seat=1, wager__coup__number=1).pk,
        "Seat 1 was comped on coup 1",
        D("-5.00"),
    )


def test_a_reversal_shows_apart_and_the_commission_agrees_with_table_results(pit):
    """The reversed accrual (seat 1, coup 1) shows in its own column, netted in accrued; the seat's
    own box reads from its figures (seat 5 short), and the commission of a shoe dealt within one
    gaming day is the same figure in the commission report and in table results."""
    from pit.reports.catalog import TABLE_RESULTS

    rows = {(row["shoe"], row["seat"]): row for row in details(lines(COMMISSION, tables=("BB1",)))}
    seat_1 = rows[(pit.shoe_a.sequence, 1)]
    reversal = CommissionEntry.objects.get(kind=EntryKind.REVERSAL)
    assert seat_1["reversed"] == from_minor(-reversal.amount_minor, "USD") == D("5.00")
    assert {seat: row["over_short"] for (shoe, seat), row in rows.items() if shoe == pit.shoe_a.sequence} == {
        1: "balanced",
        2: "balanced",
        3: "balanced",
        5: "short",
    }
    results = {
        (row["gaming_day"], row["table"]): row
        for row in (line.values for line in lines(TABLE_RESULTS) if line.is_detail)
    }
    for day in (DAY_1, DAY_2):
        accrued = sum(row["accrued"] for row in rows.values() if row["gaming_day"] == day)
        assert results[(day, "BB1")]["commission"] == accrued
    assert results[(DAY_1, "BB1")]["commission"] == D("77.00")
