"""The box variance says one thing everywhere: counted - expected, a short box negative, with
"over" / "short" beside the number in the exports and on the ledger's screens. Figures are
recomputed from the reconciliation's rows, not through the report's code."""

import json

from pit.core.money import VARIANCE_RULE, variance_label
from pit.ledger.models import ReconciliationSeat
from pit.reports.catalog import COMMISSION
from pit.reports.definitions import ReportFilters
from pit.reports.renderers import json_chunks
from tests.reports.conftest import DAY_1, DAY_2

FILTERS = ReportFilters(DAY_1, DAY_2)


def test_the_rule_and_its_words():
    assert VARIANCE_RULE == "variance = counted - expected: over is positive, short is negative"
    assert (variance_label(-500), variance_label(200), variance_label(0), variance_label(None)) == (
        "short",
        "over",
        "balanced",
        "",
    )


def test_exports_show_a_short_box_negative_and_say_short(pit):
    seats = {
        (line.reconciliation.shoe.sequence, line.seat): line.counted_minor - line.expected_minor
        for line in ReconciliationSeat.objects.select_related("reconciliation__shoe").filter(
            reconciliation__shoe__table=pit.bb1
        )
    }
    assert seats[1, 5] == -500  # seat 5 held 5.00 less than the ledger said
    body = json.loads(b"".join(json_chunks(COMMISSION, FILTERS)))
    label = {column["key"]: column["label"] for column in body["columns"]}
    assert label["variance"] == "Variance (counted - expected)" and label["over_short"] == "Over / short"
    details = {(row["shoe"], row["seat"]): row for row in body["rows"] if row["line"] == "detail"}
    for (shoe, seat), minor in seats.items():
        row = details[shoe, seat]
        assert (row["variance"], row["over_short"]) == (f"{minor / 100:.2f}", variance_label(minor))
    assert (details[1, 5]["variance"], details[1, 5]["over_short"]) == ("-5.00", "short")
    shoe_1 = next(row for row in body["rows"] if row["line"] == "shoe subtotal" and row["shoe"] == 1)
    assert (shoe_1["variance"], shoe_1["over_short"]) == ("-5.00", "short")
    closed = next(row for row in body["totals"] if row["section"] == "Closed shoes")
    assert (closed["variance"], closed["over_short"]) == (f"{sum(seats.values()) / 100:.2f}", "short")


def test_the_ledger_screens_say_short_beside_the_number(pit, admin_client):
    reconciliation = pit.shoe_a.reconciliation
    page = admin_client.get(f"/admin/ledger/reconciliation/{reconciliation.pk}/change/").content.decode()
    assert "variance (counted - expected)" in page.lower()
    assert '<span class="pit-money pit-money-negative">-$5.00</span> short' in page
    listing = admin_client.get("/admin/ledger/reconciliation/").content.decode()
    assert "-$5.00</span> short" in listing
