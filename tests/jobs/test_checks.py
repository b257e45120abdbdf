"""The coup checks on the embedded default: every violation code with its exact message, recorded once,
cleared after a fix (never deleted), restored when it holds again; the sweep and `manage.py reverify`."""

import datetime as dt
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from pit.compliance.checks import coups_check, coups_sweep
from pit.compliance.models import RuleViolation
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_entry_reverse
from pit.shoes.models import Coup
from pit.shoes.services import shoe_close
from pit.tables.services import table_limits_set
from tests import factories
from tests.factories import wager
from tests.facts import rewrite
from tests.jobs.conftest import BANKER_NATURAL, PLAYER_NATURAL, findings

pytestmark = pytest.mark.django_db


def test_a_correct_coup_has_no_findings(box_shoe):
    coup = factories.coup(
        box_shoe,
        1,
        *PLAYER_NATURAL,
        reported_winner="player",
        wagers=[wager(1, "player", "100", paid="100"), wager(2, "banker", "50", paid="0")],
    )
    assert coups_check(coup_ids=[coup.pk]) == 0
    assert RuleViolation.objects.count() == 0


def test_draw_rules_and_reported_winner(box_shoe):
    coup = factories.coup(box_shoe, 1, ["KH", "7D", "2C"], ["TS", "6H"], reported_winner="banker")
    other = factories.coup(box_shoe, 2, ["AS", "KC"], ["AH", "KD"])

    assert coups_check(coup_ids=[coup.pk, other.pk]) == 4

    assert findings(coup=coup) == [
        ("player_extra_card", "Player drew a third card (2♣) on 7; the rule says Player stands on 6 or 7."),
        ("reported_winner_mismatch", "Reported winner is Banker, but the cards give Player 9 over Banker 6."),
    ]
    assert findings(coup=other) == [
        (
            "banker_missing_card",
            "Banker stood on 1 after Player stood; the rule says Banker draws "
            "(when Player stands, Banker draws on 0 to 5 and stands on 6 or 7).",
        ),
        ("player_missing_card", "Player stood on 1; the rule says Player draws on 0 to 5."),
    ]
    violation = RuleViolation.objects.get(code="player_extra_card")
    assert (violation.severity, violation.table_id, violation.shoe_id, violation.gaming_day) == (
        "high",
        box_shoe.table_id,
        box_shoe.pk,
        coup.gaming_day,
    )


def test_a_card_seen_more_often_than_the_shoe_holds_counts_the_burn(box_table):
    shoe = factories.shoe(box_table, decks=1, cut_card_position=40, burn=["AS"])
    first = factories.coup(shoe, 1, ["AS", "KH"], ["9D", "KD"])
    second = factories.coup(shoe, 2, ["AS", "QH"], ["9C", "QD"])

    coups_check(coup_ids=[first.pk, second.pk])

    assert findings(coup=first) == [("card_over_capacity", "A♠ was seen 2 times; a 1-deck shoe holds 1.")]
    assert findings(coup=second) == [("card_over_capacity", "A♠ was seen 3 times; a 1-deck shoe holds 1.")]


def test_more_cards_than_the_shoe_holds(box_table):
    shoe = factories.shoe(box_table, decks=1, cut_card_position=40)
    deck = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
    # 13 coups of four cards use the deck exactly (some break the draw rules: not what this test is about).
    coups = [
        factories.coup(
            shoe,
            number,
            deck[4 * (number - 1) : 4 * (number - 1) + 2],
            deck[4 * (number - 1) + 2 : 4 * number],
        )
        for number in range(1, 14)
    ]
    extra = factories.coup(shoe, 14, ["9S", "TH"], ["TD", "KC"])

    coups_check(coup_ids=[coup.pk for coup in [*coups, extra]])

    assert not RuleViolation.objects.filter(code__in=["shoe_overdealt", "card_over_capacity"], coup__in=coups)
    assert findings(coup=extra, code__in=["shoe_overdealt", "card_over_capacity"]) == [
        ("card_over_capacity", "9♠ was seen 2 times; a 1-deck shoe holds 1."),
        ("card_over_capacity", "K♣ was seen 2 times; a 1-deck shoe holds 1."),
        ("card_over_capacity", "10♦ was seen 2 times; a 1-deck shoe holds 1."),
        ("card_over_capacity", "10♥ was seen 2 times; a 1-deck shoe holds 1."),
        ("shoe_overdealt", "56 cards were dealt or burned from this shoe; a 1-deck shoe holds 52."),
    ]


