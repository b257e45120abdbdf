"""Table limits: minimum, maximum, increments and a seat on both sides, with the words a pit boss reads."""

from decimal import Decimal

import pytest

from pit.game import PRESETS, BetLimit, TableLimits, Violation, WagerLine, check_wager_limits

D = Decimal
LIMITS = TableLimits(
    {
        "player": BetLimit(D("25"), D("5000")),
        "banker": BetLimit(D("25"), D("5000"), D("5")),
        "tie": BetLimit(D("5"), D("500")),
    }
)


def codes(found):
    return [v.code for v in found]


def test_wagers_within_limits():
    wagers = [
        WagerLine(1, "player", D("100")),
        WagerLine(2, "banker", D("5000")),
        WagerLine(1, "tie", D("5")),
    ]
    assert check_wager_limits(LIMITS, wagers) == []
    assert check_wager_limits(LIMITS, []) == []


def test_over_maximum():
    assert check_wager_limits(LIMITS, [WagerLine(3, "player", D("5000.01"))]) == [
        Violation(
            "wager_over_maximum",
            "Seat 3 bet 5,000.01 on Player; the table maximum for Player is 5,000.00.",
            "medium",
        )
    ]


def test_under_minimum():
    assert check_wager_limits(LIMITS, [WagerLine("7", "tie", D("2.50"))]) == [
        Violation("wager_under_minimum", "Seat 7 bet 2.50 on Tie; the table minimum for Tie is 5.00.", "low")
    ]


def test_banker_off_increment():
    found = check_wager_limits(LIMITS, [WagerLine(5, "banker", D("27"))])
    assert found == [
        Violation("wager_off_increment", "Seat 5 bet 27.00 on Banker; Banker bets go in increments of 5.00.", "low")
    ]


def test_paytable_increments_apply_too():
    limits = TableLimits({"banker": BetLimit(D("5"), D("1000"))})
    increments = PRESETS["mini_commission_box"].bet_increments
    assert codes(check_wager_limits(limits, [WagerLine(1, "banker", D("12"))], increments)) == ["wager_off_increment"]
    assert check_wager_limits(limits, [WagerLine(1, "banker", D("15"))], increments) == []
    # A bet with an increment but no limits is still checked for the increment.
    assert codes(check_wager_limits(TableLimits(), [WagerLine(1, "banker", D("12"))], increments)) == [
        "wager_off_increment"
    ]


def test_a_seat_on_both_sides():
    wagers = [
        WagerLine(1, "player", D("100")),
        WagerLine(2, "player", D("50")),
        WagerLine(1, "banker", D("100")),
    ]
    assert check_wager_limits(LIMITS, wagers) == [
        Violation(
            "seat_bet_both_sides",
            "Seat 1 bet on both Player (100.00) and Banker (100.00) in the same coup.",
            "medium",
        )
    ]


def test_a_seats_lines_on_one_bet_add_up():
    wagers = [WagerLine(1, "player", D("3000")), WagerLine(1, "player", D("2500"))]
    assert [v.message for v in check_wager_limits(LIMITS, wagers)] == [
        "Seat 1 bet 5,500.00 on Player; the table maximum for Player is 5,000.00."
    ]


def test_every_problem_at_once_in_order():
    wagers = [
        WagerLine(1, "banker", D("6002")),
        WagerLine(1, "player", D("10")),
        WagerLine(2, "dragon_7", D("1")),  # no limit configured: not checked
    ]
    assert codes(check_wager_limits(LIMITS, wagers)) == [
        "wager_over_maximum",
        "wager_off_increment",
        "wager_under_minimum",
        "seat_bet_both_sides",
    ]


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: BetLimit(D("100"), D("10")), ValueError),
        (lambda: BetLimit(D("-1"), D("10")), ValueError),
        (lambda: BetLimit(D("1"), D("10"), D("0")), ValueError),
        (lambda: WagerLine(1, "player", 10.5), TypeError),
        (lambda: WagerLine(1, "player", "lots"), ValueError),
    ],
)
def test_bad_limits_and_wagers(make, error):
    with pytest.raises(error):
        make()
