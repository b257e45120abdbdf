"""Table results and the violations report: figures against the wagers, settled again by the engine."""

from collections import defaultdict
from decimal import Decimal, localcontext

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_acknowledge, violation_dismiss
from pit.core.money import from_minor
from pit.ledger.models import CommissionEntry, EntryKind
from pit.reports.catalog import TABLE_RESULTS, VIOLATIONS
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.models import Wager
from tests import factories
from tests.factories import wager as stake
from tests.reports.conftest import DAY_1, DAY_2, PLAYER_NATURAL, at

D = Decimal
CENT = D("0.01")


def lines(report, **filters):
    filters.setdefault("date_from", DAY_1)
    filters.setdefault("date_to", DAY_2)
    return list(report_lines(report, ReportFilters(**filters)))


def sqrt(value: Decimal) -> Decimal:
    with localcontext() as context:
        context.prec = 34
        return value.sqrt()


def engine_edges(rules: dict, decks: int) -> dict[str, dict[str, str]]:
    """The engine's exact odds for a full shoe of `decks` decks, to 16 places (as reports use them)."""
    odds = game.exact_odds(game.Paytable.from_dict(rules), decks)
    return {
        bet: {
            "house_edge": game.fraction_to_decimal(figures.house_edge, 16),
            "variance": game.fraction_to_decimal(figures.variance, 16),
        }
        for bet, figures in odds.bets.items()
    }


def deducted_of(wager) -> Decimal:
    """Commission deducted from a winning wager's payout, settled again by the engine."""
    rules = wager.coup.paytable.rules
    if rules["commission_mode"] != "deducted" or wager.result != "win":
        return D(0)
    evaluation = game.evaluate(game.Coup(player=wager.coup.player_cards, banker=wager.coup.banker_cards))
    return game.settle(game.Paytable.from_dict(rules), wager.bet, wager.amount, evaluation).deducted


def reversed_of(wager) -> Decimal:
    """What the ledger reversed of the wager's commission accrual."""
    entries = CommissionEntry.objects.filter(kind=EntryKind.REVERSAL, reverses__wager=wager)
    return -from_minor(sum(entry.amount_minor for entry in entries), wager.currency)


def expected_results():
    """(gaming day, table) -> figures computed wager by wager in Python, house win by the engine."""
    figures = defaultdict(lambda: defaultdict(D))
    coups = defaultdict(set)
    for wager in Wager.objects.select_related("coup__shoe__table", "coup__paytable"):
        key = (wager.coup.gaming_day, wager.coup.shoe.table.code)
        settlement = game.Settlement(game.BetResult(wager.result), wager.payout, wager.commission)
        edges = engine_edges(wager.coup.paytable.rules, wager.coup.shoe.decks)[wager.bet]
        deducted, reversed_ = deducted_of(wager), reversed_of(wager)
        row = figures[key]
        row["handle"] += wager.amount
        row[f"handle_{wager.bet}"] += wager.amount
        row["payouts"] += wager.payout + deducted
        row["commission"] += wager.commission + deducted - reversed_
        row["house_win"] += game.house_win(wager.amount, settlement) - reversed_
        row["theoretical"] += wager.amount * D(edges["house_edge"])
        row["variance"] += wager.amount * wager.amount * D(edges["variance"])
        row["wagers"] += 1
        coups[key].add(wager.coup_id)
    for key, row in figures.items():
        row["coups"] = D(len(coups[key]))
    return figures