def test_coup_numbers_that_skip(box_shoe):
    factories.coup(box_shoe, 1, *PLAYER_NATURAL)
    third = factories.coup(box_shoe, 3, *PLAYER_NATURAL)
    sixth = factories.coup(box_shoe, 6, *PLAYER_NATURAL)

    coups_check(coup_ids=[third.pk, sixth.pk])

    assert findings(code="coup_number_gap") == [
        ("coup_number_gap", "Coup 3 was posted after coup 1; coup 2 is missing."),
        ("coup_number_gap", "Coup 6 was posted after coup 3; coups 4 to 5 are missing."),
    ]


def test_coups_after_the_shoe_closed(box_shoe):
    late_dealt = factories.coup(box_shoe, 1, *PLAYER_NATURAL, dealt_at=timezone.now() + dt.timedelta(hours=1))
    in_time = factories.coup(box_shoe, 2, *PLAYER_NATURAL, dealt_at=timezone.now() - dt.timedelta(minutes=1))
    shoe_close(shoe=box_shoe, box_counts=[])
    late_recorded = factories.coup(box_shoe, 3, *PLAYER_NATURAL, dealt_at=timezone.now() - dt.timedelta(minutes=1))

    coups_check(coup_ids=[late_dealt.pk, in_time.pk, late_recorded.pk])

    assert findings(coup=late_dealt) == [("coup_after_shoe_closed", "Coup 1 was posted after shoe 1 was closed.")]
    assert findings(coup=in_time) == []
    assert findings(coup=late_recorded) == [("coup_after_shoe_closed", "Coup 3 was posted after shoe 1 was closed.")]


def test_a_payout_that_differs_from_the_paytable(box_shoe):
    coup = factories.coup(
        box_shoe,
        1,
        *PLAYER_NATURAL,
        wagers=[
            wager(1, "player", "100", paid="90"),
            wager(2, "banker", "100", paid="100"),
            wager(3, "tie", "25", paid="0"),
        ],
    )

    coups_check(coup_ids=[coup.pk])

    assert findings() == [
        ("payout_mismatch", "Paid 90.00 on the winning Player bet of 100.00; the paytable pays 100.00."),
        ("payout_mismatch", "Paid 100.00 on the losing Banker bet of 100.00; a losing bet is paid nothing."),
    ]
    assert list(RuleViolation.objects.order_by("seat").values_list("seat", "wager__bet")) == [
        (1, "player"),
        (2, "banker"),
    ]


def test_a_commission_that_differs_from_the_ledger_net_of_reversals(box_shoe):
    coup = factories.coup(box_shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(2, "banker", "40")])
    accrual = CommissionEntry.objects.get(wager__seat=1, kind=EntryKind.ACCRUED)
    assert accrual.amount_minor == 500
    commission_entry_reverse(entry=accrual, note="Keyed on the wrong seat.")

    coups_check(coup_ids=[coup.pk])

    assert findings() == [
        (
            "commission_mismatch",
            "Commission of 0.00 was charged on the winning Banker bet of 100.00; the paytable says 5.00.",
        ),
    ]


