"""The floor simulator: repeatable from its seed, silent when the dealer is honest, and every
mistake it makes on purpose is found by the checks or the reconciliation."""

import datetime as dt
from collections import Counter

import pytest

from pit import game
from pit.compliance import checks
from pit.compliance.models import RuleViolation
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import FAULT_KINDS, InjectedFault, deal_live, parse_fault_rates, simulate
from pit.ledger.models import Reconciliation, ReconciliationSeat, ReconciliationStatus
from pit.protection.models import SideBetExpectation
from pit.shoes.models import Coup, Shoe, ShoeStatus, Wager
from tests.floor.conftest import NOW


@pytest.fixture
def play(django_capture_on_commit_callbacks):
    """Simulate with the checks and reconciliations run as they are after each commit (eagerly)."""

    def run(**kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return simulate(ServicesFloorClient(), now=NOW, **kwargs)

    return run


def _coups_snapshot(shoe_ids):
    return [
        (
            c.number,
            c.player_cards,
            c.banker_cards,
            c.reported_winner,
            c.dealt_at,
            [(w.seat, w.bet, w.amount_minor, w.paid_minor) for w in c.wagers.all()],
        )
        for c in Coup.objects.filter(shoe_id__in=shoe_ids)
        .order_by("shoe__table__code", "shoe__sequence", "number")
        .prefetch_related("wagers")
    ]


# ------------------------------------------------------------------------------ fault rates


def test_parse_fault_rates_by_name_and_for_all():
    assert parse_fault_rates("wrong_draw=0.01, wrong_payout=0.5") == {
        "wrong_draw": 0.01,
        "misreported_winner": 0.0,
        "wrong_payout": 0.5,
        "miscounted_box": 0.0,
        "foreign_card": 0.0,
        "replayed_shoe": 0.0,
        "side_bet_counter": 0.0,
        "perfect_pair_counter": 0.0,
        "hot_table": 0.0,
        "silent_reader": 0.0,
        "erring_dealer": 0.0,
        "fast_table": 0.0,
    }
    assert parse_fault_rates("0.02") == dict.fromkeys(FAULT_KINDS, 0.02)
    every = dict.fromkeys(FAULT_KINDS, 0.1)
    assert parse_fault_rates("all=0.1,foreign_card=0") == {**every, "foreign_card": 0.0}
    assert parse_fault_rates("") == dict.fromkeys(FAULT_KINDS, 0.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wrong_deal=0.1", "'wrong_deal' is not a fault"),
        ("wrong_draw=lots", "'lots' is not a rate"),
        ("wrong_draw=1.5", "between 0 and 1"),
    ],
)
def test_parse_fault_rates_refuses_what_it_cannot_read(text, message):
    with pytest.raises(ValueError, match=message):
        parse_fault_rates(text)


# ------------------------------------------------------------------------------ repeatability


@pytest.mark.slow
def test_the_same_seed_deals_the_same_cards_wagers_and_faults(pit_tables, play):
    faults = {"wrong_draw": 0.05, "misreported_winner": 0.05, "wrong_payout": 0.05, "miscounted_box": 0.5}
    first = play(tables=["BB1", "MN1"], seed=11, faults=faults)
    second = play(tables=["BB1", "MN1"], seed=11, faults=faults)
    other = play(tables=["BB1", "MN1"], seed=12, faults=faults)

    assert first.digest == second.digest
    assert other.digest != first.digest
    assert (first.coups, first.wagers, first.handle) == (second.coups, second.wagers, second.handle)
    assert [(f.kind, f.code, f.table, f.coup_number, f.seat) for f in first.faults] == [
        (f.kind, f.code, f.table, f.coup_number, f.seat) for f in second.faults
    ]
    assert first.faults  # the rates are high enough that a shoe has some
    # What was recorded is the same too (the second run's shoes are the next ones at each table).
    assert _coups_snapshot(first.shoe_ids) == _coups_snapshot(second.shoe_ids)
    assert _coups_snapshot(first.shoe_ids) != _coups_snapshot(other.shoe_ids)