def test_table_results_match_the_wagers_and_the_engine(pit):
    all_lines = lines(TABLE_RESULTS)
    rows = [line.values for line in all_lines if line.kind == "detail"]
    expected = expected_results()
    assert [(row["gaming_day"], row["table"]) for row in rows] == [
        (DAY_1, "BB1"),
        (DAY_1, "MB1"),
        (DAY_2, "BB1"),
    ]
    for row in rows:
        want = expected[(row["gaming_day"], row["table"])]
        for bet in ("player", "banker", "tie", "player_pair", "banker_pair"):
            assert row[f"handle_{bet}"] == want[f"handle_{bet}"].quantize(CENT)
        assert row["handle_other"] == D("0.00")
        assert row["handle"] == want["handle"]
        assert row["payouts"] == want["payouts"]
        assert row["commission"] == want["commission"]
        assert row["house_win"] == want["house_win"]
        assert row["hold"] == want["house_win"] / want["handle"]
        theoretical = want["theoretical"].quantize(CENT)
        assert row["theoretical_win"] == theoretical
        assert row["win_minus_theoretical"] == want["house_win"] - theoretical
        assert row["standard_deviation"] == sqrt(want["variance"]).quantize(CENT)
        assert row["deviations"] == (want["house_win"] - theoretical) / sqrt(want["variance"])
        assert (row["coups"], row["wagers"]) == (int(want["coups"]), int(want["wagers"]))
    bb1_day_1, mb1_day_1, bb1_day_2 = rows
    # By hand: lost 50 + 100 + 10 + 25 = 185; paid 100 + 200 + 100 + 80 + 300 + 40 + 1000 = 1820;
    # commission owed 5 + 10 + 15 + 2 + 50 = 82, less the 5.00 accrual reversed on seat 1: 77.
    assert (bb1_day_1["handle"], bb1_day_1["payouts"], bb1_day_1["commission"], bb1_day_1["house_win"]) == (
        D("2060.00"),
        D("1820.00"),
        D("77.00"),
        D("-1558.00"),
    )
    assert (bb1_day_1["commission_reversed"], bb1_day_1["commission_deducted"]) == (D("5.00"), D("0.00"))
    # Deducted commission shown as commission: the banker win of 100 owes 100 before commission,
    # 5 of it deducted; the player bet lost 100. The floor paid 90 where 95 was due: 5 under.
    assert (mb1_day_1["payouts"], mb1_day_1["commission"], mb1_day_1["commission_deducted"]) == (
        D("100.00"),
        D("5.00"),
        D("5.00"),
    )
    assert mb1_day_1["house_win"] == D("5.00")
    assert (mb1_day_1["paid"], mb1_day_1["overpaid"], mb1_day_1["underpaid"]) == (D("90.00"), D("0.00"), D("5.00"))
    assert (bb1_day_1["open_violations"], mb1_day_1["open_violations"], bb1_day_2["open_violations"]) == (
        RuleViolation.objects.filter(table=pit.bb1, gaming_day=DAY_1, status="open").count(),
        1,
        RuleViolation.objects.filter(table=pit.bb1, gaming_day=DAY_2, status="open").count(),
    )


def test_table_results_subtotals_per_day_and_total(pit):
    all_lines = lines(TABLE_RESULTS)
    assert [line.kind for line in all_lines] == [
        "detail",
        "detail",
        "day subtotal",
        "detail",
        "day subtotal",
        "total",
        *["bridge"] * 6,  # MB1 deducts its commission: see test_commission_bridge.py
    ]
    expected = expected_results()
    total = all_lines[5].values
    win = sum(row["house_win"] for row in expected.values())
    handle = sum(row["handle"] for row in expected.values())
    theoretical = sum(row["theoretical"].quantize(CENT) for row in expected.values())
    variance = sum(row["variance"] for row in expected.values())
    assert total["house_win"] == win == D("-2003.00")
    assert total["handle"] == handle == D("2785.00")
    assert total["hold"] == win / handle
    assert total["theoretical_win"] == theoretical
    assert total["deviations"] == (win - theoretical) / sqrt(variance)
    assert total["standard_deviation"] == sqrt(variance).quantize(CENT)
    assert total["coups"] == 6
    day_1 = all_lines[2].values
    assert day_1["gaming_day"] == DAY_1 and day_1["table"] is None
    assert day_1["house_win"] == D("-1553.00")