def test_table_rules(box_shoe):
    coup = factories.coup(
        box_shoe,
        1,
        *PLAYER_NATURAL,
        wagers=[
            wager(1, "player", "100"),
            wager(1, "banker", "100"),
            wager(2, "player", "20000"),
            wager(3, "tie", "3"),
        ],
    )

    coups_check(coup_ids=[coup.pk])

    assert findings() == [
        ("seat_bet_both_sides", "Seat 1 bet on both Player (100.00) and Banker (100.00) in the same coup."),
        ("wager_over_maximum", "Seat 2 bet 20,000.00 on Player; the table maximum for Player is 10,000.00."),
        ("wager_under_minimum", "Seat 3 bet 3.00 on Tie; the table minimum for Tie is 5.00."),
    ]


def test_a_bet_off_the_paytables_increment(db):
    table = factories.table("MB1", game="mini", preset="mini_commission_box")
    shoe = factories.shoe(table)
    coup = factories.coup(shoe, 1, *PLAYER_NATURAL, wagers=[wager(1, "banker", "27"), wager(2, "banker", "30")])

    coups_check(coup_ids=[coup.pk])

    assert findings() == [
        ("wager_off_increment", "Seat 1 bet 27.00 on Banker; Banker bets go in increments of 5.00."),
    ]


def test_rechecking_never_duplicates_and_clears_then_restores(box_table, box_shoe):
    coup = factories.coup(box_shoe, 1, *PLAYER_NATURAL, wagers=[wager(2, "player", "20000")])
    coups_check(coup_ids=[coup.pk])
    coups_check(coup_ids=[coup.pk])
    (violation,) = RuleViolation.objects.all()
    assert violation.cleared_at is None

    # A rules fix: the table's maximum was wrong, corrected from when the coup was dealt (limits
    # are versioned: a coup is judged by those in force then). The finding no longer holds:
    # cleared, not deleted.
    table_limits_set(
        table=box_table,
        limits={"player": (Decimal("25"), Decimal("50000"))},
        effective_from=coup.dealt_at - dt.timedelta(microseconds=1),
    )
    assert coups_check(coup_ids=[coup.pk]) == 0
    violation.refresh_from_db()
    assert violation.cleared_at is not None

    # The fix is undone (a later set, also in force when the coup was dealt): the same finding
    # holds again, un-cleared, still one row.
    table_limits_set(
        table=box_table, limits={"player": (Decimal("25"), Decimal("10000"))}, effective_from=coup.dealt_at
    )
    assert coups_check(coup_ids=[coup.pk]) == 1
    assert list(RuleViolation.objects.values_list("pk", "cleared_at")) == [(violation.pk, None)]


def test_the_check_leaves_other_checks_findings_alone(box_shoe):
    coup = factories.coup(box_shoe, 1, *PLAYER_NATURAL)
    other = RuleViolation.objects.create(
        code="box_variance",
        message="counted short",
        severity="high",
        fingerprint="box_variance:x",
        table=box_shoe.table,
        shoe=box_shoe,
        coup=coup,
        gaming_day=coup.gaming_day,
        found_by="reconciliation",
    )
    coups_check(coup_ids=[coup.pk])
    other.refresh_from_db()
    assert other.cleared_at is None


