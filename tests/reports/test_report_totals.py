"""Every subtotal and total of the reports, recomputed from the rows in the database (wagers, the
ledger, the reconciliations), never from the report code: two currencies whose table codes
interleave, one of them without cents."""

from collections import Counter, defaultdict
from decimal import Decimal

from pit.core.money import from_minor, to_minor
from pit.ledger.models import CommissionEntry, EntryKind, ReconciliationSeat
from pit.reports.catalog import COMMISSION, TABLE_RESULTS
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.models import ShoeStatus, Wager
from tests.reports.conftest import DAY_1, DAY_2
from tests.reports.mixed_pit import mixed_pit  # noqa: F401
from tests.reports.test_table_results import deducted_of, reversed_of

FILTERS = ReportFilters(DAY_1, DAY_2)


def _groups(lines, kind):
    """(the subtotal or total line, the detail lines it closes) for each line of `kind`."""
    pending, groups = [], []
    for line in lines:
        if line.is_detail:
            pending.append(line.values)
        elif line.kind == kind:
            groups.append((line.values, pending))
            pending = []
    return groups


def _wager_sums():
    """(gaming day, currency) -> handle, payouts, commission, stakes lost, house win; in minor units."""
    sums = defaultdict(Counter)
    for wager in Wager.objects.select_related("coup__shoe__table", "coup__paytable"):
        key = (wager.coup.gaming_day, wager.coup.shoe.table.currency)
        lost = wager.amount_minor if wager.result == "lose" else 0
        deducted = to_minor(deducted_of(wager), wager.currency)
        reversed_ = to_minor(reversed_of(wager), wager.currency)
        sums[key].update(
            handle=wager.amount_minor,
            payouts=wager.payout_minor + deducted,
            commission=wager.commission_minor + deducted - reversed_,
            lost=lost,
            house_win=lost - wager.payout_minor + wager.commission_minor - reversed_,
            wagers=1,
            overpaid=max((wager.paid_minor or 0) - wager.payout_minor, 0) if wager.paid_minor is not None else 0,
            underpaid=max(wager.payout_minor - wager.paid_minor, 0) if wager.paid_minor is not None else 0,
        )
    return sums


def test_each_day_subtotal_closes_exactly_the_rows_of_its_day_and_currency(mixed_pit):  # noqa: F811
    lines = list(report_lines(TABLE_RESULTS, FILTERS))
    subtotals = _groups(lines, "day subtotal")
    keys = [(values["gaming_day"], values["currency"]) for values, _ in subtotals]
    # One subtotal per (day, currency), though USD's A1 and C1 sort either side of JPY's B1.
    assert keys == [(DAY_1, "JPY"), (DAY_1, "USD"), (DAY_2, "JPY")]
    expected = _wager_sums()
    assert set(keys) == set(expected)
    for values, rows in subtotals:
        key = (values["gaming_day"], values["currency"])
        assert {(row["gaming_day"], row["currency"]) for row in rows} == {key}
        currency = key[1]
        for column in ("handle", "payouts", "commission", "lost", "house_win", "overpaid", "underpaid"):
            assert values[column] == from_minor(expected[key][column], currency), (key, column)
        assert values["wagers"] == expected[key]["wagers"]
        assert values["hold"] == Decimal(expected[key]["house_win"]) / Decimal(expected[key]["handle"])
    usd = next(values for values, _ in subtotals if values["currency"] == "USD")
    assert (usd["overpaid"], usd["underpaid"]) == (Decimal("25.00"), Decimal("0.00"))
    yen = next(values for values, _ in subtotals if values["currency"] == "JPY")
    assert str(yen["commission"]) == "177" and str(yen["handle"]) == "4330"  # whole yen, no cents
    totals = {values["currency"]: values for values in (line.values for line in lines if line.kind == "total")}
    for currency in ("USD", "JPY"):
        handle = sum(sums["handle"] for (_, code), sums in expected.items() if code == currency)
        win = sum(sums["house_win"] for (_, code), sums in expected.items() if code == currency)
        assert (totals[currency]["handle"], totals[currency]["house_win"]) == (
            from_minor(handle, currency),
            from_minor(win, currency),
        )


def test_commission_lines_add_across_and_dealing_shoes_stand_apart(mixed_pit):  # noqa: F811
    lines = list(report_lines(COMMISSION, FILTERS))
    for line in lines:
        values = line.values
        assert values["accrued"] - values["collected_at_departure"] == values["expected"], line
        if values["section"] == "Still dealing":
            assert values["counted"] is None and values["variance"] is None, line
        else:
            assert values["expected"] + values["variance"] == values["counted"], line
    details = [line.values for line in lines if line.is_detail]
    assert [row["section"] for row in details] == sorted(
        (row["section"] for row in details), key=["Closed shoes", "Still dealing"].index
    )
    totals = {(line.values["section"], line.values["currency"]): line.values for line in lines if line.kind == "total"}
    assert list(totals) == [("Closed shoes", "JPY"), ("Closed shoes", "USD"), ("Still dealing", "USD")]
    # Reconciled totals: the reconciliations' own seat figures, per currency.
    seats = defaultdict(Counter)
    for seat in ReconciliationSeat.objects.select_related("reconciliation"):
        seats[seat.reconciliation.currency].update(
            expected=seat.expected_minor, counted=seat.counted_minor, variance=seat.variance_minor
        )
    for currency in ("JPY", "USD"):
        total = totals[("Closed shoes", currency)]
        for column in ("expected", "counted", "variance"):
            assert total[column] == from_minor(seats[currency][column], currency), (currency, column)
    assert (totals[("Closed shoes", "JPY")]["variance"], totals[("Closed shoes", "USD")]["variance"]) == (
        from_minor(3, "JPY"),
        from_minor(-100, "USD"),
    )
    # What the dealing shoe owes so far: its accruals in the ledger, nothing counted.
    owed = sum(
        CommissionEntry.objects.filter(shoe__status=ShoeStatus.DEALING, kind=EntryKind.ACCRUED).values_list(
            "amount_minor", flat=True
        )
    )
    dealing = totals[("Still dealing", "USD")]
    assert (dealing["expected"], dealing["counted"], dealing["variance"]) == (from_minor(owed, "USD"), None, None)
    assert owed == 1000


def test_estimates_count_the_rows_a_background_export_writes(mixed_pit):  # noqa: F811
    """Progress reaches the estimate exactly, for every report: the commission estimate once
    counted box counts, missing the seats of a shoe still dealing."""
    from pit.reports.catalog import REPORTS

    for report in REPORTS.values():
        written = sum(1 for line in report_lines(report, FILTERS) if line.is_detail)
        assert report.estimate(FILTERS) == written, report.slug
    assert COMMISSION.estimate(FILTERS) == 5  # A1 seats 1, 2; the dealing shoe's seat 1; B1 seats 1, 2
