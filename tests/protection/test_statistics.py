"""Game protection's statistics stay pure (no Django, no database) and give exact values."""

import datetime as dt
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from pathlib import Path

from pit.game.money import decimal_sqrt
from pit.protection.checks.rows import WagerRow
from pit.protection.statistics import (
    SideBetDay,
    deviation_totals,
    hours_over,
    seat_chances,
    z_score,
)

REPO = Path(__file__).resolve().parents[2]


def test_importing_the_statistics_loads_no_framework():
    check = (
        "import pit.protection.statistics, sys; "
        "frameworks = {'django', 'rest_framework', 'celery', 'psycopg'}; "
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in frameworks); "
        "assert not loaded, loaded"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=REPO, capture_output=True, text=True, env={"PYTHONPATH": str(REPO)}
    )
    assert result.returncode == 0, result.stderr


def test_square_root_and_z_score_to_34_digits():
    assert decimal_sqrt(Decimal(2)) == Decimal("1.414213562373095048801688724209698")
    assert z_score(130, Decimal(100), Decimal(225)) == (Decimal(2), Decimal(15))


def wager(pk, coup_id, seat, bet, amount, payout, commission, result):
    return WagerRow(pk, coup_id, seat, bet, "USD", amount, None, payout, commission, result, None)


def test_deviation_totals_add_up_per_day_table_and_seat_with_the_spread_per_coup():
    day = dt.date(2026, 3, 1)
    edges = {7: {"banker": (Decimal("0.01"), Decimal("0.9")), "player": (Decimal("0.012"), Decimal("1"))}}
    rows = [
        wager(1, 10, 1, "banker", 1000, 950, 0, "win"),
        wager(2, 10, 2, "player", 500, 0, 0, "lose"),
        wager(3, 11, 1, "banker", 1000, 0, 0, "lose"),
    ]

    totals = deviation_totals(rows, {10: (day, 7), 11: (day, 7)}, edges=edges, products={}, lose="lose")

    seat1, seat2, table = totals[day][1], totals[day][2], totals[day][None]
    assert seat1 == [-950 + 1000, Decimal("20.00"), Decimal(900) ** 2 * 2, 2]
    assert seat2 == [500, Decimal("6.000"), Decimal(500) ** 2, 1]
    # The table's spread per coup is the sum of its wagers' (they move together), squared.
    assert table == [550, Decimal("26.000"), Decimal(1400) ** 2 + Decimal(900) ** 2, 3]


def test_a_seats_side_bets_get_each_bets_share_of_positive_coups():
    day = SideBetDay()
    day.add_coup({"tie": True, "player_pair": False})
    day.add_coup({"tie": False, "player_pair": False})
    day.add_wager(3, "tie", 101, True)
    day.add_wager(3, "player_pair", 102, False)
    other = SideBetDay()
    other.add_coup({"tie": True})
    other.add_wager(3, "tie", 103, True)
    day.add(other)

    assert day.chance() == {"tie": 2 / 3, "player_pair": 0.0}
    assert day.hits == {3: [101, 103]} and day.bets == {3: Counter({"tie": 2, "player_pair": 1})}
    assert seat_chances(day.bets[3], day.chance()) == [0.0, 2 / 3, 2 / 3]


def test_hours_over_names_the_first_coup_over_in_each_clock_hour():
    start = dt.datetime(2026, 3, 1, 10, 50, tzinfo=dt.UTC)
    coups = [(pk, start + dt.timedelta(minutes=4 * pk)) for pk in range(1, 9)]  # 10:54 .. 11:22

    over = hours_over(coups, own={2, 3, 4, 5, 6, 7, 8}, maximum=2, hour=dt.timedelta(hours=1))

    assert over == [(3, 3, "2026-03-01T11")]
    assert hours_over(coups, own={1, 2}, maximum=2, hour=dt.timedelta(hours=1)) == []
