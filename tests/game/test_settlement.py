"""Settlement of every preset to the cent: wins, pushes, losses, commission modes and rounding."""

from decimal import Decimal

import pytest

from pit.game import (
    PRESETS,
    BetResult,
    Coup,
    Settlement,
    UnknownBet,
    Violation,
    check_box_count,
    check_commission,
    check_payout,
    evaluate,
    house_win,
    settle,
)

D = Decimal


def outcome(player, banker):
    return evaluate(Coup.from_codes(player=player, banker=banker))


PLAYER_WINS = outcome(["5H", "KD", "2C"], ["9S", "7D"])  # 7 over 6
BANKER_WINS = outcome(["TH", "6D"], ["3S", "4D"])  # Banker 7 over Player 6
BANKER_WINS_6 = outcome(["TH", "5D", "KC"], ["3S", "3D"])  # Banker two-card 6 over 5, a Banker pair
TIE = outcome(["TH", "7D"], ["3S", "4D"])  # 7 and 7
DRAGON = outcome(["TS", "2H", "4C"], ["5D", "KC", "2S"])  # Banker three-card 7 over 6
PANDA = outcome(["AS", "2H", "5C"], ["5D", "KC", "2S"])  # Player three-card 8 over 7
PLAYER_PAIR = outcome(["9H", "9S"], ["TD", "4C"])  # Player natural 8 with a pair


def s(result, payout, commission="0.00", deducted="0.00"):
    return (result, D(payout), D(commission), D(deducted))


def settled(paytable, bet, amount, evaluation):
    found = settle(PRESETS[paytable], bet, D(amount), evaluation)
    return (found.result, found.payout, found.commission, found.deducted)