def test_shoes_are_real_eight_deck_shoes_dealt_to_the_cut_card(pit_tables, play):
    result = play(tables=["BB1"], seed=3)

    (shoe,) = Shoe.objects.filter(pk__in=result.shoe_ids)
    assert shoe.status == ShoeStatus.CLOSED
    assert shoe.decks == 8
    assert 1 <= len(shoe.burn_cards) <= 11  # the turned card and as many more as its value (10 for faces)
    turned = game.parse_card(shoe.burn_cards[0])
    assert len(shoe.burn_cards) == 1 + (turned.value or 10)
    assert 416 - 20 - len(shoe.burn_cards) <= shoe.cut_card_position <= 416 - 14 - len(shoe.burn_cards)
    # Dealt until the cut card came out, and not a coup more.
    assert shoe.cards_dealt >= shoe.cut_card_position
    last = shoe.coups.order_by("-number").first()
    assert shoe.cards_dealt - len(last.player_cards) - len(last.banker_cards) < shoe.cut_card_position
    assert shoe.coups_recorded == result.coups == shoe.coups.count()
    assert max(Counter(shoe.cards_seen).values()) <= 8
    # Every coup is dealt by the rules and settled by the engine's paytable.
    for coup in shoe.coups.all():
        dealt = game.Coup.from_codes(coup.player_cards, coup.banker_cards)
        assert game.verify_coup(dealt, coup.reported_winner) == []
    # The gaming day of NOW, before it: coups spread over the evening, never after NOW.
    assert set(shoe.coups.values_list("gaming_day", flat=True)) == {dt.date(2026, 11, 20)}
    assert shoe.coups.order_by("-dealt_at").first().dealt_at <= NOW


@pytest.mark.slow
def test_wagers_keep_to_the_limits_increments_and_offered_bets(pit_tables, play):
    play(tables=[t.code for t in pit_tables], seed=5)
    for table in pit_tables:
        limits = {limit.bet: (limit.minimum_minor, limit.maximum_minor) for limit in table.limits.all()}
        offered = set(table.paytable.rules["bets"])
        wagers = Wager.objects.filter(coup__shoe__table=table)
        bets = set(wagers.values_list("bet", flat=True))
        assert bets <= offered
        assert {"player", "banker", "tie"} <= bets
        for bet, amount, seat in wagers.values_list("bet", "amount_minor", "seat"):
            low, high = limits[bet]
            assert low <= amount <= high
            assert seat in table.seats
        sides = Counter(wagers.filter(bet__in=["player", "banker"]).values_list("coup_id", "seat"))
        assert max(sides.values()) == 1  # never both sides from one seat
    mini_banker = Wager.objects.filter(coup__shoe__table__code="MN1", bet="banker").values_list(
        "amount_minor", flat=True
    )
    assert all(amount % 500 == 0 for amount in mini_banker)  # the mini paytable's $5 increments
    assert Wager.objects.filter(coup__shoe__table__code="MN2", bet__in=["dragon_7", "panda_8"]).exists()
    pairs = ["player_pair", "banker_pair"]
    assert Wager.objects.filter(coup__shoe__table__code="BB1", bet__in=pairs).exists()


# ------------------------------------------------------------------------------ honest dealing


@pytest.mark.slow
def test_an_honest_dealer_raises_no_violation_and_every_box_balances(pit_tables, play):
    codes = [t.code for t in pit_tables]
    result = play(tables=codes, seed=1, days=2, shoes_per_day=1)

    assert result.faults == []
    assert result.shoes == 2 * len(codes) == 14
    # The checks ran after each commit; run them once more over everything to be sure.
    checks.coups_check(coup_ids=result.coup_ids)
    assert list(RuleViolation.objects.values_list("code", "message")) == []
    reconciliations = Reconciliation.objects.filter(shoe_id__in=result.shoe_ids)
    assert reconciliations.count() == 14
    assert set(reconciliations.values_list("status", flat=True)) == {ReconciliationStatus.BALANCED}
    box_tables = reconciliations.filter(shoe__table__code__in=["BB1", "MN1"])
    assert all(r.expected_minor > 0 and r.counted_minor == r.expected_minor for r in box_tables)
    # Players left mid-shoe and their commission was collected then, not at the shuffle.
    assert ReconciliationSeat.objects.filter(collected_earlier_minor__gt=0).exists()
    days = set(Coup.objects.values_list("gaming_day", flat=True))
    assert days == {dt.date(2026, 11, 19), dt.date(2026, 11, 20)}


# ------------------------------------------------------------------------------ faults


def _found(fault: InjectedFault) -> bool:
    if fault.kind == "miscounted_box":
        seat = ReconciliationSeat.objects.get(reconciliation__shoe_id=fault.shoe_id, seat=fault.seat)
        return (
            seat.variance_minor != 0
            and RuleViolation.objects.filter(code="box_variance", shoe_id=fault.shoe_id, seat=fault.seat).exists()
        )
    if fault.kind == "replayed_shoe":  # found at the coup that completed the first repeated 10 cards
        return RuleViolation.objects.filter(code=fault.code, shoe_id=fault.shoe_id, coup__number__lte=3).exists()
    found = RuleViolation.objects.filter(code=fault.code, coup_id=fault.coup_id)
    if fault.seat is not None:
        found = found.filter(seat=fault.seat)
    return found.exists()


