"""The compliance officer's cash exports: what the MTL export expects to write."""

from pit.reports.cash import MTL
from pit.reports.definitions import ReportFilters
from tests.cash.conftest import DAY, buy, cage, seated


def test_the_mtl_estimate_counts_the_transactions_over_the_threshold_only(floor):
    patron = floor["patrons"][0]
    cage("chip_purchase", "3000.01", patron=patron)  # logged
    cage("chip_purchase", "3000", patron=patron, minutes=2)  # not over $3,000
    cage("chip_redemption", "250", patron=patron, minutes=3)
    buy(seated(floor["bb1"], 1, description="man, grey suit"), "4500")  # logged
    cage("chip_purchase", "9000", patron=patron, day_offset=1)  # the next day, outside the filters
    filters = ReportFilters(date_from=DAY, date_to=DAY)
    assert MTL.estimate(filters) == 2 == len(list(MTL.rows(filters)))