CASES = [
    # commission_box: even money, 5% owed into the box, half up to the cent.
    ("commission_box", "player", "100", PLAYER_WINS, s("win", "100")),
    ("commission_box", "player", "100", BANKER_WINS, s("lose", "0")),
    ("commission_box", "player", "100", TIE, s("push", "0")),
    ("commission_box", "banker", "100", BANKER_WINS, s("win", "100", "5.00")),
    ("commission_box", "banker", "10.10", BANKER_WINS, s("win", "10.10", "0.51")),
    ("commission_box", "banker", "10.09", BANKER_WINS, s("win", "10.09", "0.50")),
    ("commission_box", "banker", "25", BANKER_WINS_6, s("win", "25", "1.25")),
    ("commission_box", "banker", "100", TIE, s("push", "0")),
    ("commission_box", "banker", "100", PLAYER_WINS, s("lose", "0")),
    ("commission_box", "tie", "25", TIE, s("win", "200")),
    ("commission_box", "tie", "25", BANKER_WINS, s("lose", "0")),
    ("commission_box", "player_pair", "10", PLAYER_PAIR, s("win", "110")),
    ("commission_box", "banker_pair", "10", PLAYER_PAIR, s("lose", "0")),
    ("commission_box", "banker_pair", "10", BANKER_WINS_6, s("win", "110")),
    # commission_deducted: the payout is net of 5%, rounded up to the cent against the payout.
    ("commission_deducted", "banker", "10", BANKER_WINS, s("win", "9.50", deducted="0.50")),
    ("commission_deducted", "banker", "10.10", BANKER_WINS, s("win", "9.59", deducted="0.51")),
    ("commission_deducted", "banker", "10.09", BANKER_WINS, s("win", "9.58", deducted="0.51")),
    ("commission_deducted", "banker", "10", TIE, s("push", "0")),
    ("commission_deducted", "player", "10", PLAYER_WINS, s("win", "10")),
    # commission_19_20: 19 to 20, rounded down to the cent.
    ("commission_19_20", "banker", "10", BANKER_WINS, s("win", "9.50")),
    ("commission_19_20", "banker", "7.77", BANKER_WINS, s("win", "7.38")),
    ("commission_19_20", "banker", "1", BANKER_WINS, s("win", "0.95")),
    ("commission_19_20", "banker", "0.05", BANKER_WINS, s("win", "0.04")),
    ("commission_19_20", "banker", "20", TIE, s("push", "0")),
    # mini_commission_box: commission is a whole number of quarters, rounded up.
    ("mini_commission_box", "banker", "5", BANKER_WINS, s("win", "5", "0.25")),
    ("mini_commission_box", "banker", "15", BANKER_WINS, s("win", "15", "0.75")),
    ("mini_commission_box", "banker", "100", BANKER_WINS, s("win", "100", "5.00")),
    ("mini_commission_box", "banker", "12", BANKER_WINS, s("win", "12", "0.75")),
    ("mini_commission_box", "banker", "7", BANKER_WINS, s("win", "7", "0.50")),
    ("mini_commission_box", "banker", "1", BANKER_WINS, s("win", "1", "0.25")),
    ("mini_commission_box", "player", "15", PLAYER_WINS, s("win", "15")),
    ("mini_commission_box", "banker", "15", TIE, s("push", "0")),
    # no_commission: Banker winning with 6 pays 1 to 2 (down to the cent), other Banker wins 1 to 1.
    ("no_commission", "banker", "100", BANKER_WINS_6, s("win", "50")),
    ("no_commission", "banker", "15", BANKER_WINS_6, s("win", "7.50")),
    ("no_commission", "banker", "7.75", BANKER_WINS_6, s("win", "3.87")),
    ("no_commission", "banker", "100", BANKER_WINS, s("win", "100")),
    ("no_commission", "banker", "100", TIE, s("push", "0")),
    ("no_commission", "player", "100", BANKER_WINS_6, s("lose", "0")),
    ("no_commission", "tie", "10", TIE, s("win", "80")),
    # tie_9_to_1
    ("tie_9_to_1", "tie", "10", TIE, s("win", "90")),
    ("tie_9_to_1", "banker", "10", BANKER_WINS, s("win", "10", "0.50")),
    ("tie_9_to_1", "player", "10", TIE, s("push", "0")),
    # ez_baccarat: a Banker three-card 7 pushes the Banker bet; Dragon 7 40:1; Panda 8 25:1.
    ("ez_baccarat", "banker", "100", DRAGON, s("push", "0")),
    ("ez_baccarat", "banker", "100", BANKER_WINS, s("win", "100")),
    ("ez_baccarat", "banker", "100", BANKER_WINS_6, s("win", "100")),
    ("ez_baccarat", "banker", "100", PANDA, s("lose", "0")),
    ("ez_baccarat", "player", "100", PANDA, s("win", "100")),
    ("ez_baccarat", "player", "100", DRAGON, s("lose", "0")),
    ("ez_baccarat", "player", "100", TIE, s("push", "0")),
    ("ez_baccarat", "dragon_7", "10", DRAGON, s("win", "400")),
    ("ez_baccarat", "dragon_7", "10", BANKER_WINS, s("lose", "0")),
    ("ez_baccarat", "panda_8", "10", PANDA, s("win", "250")),
    ("ez_baccarat", "panda_8", "10", PLAYER_WINS, s("lose", "0")),
    ("ez_baccarat", "tie", "5", TIE, s("win", "40")),
]


@pytest.mark.parametrize(("paytable", "bet", "amount", "evaluation", "expected"), CASES)
def test_settle(paytable, bet, amount, evaluation, expected):
    assert settled(paytable, bet, amount, evaluation) == expected


def test_the_test_outcomes_are_what_they_say():
    assert TIE.winner == "tie" and BANKER_WINS.winner == "banker" and PLAYER_WINS.winner == "player"
    assert "banker_wins_with_6" in BANKER_WINS_6.facts and "banker_pair" in BANKER_WINS_6.facts
    assert "banker_wins_three_card_7" in DRAGON.facts
    assert "player_wins_three_card_8" in PANDA.facts
    assert "player_pair" in PLAYER_PAIR.facts


def test_settlement_records_bet_and_amount_and_exact_decimals():
    found = settle(PRESETS["commission_box"], "banker", "100", BANKER_WINS)
    assert found == Settlement(BetResult.WIN, D("100.00"), D("5.00"), D("0.00"), "banker", D("100"))
    assert str(found.payout) == "100.00" and str(found.commission) == "5.00"


def test_unknown_bet():
    with pytest.raises(UnknownBet) as caught:
        settle(PRESETS["ez_baccarat"], "player_pair", D("10"), PLAYER_PAIR)
    assert str(caught.value) == (
        "'player_pair' is not a bet on paytable 'ez_baccarat' (it offers player, banker, tie, dragon_7, panda_8)"
    )
    assert caught.value.bet == "player_pair"
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("amount", [D("0"), D("-5"), 1.5, "ten"])
def test_settle_refuses_bad_amounts(amount):
    with pytest.raises((ValueError, TypeError)):
        settle(PRESETS["commission_box"], "player", amount, PLAYER_WINS)