@pytest.mark.slow
def test_every_injected_fault_is_found_and_nothing_else(pit_tables, play):
    faults = {
        "wrong_draw": 0.04,
        "misreported_winner": 0.04,
        "wrong_payout": 0.04,
        "miscounted_box": 0.6,
        "foreign_card": 0.05,
        "replayed_shoe": 1.0,  # per shoe: every second shoe of a table replays the first
    }
    result = play(tables=["BB1", "MN1", "MN2"], seed=8, shoes_per_day=2, faults=faults)

    kinds = Counter(fault.kind for fault in result.faults)
    assert set(kinds) == set(faults), kinds  # the side-bet counter has a test of its own
    missed = [str(fault) for fault in result.faults if not _found(fault)]
    assert missed == []
    # No false alarm: every violation is one of the injected faults.
    replayed = {f.shoe_id for f in result.faults if f.kind == "replayed_shoe"}
    expected = (
        {(f.code, f.coup_id) for f in result.faults if f.coup_id}
        | {("box_variance", None) for f in result.faults if f.kind == "miscounted_box"}
        | {(v.code, v.coup_id) for v in RuleViolation.objects.filter(code="shoe_sequence_repeat", shoe_id__in=replayed)}
    )
    assert RuleViolation.objects.filter(code="shoe_sequence_repeat").count() == len(replayed)
    recorded = {(code, coup_id) for code, coup_id in RuleViolation.objects.values_list("code", "coup_id")}
    assert recorded == expected
    variances = Reconciliation.objects.filter(status=ReconciliationStatus.VARIANCE)
    assert variances.count() == kinds["miscounted_box"]
    wrong_draws = [f for f in result.faults if f.kind == "wrong_draw"]
    assert {f.code for f in wrong_draws} <= {"banker_extra_card", "banker_missing_card", "player_extra_card"}
    # A foreign card is one more copy of a card than the shoe holds, and changes nothing else.
    foreign = Counter(fault.shoe_id for fault in result.faults if fault.kind == "foreign_card")
    for shoe in Shoe.objects.filter(pk__in=result.shoe_ids):
        over = {code: count for code, count in shoe.cards_seen.items() if count > 8}
        assert set(over.values()) <= {9}
        assert len(over) == foreign[shoe.pk]


def test_a_side_bet_counter_is_found_and_the_other_seats_are_not(pit_tables, play):
    # MN2 deals EZ baccarat: Dragon 7 and Panda 8 turn positive late in most shoes.
    result = play(tables=["MN2"], seed=3, shoes_per_day=3, faults={"side_bet_counter": 1.0})
    [fault] = result.faults
    assert fault.kind == "side_bet_counter" and _found(fault), fault
    flagged = RuleViolation.objects.filter(code="side_bet_advantage_play")
    assert set(flagged.values_list("seat", flat=True)) == {fault.seat}
    assert flagged.get().message.startswith(f"Seat {fault.seat} placed ")


def test_a_perfect_pair_counter_is_found_and_the_side_bets_are_settled_and_priced(pit_tables, play):
    # LD1 deals the richest side-bet preset: Perfect Pair turns positive late in some shoes, when the
    # suits left repeat. The counter bets it then only; the other seats bet every side bet at random.
    result = play(tables=["LD1"], seed=5, shoes_per_day=4, faults={"perfect_pair_counter": 1.0})
    [fault] = result.faults
    assert fault.kind == "perfect_pair_counter" and _found(fault), fault
    flagged = RuleViolation.objects.get(code="side_bet_advantage_play")
    assert flagged.seat == fault.seat and flagged.message.startswith(f"Seat {fault.seat} placed ")
    assert "perfect_pair" in flagged.message
    counted = Wager.objects.filter(coup__shoe_id__in=result.shoe_ids, seat=fault.seat).exclude(
        bet__in=["player", "banker"]
    )
    assert set(counted.values_list("bet", flat=True)) == {"perfect_pair"}
    # Each of its Perfect Pair bets was on a coup the engine priced positive before it was dealt.
    positive = set(
        SideBetExpectation.objects.filter(bet="perfect_pair", positive=True).values_list("coup_id", flat=True)
    )
    assert set(counted.values_list("coup_id", flat=True)) <= positive
    # Every coup holds an exact expectation for every side bet of the paytable.
    side = [bet for bet in game.PRESETS["live_side_bets"].bets if bet not in game.MAIN_BETS]
    coups = Coup.objects.filter(shoe_id__in=result.shoe_ids)
    assert SideBetExpectation.objects.filter(coup__in=coups).count() == len(side) * coups.count()
    # The side bets were settled by the engine: each stored payout is the engine's for its coup.
    settled = Counter()
    for wager in Wager.objects.filter(coup__in=coups).exclude(bet__in=["player", "banker"]).select_related("coup"):
        evaluation = game.evaluate(game.Coup.from_codes(wager.coup.player_cards, wager.coup.banker_cards))
        expected = game.settle(game.PRESETS["live_side_bets"], wager.bet, wager.amount, evaluation)
        assert wager.payout == expected.payout, wager
        settled[wager.bet, expected.result] += 1
    assert {bet for bet, _result in settled} == set(side)
    assert any(result == game.BetResult.WIN for _bet, result in settled)