def test_table_results_filters(pit):
    rows = [line.values for line in lines(TABLE_RESULTS, tables=("MB1",)) if line.kind == "detail"]
    assert [(row["table"], row["handle"]) for row in rows] == [("MB1", D("200.00"))]
    rows = [line.values for line in lines(TABLE_RESULTS, game="big", date_from=DAY_2) if line.kind == "detail"]
    assert [(row["gaming_day"], row["table"]) for row in rows] == [(DAY_2, "BB1")]


def test_violations_counted_by_status(pit, users):
    pit_boss = users["pit boss"]
    payout = RuleViolation.objects.get(code="payout_mismatch")
    violation_acknowledge(violation=payout, user=pit_boss, note="Dealer shorted the player; paid the 5.00")
    box = RuleViolation.objects.get(code="box_variance")
    violation_dismiss(violation=box, user=pit_boss, note="Explained by accounting")
    all_lines = lines(VIOLATIONS)
    rows = [line.values for line in all_lines if line.kind == "detail"]
    table = defaultdict(lambda: defaultdict(int))
    for violation in RuleViolation.objects.select_related("table"):
        table[(violation.gaming_day, violation.table.code, violation.code)][violation.status] += 1
    assert len(rows) == len(table)
    for row in rows:
        counts = table[(row["gaming_day"], row["table"], row["code"])]
        for status in ("open", "acknowledged", "resolved", "dismissed"):
            assert row[status] == counts[status]
        assert row["total"] == sum(counts.values())
    payout_row = next(row for row in rows if row["code"] == "payout_mismatch")
    assert (payout_row["table"], payout_row["acknowledged"], payout_row["open"], payout_row["severity"]) == (
        "MB1",
        1,
        0,
        "high",
    )
    total = all_lines[-1].values
    assert total["total"] == RuleViolation.objects.count()
    assert total["dismissed"] == 1 and total["acknowledged"] == 1
    assert [row["code"] for row in (line.values for line in lines(VIOLATIONS, tables=("MB1",))) if row.get("code")] == [
        "payout_mismatch"
    ]


def test_theoretical_win_uses_the_edges_of_the_shoes_deck_count(db, django_capture_on_commit_callbacks):
    """A 6-deck shoe's pair edge is 11.2540%, an 8-deck one's 10.3614%; tie, banker, player and
    the variances behind the standard deviation differ too."""
    six = factories.table("SX1")
    eight = factories.table("EI1")
    for table, decks in ((six, 6), (eight, 8)):
        shoe = factories.shoe(table, decks=decks, cut_card_position=250, shuffled_at=at(DAY_1, 9))
        with django_capture_on_commit_callbacks(execute=True):
            factories.coup(
                shoe,
                1,
                *PLAYER_NATURAL,
                dealt_at=at(DAY_1, 10),
                wagers=[stake(1, "player_pair", "1000"), stake(2, "tie", "1000"), stake(3, "banker", "1000")],
            )
    rows = {line.values["table"]: line.values for line in lines(TABLE_RESULTS) if line.is_detail}
    # By hand from the published figures: pair 11.2540% / 10.3614%, tie 14.4382% / 14.3596%,
    # banker 1.0558% / 1.0579% (commission 5%).
    assert rows["SX1"]["theoretical_win"] == D("112.54") + D("144.38") + D("10.56")
    assert rows["EI1"]["theoretical_win"] == D("103.61") + D("143.60") + D("10.58")
    for code, decks in (("SX1", 6), ("EI1", 8)):
        odds = game.exact_odds(game.PRESETS["commission_box"], decks).bets
        variance = sum(odds[bet].variance for bet in ("player_pair", "tie", "banker")) * 1000 * 1000
        deviation = sqrt(game.fraction_to_decimal(variance, 16))
        assert abs(rows[code]["standard_deviation"] - deviation) < D("0.01")
    assert rows["SX1"]["standard_deviation"] != rows["EI1"]["standard_deviation"]