@pytest.mark.parametrize(
    ("paytable", "bet", "amount", "evaluation", "house"),
    [
        ("commission_box", "player", "100", BANKER_WINS, "100"),
        ("commission_box", "banker", "100", BANKER_WINS, "-95.00"),
        ("commission_box", "banker", "100", TIE, "0.00"),
        ("commission_deducted", "banker", "10", BANKER_WINS, "-9.50"),
        ("mini_commission_box", "banker", "12", BANKER_WINS, "-11.25"),
        ("ez_baccarat", "dragon_7", "10", DRAGON, "-400"),
        ("no_commission", "banker", "15", BANKER_WINS_6, "-7.50"),
    ],
)
def test_house_win(paytable, bet, amount, evaluation, house):
    settlement = settle(PRESETS[paytable], bet, D(amount), evaluation)
    assert house_win(D(amount), settlement) == D(house)


def test_check_payout():
    win = settle(PRESETS["commission_box"], "banker", D("100"), BANKER_WINS)
    assert check_payout(win, D("100.00")) is None
    assert check_payout(win, D("95")) == Violation(
        "payout_mismatch", "Paid 95.00 on the winning Banker bet of 100.00; the paytable pays 100.00.", "high"
    )
    push = settle(PRESETS["commission_box"], "player", D("50"), TIE)
    assert check_payout(push, D("0")) is None
    assert check_payout(push, D("50")).message == (
        "Paid 50.00 on the Player bet of 50.00, which pushed; a push returns the stake and pays nothing more."
    )
    lose = settle(PRESETS["commission_box"], "tie", D("5"), BANKER_WINS)
    assert check_payout(lose, D("40")).message == (
        "Paid 40.00 on the losing Tie bet of 5.00; a losing bet is paid nothing."
    )
    dragon = settle(PRESETS["ez_baccarat"], "dragon_7", D("25"), DRAGON)
    assert check_payout(dragon, D("975")).message == (
        "Paid 975.00 on the winning Dragon 7 bet of 25.00; the paytable pays 1,000.00."
    )


def test_check_commission():
    win = settle(PRESETS["mini_commission_box"], "banker", D("12"), BANKER_WINS)
    assert check_commission(win, D("0.75")) is None
    assert check_commission(win, D("0.60")) == Violation(
        "commission_mismatch",
        "Commission of 0.60 was charged on the winning Banker bet of 12.00; the paytable says 0.75.",
        "medium",
    )
    player = settle(PRESETS["commission_box"], "player", D("20"), PLAYER_WINS)
    assert check_commission(player, D("1")).message == (
        "Commission of 1.00 was charged on the winning Player bet of 20.00; no commission is owed on it."
    )


def test_check_box_count():
    assert check_box_count(D("125.50"), D("125.5")) is None
    assert check_box_count(D("125.50"), D("120")) == Violation(
        "box_variance",
        "The commission box counted 120.00 against 125.50 owed by the ledger; short by 5.50.",
        "high",
    )
    assert check_box_count(D("10"), D("10.25"), where="seat 5").message == (
        "The commission box for seat 5 counted 10.25 against 10.00 owed by the ledger; over by 0.25."
    )


def test_a_currency_without_cents_settles_in_whole_units():
    from pit.game import PRESETS, Coup, evaluate, settle
    from pit.game.paytables import Rounding, RoundingMode

    evaluation = evaluate(Coup(player=["2H", "KD"], banker=["8C", "KS"]))
    box = settle(PRESETS["commission_box"], "banker", Decimal("2530"), evaluation, unit=Decimal(1))
    assert (box.payout, box.commission) == (Decimal(2530), Decimal(127))
    deducted = settle(PRESETS["commission_deducted"], "banker", Decimal("2530"), evaluation, unit=Decimal(1))
    assert (deducted.payout, deducted.deducted) == (Decimal(2403), Decimal(127))
    cents = settle(PRESETS["commission_box"], "banker", Decimal("2530"), evaluation)
    assert cents.commission == Decimal("126.50")
    assert Rounding(Decimal("0.25"), RoundingMode.DOWN).at_least(Decimal(1)) == Rounding(Decimal(1), RoundingMode.DOWN)
    assert Rounding(Decimal("0.25"), RoundingMode.UP).at_least(Decimal("0.01")).increment == Decimal("0.25")