def test_a_wrong_payout_is_reported_on_the_wager(pit_tables, play):
    result = play(tables=["BB2"], seed=4, faults={"wrong_payout": 0.05})
    assert result.faults
    for fault in result.faults:
        violation = RuleViolation.objects.get(code="payout_mismatch", coup_id=fault.coup_id)
        assert violation.seat == fault.seat
        assert violation.wager.paid_minor != violation.wager.payout_minor


def test_a_shoe_left_dealing_is_closed_honestly_by_the_next_run(pit_tables, play):
    first = play(tables=["BB1"], seed=2, shoes_per_day=0, leave_open=True)
    (open_shoe,) = Shoe.objects.filter(pk__in=first.shoe_ids)
    assert open_shoe.status == ShoeStatus.DEALING
    assert 12 <= open_shoe.coups_recorded <= 40

    play(tables=["BB1"], seed=2)

    open_shoe.refresh_from_db()
    assert open_shoe.status == ShoeStatus.CLOSED
    assert open_shoe.reconciliation.status == ReconciliationStatus.BALANCED
    assert not RuleViolation.objects.exists()


def test_a_fault_names_where_it_was_made():
    fault = InjectedFault("wrong_payout", "payout_mismatch", "BB1", 3, coup_number=17, seat=5, detail="x")
    assert str(fault) == "wrong_payout (payout_mismatch) at BB1 shoe 3 coup 17 seat 5: x"


# ------------------------------------------------------------------------------ live dealing


def test_live_dealing_takes_turns_at_the_tables_and_shuffles_up_at_the_cut_card(
    pit_tables, django_capture_on_commit_callbacks
):
    naps = []
    with django_capture_on_commit_callbacks(execute=True):
        simulate(ServicesFloorClient(), tables=["MD1"], shoes_per_day=0, leave_open=True, seed=1, now=NOW)
        left_dealing = Shoe.objects.get(table__code="MD1", status=ShoeStatus.DEALING)
        dealt_before = left_dealing.coups_recorded
        result = deal_live(
            ServicesFloorClient(), tables=["BB1", "MD1"], seed=1, interval=2.0, coups=200, sleep=naps.append
        )

    assert result.coups == 200
    assert naps == [1.0] * 200  # the interval shared between the two tables
    # The shoe left dealing was dealt on from its unseen cards, numbers following on, to its cut card.
    left_dealing.refresh_from_db()
    assert left_dealing.status == ShoeStatus.CLOSED
    numbers = list(left_dealing.coups.order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > dealt_before
    assert left_dealing.cards_dealt >= left_dealing.cut_card_position
    assert max(left_dealing.cards_seen.values()) <= 8
    for code, dealt_here in (("BB1", 100), ("MD1", 100 + dealt_before)):
        shoes = Shoe.objects.filter(table__code=code).order_by("sequence")
        assert [shoe.status for shoe in shoes] == [ShoeStatus.CLOSED, ShoeStatus.DEALING]
        assert sum(shoe.coups_recorded for shoe in shoes) == dealt_here
    assert not RuleViolation.objects.exists()
    assert set(Reconciliation.objects.values_list("status", flat=True)) == {ReconciliationStatus.BALANCED}


def test_live_dealing_goes_on_with_a_box_table_shoe_and_its_box_balances(
    pit_tables, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        simulate(ServicesFloorClient(), tables=["BB1"], shoes_per_day=0, leave_open=True, seed=5, now=NOW)
        deal_live(ServicesFloorClient(), tables=["BB1"], seed=5, interval=0, coups=90, sleep=lambda _: None)
    first = Shoe.objects.get(table__code="BB1", sequence=1)
    assert first.status == ShoeStatus.CLOSED
    assert first.reconciliation.status == ReconciliationStatus.BALANCED
    assert first.reconciliation.expected_minor > 0
    assert not RuleViolation.objects.exists()
