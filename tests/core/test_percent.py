"""One rounding rule for every percentage: half away from zero at the stated decimals, never -0."""

from decimal import Decimal

import pytest

from pit.core.percent import percent, percent_of, percent_text, round_percent, rounded_ratio

D = Decimal


@pytest.mark.parametrize(
    ("ratio", "places", "shown"),
    [
        (D("-0.39125"), 2, D("-39.13")),  # half-even would give -39.12
        (D("0.39125"), 2, D("39.13")),
        (D("0.361249"), 2, D("36.12")),
        (D("0.0250005"), 4, D("2.5001")),
        (D("-0.00001"), 2, D("0.00")),  # never -0.00
        (D("0.125"), 0, D("13")),
    ],
)
def test_percent_rounds_half_away_from_zero(ratio, places, shown):
    assert percent(ratio, places) == shown
    assert str(percent(ratio, places)) == str(shown)


def test_the_helpers_share_the_rule():
    assert round_percent(D("-39.125")) == D("-39.13")
    assert percent_of(-313, 800) == D("-39.13")
    assert percent_of(5, 0) is None
    assert percent_text(D("-0.39125")) == "-39.13 %"
    assert percent_text(None) == "—"
    assert rounded_ratio(D("-0.39125")) == D("-0.3913")