def test_recording_a_coup_runs_the_check_after_commit(box_shoe, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        factories.coup(box_shoe, 1, ["KH", "7D", "2C"], ["TS", "6H"])
    assert len(callbacks) == 2  # the check of the coups, the refresh of the table-day's ratings
    assert findings() == [
        ("player_extra_card", "Player drew a third card (2♣) on 7; the rule says Player stands on 6 or 7."),
    ]


def test_a_failed_recording_queues_no_check(box_shoe, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(Exception, match="seat"),
    ):
        factories.coup(box_shoe, 1, *PLAYER_NATURAL, wagers=[wager(99, "player", "100")])
    assert callbacks == []
    assert RuleViolation.objects.count() == 0


# ---------------------------------------------------------------------------------------- the sweep


def _noon(days_ago: int) -> dt.datetime:
    day = timezone.localdate() - dt.timedelta(days=days_ago)
    return dt.datetime.combine(day, dt.time(12), tzinfo=timezone.get_current_timezone())


def test_the_sweep_checks_the_days_asked_for_only(box_table):
    shoe = factories.shoe(box_table)
    before = factories.coup(shoe, 1, ["KH", "7D", "2C"], ["TS", "6H"], dealt_at=_noon(2))
    inside = factories.coup(shoe, 2, ["QH", "7C", "3C"], ["TD", "6D"], dealt_at=_noon(1))
    day = inside.gaming_day

    totals = coups_sweep(first_day=day, last_day=day)

    assert (totals.shoes, totals.coups, totals.holding, totals.created) == (1, 1, 1, 1)
    assert findings() == [
        ("player_extra_card", "Player drew a third card (3♣) on 7; the rule says Player stands on 6 or 7."),
    ]
    assert not RuleViolation.objects.filter(coup=before).exists()

    again = coups_sweep(first_day=day, last_day=day)
    assert (again.holding, again.created, again.cleared, again.restored) == (1, 0, 0, 0)
    assert RuleViolation.objects.count() == 1


PROTECTION_QUERIES_PER_SHOE = 13  # game protection's index and look-ups, per shoe
PROTECTION_QUERIES_PER_TABLE_DAY = 6  # and its tests over a table's gaming day and week
PROTECTION_QUERIES_PER_FINDING = 7  # each protection finding is recorded (or found recorded) on its own


def test_the_sweep_reads_in_bulk(box_table, django_assert_max_num_queries):
    for _ in range(4):
        shoe = factories.shoe(box_table)
        for coup_number in range(1, 11):
            factories.coup(
                shoe,
                coup_number,
                ["KH", "7D", "2C"],
                ["TS", "6H"],
                dealt_at=_noon(1),
                wagers=[wager(1, "player", "100", paid="90"), wager(2, "banker", "100")],
            )
        shoe_close(shoe=shoe, box_counts=[])
    day = timezone.localdate() - dt.timedelta(days=1)

    # 40 coups, 80 wagers, 120 findings (per coup the extra card and the short payout; coups 9 and
    # 10 of each shoe deal a ninth K♥, 7♦, 2♣, 10♠ and 6♥): a handful of queries, not one per coup
    # (SQLite splits the insert into batches of its parameter limit). One of them reads the tables'
    # opens and closes, for play at a closed table. Game protection adds a handful per shoe, and
    # finds the four shoes dealt in the same order: 6 pairs, each once.
    with django_assert_max_num_queries(
        15 + 4 * PROTECTION_QUERIES_PER_SHOE + PROTECTION_QUERIES_PER_TABLE_DAY + 6 * PROTECTION_QUERIES_PER_FINDING
    ):
        totals = coups_sweep(first_day=day, last_day=day)
    assert (totals.coups, totals.holding, totals.created) == (40, 126, 120)
    with django_assert_max_num_queries(
        13 + 4 * PROTECTION_QUERIES_PER_SHOE + PROTECTION_QUERIES_PER_TABLE_DAY + 6 * PROTECTION_QUERIES_PER_FINDING
    ):
        coups_sweep(first_day=day, last_day=day)
    assert RuleViolation.objects.exclude(code="shoe_sequence_repeat").count() == 120
    assert RuleViolation.objects.filter(code="shoe_sequence_repeat").count() == 6


def test_the_reverify_command(box_table):
    shoe = factories.shoe(box_table)
    coup = factories.coup(shoe, 1, ["KH", "7D", "2C"], ["TS", "6H"], dealt_at=_noon(1))
    out, err = StringIO(), StringIO()

    call_command("reverify", "--from", str(coup.gaming_day), "--to", str(coup.gaming_day), stdout=out, stderr=err)

    assert out.getvalue().startswith(f"Re-verified 1 coups in 1 shoes ({coup.gaming_day} to {coup.gaming_day}) in ")
    assert "1 findings hold, 1 new, 0 hold again, 0 cleared." in out.getvalue()
    assert "  player_extra_card: 1\n" in out.getvalue()
    assert "1/1 coups 100.0%" in err.getvalue()
    assert RuleViolation.objects.count() == 1


def test_the_reverify_command_refuses_a_backwards_range(db):
    with pytest.raises(Exception, match="is before --from"):
        call_command("reverify", "--from", "2026-03-02", "--to", "2026-03-01", stdout=StringIO(), stderr=StringIO())


def test_the_nightly_task_sweeps_the_last_complete_gaming_day(box_table):
    from pit.compliance.tasks import coups_sweep_task
    from pit.core.gaming_day import current_gaming_day

    tz = timezone.get_current_timezone()
    last_complete = current_gaming_day() - dt.timedelta(days=1)
    shoe = factories.shoe(box_table)
    earlier = factories.coup(
        shoe,
        1,
        ["KH", "7D", "2C"],
        ["TS", "6H"],
        dealt_at=dt.datetime.combine(last_complete - dt.timedelta(days=2), dt.time(12), tz),
    )
    swept = factories.coup(
        shoe, 2, ["QH", "7C", "3C"], ["TD", "6D"], dealt_at=dt.datetime.combine(last_complete, dt.time(12), tz)
    )

    result = coups_sweep_task.delay().get()

    assert result == {"coups": 1, "holding": 1, "created": 1, "restored": 0, "cleared": 0}
    assert list(RuleViolation.objects.values_list("coup", flat=True)) == [swept.pk]
    assert not RuleViolation.objects.filter(coup=earlier).exists()


def test_a_banker_card_the_rule_did_not_call_for(box_shoe):
    coup = factories.coup(box_shoe, 1, ["7S", "KH"], ["6H", "KD", "3C"])

    coups_check(coup_ids=[coup.pk])

    assert findings() == [
        (
            "banker_extra_card",
            "Banker drew a third card (3♣) on 6 after Player stood; the rule says Banker stands "
            "(when Player stands, Banker draws on 0 to 5 and stands on 6 or 7).",
        ),
    ]


def test_hands_of_the_wrong_size_are_found_once_per_hand(box_shoe):
    # The services refuse such a coup; rows loaded around them (an import, a repair) are still checked.
    coup = factories.coup(box_shoe, 1, *PLAYER_NATURAL)
    rewrite(Coup.objects.filter(pk=coup.pk), player_cards=["9S"], banker_cards=["TS", "KD", "2C", "3C"])

    coups_check(coup_ids=[coup.pk])
    coups_check(coup_ids=[coup.pk])

    assert list(
        RuleViolation.objects.filter(code="hand_size").order_by("fingerprint").values_list("fingerprint", "message")
    ) == [
        (f"hand_size:banker:coup{coup.pk}", "Banker holds 4 cards (10♠ K♦ 2♣ 3♣); a hand holds two or three cards."),
        (f"hand_size:player:coup{coup.pk}", "Player holds 1 card (9♠); a hand holds two or three cards."),
    ]


def test_a_replay_after_an_outage_is_not_after_the_close(box_shoe):
    """The floor comes back hours later: it replays the shoe's coups, then the close of a shuffle long past."""
    shuffle = timezone.now() - dt.timedelta(hours=5)
    replayed = factories.coup(box_shoe, 1, *PLAYER_NATURAL, dealt_at=shuffle - dt.timedelta(minutes=2))
    shoe_close(shoe=box_shoe, box_counts=[], closed_at=shuffle)
    after = factories.coup(box_shoe, 2, *PLAYER_NATURAL, dealt_at=shuffle - dt.timedelta(minutes=1))

    coups_check(coup_ids=[replayed.pk, after.pk])

    assert findings(coup=replayed) == []
    assert findings(coup=after) == [("coup_after_shoe_closed", "Coup 2 was posted after shoe 1 was closed.")]
