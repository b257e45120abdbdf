"""Recording coups: settlement figures, ledger accruals, replays, conflicts, invalid input, batches."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.core.errors import Conflict
from pit.ledger.models import CommissionEntry
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.services import CoupInput, CoupOutcomeStatus, WagerInput, coup_record, coups_record
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def wagers(*lines):
    return tuple(WagerInput(seat=seat, bet=bet, amount=Decimal(amount)) for seat, bet, amount in lines)


def settled(coup):
    return list(
        Wager.objects.filter(coup=coup)
        .order_by("seat", "bet")
        .values_list("seat", "bet", "amount_minor", "result", "payout_minor", "commission_minor")
    )


def written():
    return (
        Coup.objects.count(),
        Wager.objects.count(),
        CommissionEntry.objects.count(),
        RuleViolation.objects.count(),
    )


MIXED = (
    (1, "banker", "100"),
    (2, "banker", "10.10"),
    (3, "player", "100"),
    (5, "tie", "10"),
)


def test_commission_box_settles_and_accrues_commission(django_user_model):
    user = django_user_model.objects.create_user("terminal", password="x")
    shoe = factories.shoe(factories.table(preset="commission_box"), burn=["AS"])
    dealt_at = dt.datetime(2026, 3, 1, 22, 15, tzinfo=dt.UTC)
    outcome = coup_record(
        shoe=shoe,
        coup=CoupInput(
            number=1,
            player=hands.PLAYER_PAIR[0],
            banker=hands.PLAYER_PAIR[1],
            dealt_at=dealt_at,
            reported_winner="banker",
            wagers=wagers(*MIXED),
        ),
        actor=Actor(user=user),
    )
    assert outcome.status == CoupOutcomeStatus.CREATED
    coup = Coup.objects.get(pk=outcome.coup.pk)
    assert (coup.number, coup.player_cards, coup.banker_cards) == (1, ["9H", "9D"], ["9C", "KS"])
    assert (coup.player_total, coup.banker_total, coup.winner, coup.natural) == (8, 9, "banker", True)
    assert (coup.player_pair, coup.banker_pair, coup.reported_winner) == (True, False, "banker")
    assert (coup.dealt_at, coup.gaming_day) == (dealt_at, dt.date(2026, 3, 1))
    assert (coup.paytable_id, coup.recorded_by_user_id) == (shoe.table.paytable_id, user.pk)
    assert settled(coup) == [
        (1, "banker", 10000, "win", 10000, 500),
        (2, "banker", 1010, "win", 1010, 51),
        (3, "player", 10000, "lose", 0, 0),
        (5, "tie", 1000, "lose", 0, 0),
    ]
    assert list(
        CommissionEntry.objects.order_by("seat").values_list("seat", "kind", "amount_minor", "currency", "wager__bet")
    ) == [(1, "accrued", 500, "USD", "banker"), (2, "accrued", 51, "USD", "banker")]
    shoe = Shoe.objects.get(pk=shoe.pk)
    assert shoe.cards_seen == {"9C": 1, "9D": 1, "9H": 1, "AS": 1, "KS": 1}
    assert (shoe.cards_dealt, shoe.coups_recorded) == (4, 1)


@pytest.mark.parametrize(
    ("preset", "cards", "expected"),
    [
        (
            "commission_deducted",
            hands.BANKER_NATURAL,
            [
                (1, "banker", 10000, "win", 9500, 0),
                (2, "banker", 1010, "win", 959, 0),
                (3, "player", 10000, "lose", 0, 0),
                (5, "tie", 1000, "lose", 0, 0),
            ],
        ),
        (
            "no_commission",
            hands.BANKER_SIX,
            [
                (1, "banker", 10000, "win", 5000, 0),
                (2, "banker", 1010, "win", 505, 0),
                (3, "player", 10000, "lose", 0, 0),
                (5, "tie", 1000, "lose", 0, 0),
            ],
        ),
        (
            "no_commission",
            hands.TIE,
            [
                (1, "banker", 10000, "push", 0, 0),
                (2, "banker", 1010, "push", 0, 0),
                (3, "player", 10000, "push", 0, 0),
                (5, "tie", 1000, "win", 8000, 0),
            ],
        ),
        (
            "ez_baccarat",
            hands.DRAGON_7,
            [
                (1, "banker", 10000, "push", 0, 0),
                (2, "banker", 1010, "push", 0, 0),
                (3, "player", 10000, "lose", 0, 0),
                (5, "tie", 1000, "lose", 0, 0),
            ],
        ),
    ],
)
def test_settlement_without_a_commission_box_accrues_nothing(preset, cards, expected):
    shoe = factories.shoe(factories.table(preset=preset))
    coup = factories.coup(shoe, 1, *cards, wagers=wagers(*MIXED))
    assert settled(coup) == expected
    assert CommissionEntry.objects.count() == 0


def test_ez_dragon_7_pays_40_to_1():
    shoe = factories.shoe(factories.table(preset="ez_baccarat"))
    coup = factories.coup(shoe, 1, *hands.DRAGON_7, wagers=wagers((1, "dragon_7", "25"), (2, "panda_8", "25")))
    assert settled(coup) == [(1, "dragon_7", 2500, "win", 100000, 0), (2, "panda_8", 2500, "lose", 0, 0)]


def test_replay_returns_the_recorded_coup_and_writes_nothing(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    item = CoupInput(
        number=1,
        player=hands.BANKER_NATURAL[0],
        banker=hands.BANKER_NATURAL[1],
        wagers=wagers((1, "banker", "100")),
    )
    with django_capture_on_commit_callbacks() as first:
        created = coup_record(shoe=shoe, coup=item)
    assert len(first) == 2  # the check of the coup, the refresh of the table-day's ratings
    before, seen = written(), Shoe.objects.get(pk=shoe.pk).cards_seen
    with django_capture_on_commit_callbacks() as callbacks:
        replay = coup_record(shoe=shoe, coup=item)
    assert (replay.status, replay.coup.pk) == (CoupOutcomeStatus.EXISTING, created.coup.pk)
    assert callbacks == []
    assert written() == before
    shoe = Shoe.objects.get(pk=shoe.pk)
    assert (shoe.cards_seen, shoe.cards_dealt, shoe.coups_recorded) == (seen, 4, 1)


def test_conflict_records_one_violation_and_nothing_else(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    recorded = factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=wagers((1, "banker", "100")))
    before = written()
    other = CoupInput(
        number=1,
        player=hands.PLAYER_NATURAL[0],
        banker=hands.PLAYER_NATURAL[1],
        wagers=wagers((1, "player", "100")),
    )
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(Conflict) as caught:
        coup_record(shoe=shoe, coup=other)
    violation = RuleViolation.objects.get()
    assert caught.value.details == {"coup_id": recorded.pk, "violation_id": violation.pk}
    assert (violation.coup_id, violation.shoe_id, violation.table_id) == (recorded.pk, shoe.pk, shoe.table_id)
    assert (violation.found_by, violation.gaming_day, violation.status) == (
        "coup_recording",
        recorded.gaming_day,
        "open",
    )
    assert violation.fingerprint.startswith(f"coup_conflict:coup{recorded.pk}:")
    assert callbacks == []
    assert written() == (before[0], before[1], before[2], before[3] + 1)
    assert Shoe.objects.get(pk=shoe.pk).coups_recorded == 1

    with pytest.raises(Conflict):  # posting the same other cards again finds the same violation
        coup_record(shoe=shoe, coup=other)
    assert RuleViolation.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({"player": ["2H", "ZZ"]}, {"player"}),
        ({"banker": ["4C"]}, {"banker"}),
        ({"banker": "4C 5S"}, {"banker"}),
        ({"number": 0}, {"number"}),
        ({"reported_winner": "dragon"}, {"reported_winner"}),
        ({"wagers": wagers((4, "banker", "100"))}, {"wagers[0].seat"}),
        ({"wagers": wagers((1, "dragon_7", "100"))}, {"wagers[0].bet"}),
        ({"wagers": wagers((1, "banker", "0"))}, {"wagers[0].amount"}),
        ({"wagers": wagers((1, "banker", "10.001"))}, {"wagers[0].amount"}),
        ({"wagers": wagers((1, "banker", "10"), (1, "banker", "20"))}, {"wagers[1].bet"}),
        (
            {"wagers": (WagerInput(seat=1, bet="banker", amount=Decimal("10"), paid=Decimal("-1")),)},
            {"wagers[0].paid"},
        ),
    ],
)
def test_invalid_coup_writes_nothing_and_enqueues_nothing(django_capture_on_commit_callbacks, change, errors):
    shoe = factories.shoe()
    fields = {"number": 1, "player": hands.BANKER_NATURAL[0], "banker": hands.BANKER_NATURAL[1], **change}
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(ValidationError) as caught:
        coup_record(shoe=shoe, coup=CoupInput(**fields))
    assert set(caught.value.message_dict) == errors
    assert callbacks == []
    assert written() == (0, 0, 0, 0)
    shoe = Shoe.objects.get(pk=shoe.pk)
    assert (shoe.cards_seen, shoe.cards_dealt, shoe.coups_recorded) == ({}, 0, 0)


def test_invalid_wager_names_the_seats_of_the_table():
    shoe = factories.shoe(factories.table(game="mini"))
    with pytest.raises(ValidationError) as caught:
        factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=wagers((9, "banker", "100")))
    assert caught.value.message_dict == {
        "wagers[0].seat": ["9 is not a seat at table BB1 (seats 1, 2, 3, 5, 6, 7, 8)."]
    }


def test_batch_judges_each_coup_on_its_own(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    factories.coup(shoe, 1, *hands.BANKER_NATURAL)
    batch = [
        CoupInput(number=1, player=hands.BANKER_NATURAL[0], banker=hands.BANKER_NATURAL[1]),  # replay
        CoupInput(number=2, player=hands.TIE[0], banker=hands.TIE[1], wagers=wagers((1, "banker", "100"))),
        CoupInput(number=3, player=["2H", "XX"], banker=hands.TIE[1]),  # invalid
        CoupInput(
            number=4,
            player=hands.BANKER_SIX[0],
            banker=hands.BANKER_SIX[1],
            wagers=wagers((2, "banker", "20")),
        ),
        CoupInput(  # the batch's own duplicate, the same in every field
            number=2, player=hands.TIE[0], banker=hands.TIE[1], wagers=wagers((1, "banker", "100"))
        ),
        CoupInput(number=4, player=hands.PLAYER_NATURAL[0], banker=hands.PLAYER_NATURAL[1]),  # duplicate, other cards
        CoupInput(number=1, player=hands.PLAYER_NATURAL[0], banker=hands.PLAYER_NATURAL[1]),  # conflict with stored
    ]
    with django_capture_on_commit_callbacks() as callbacks:
        outcomes = coups_record(shoe=shoe, coups=batch)
    assert [outcome.status for outcome in outcomes] == [
        "existing",
        "created",
        "invalid",
        "created",
        "existing",
        "conflict",
        "conflict",
    ]
    stored = {coup.number: coup.pk for coup in Coup.objects.filter(shoe=shoe)}
    assert sorted(stored) == [1, 2, 4]
    assert [outcome.coup.pk if outcome.coup else None for outcome in outcomes] == [
        stored[1],
        stored[2],
        None,
        stored[4],
        stored[2],
        stored[4],
        stored[1],
    ]
    assert list(outcomes[2].errors) == ["player"]
    assert outcomes[5].errors == {  # judged against the first coup 4 of the batch, stored now
        "player": ["recorded KH 5D QS, posted 8H KD"],
        "banker": ["recorded QC 6S, posted 2C 3S"],
        "wagers": ["seat 2 banker 20.00 was recorded and is not in the repost"],
    }
    # Each conflicting posting is flagged once, against the coup that holds the number.
    assert sorted(RuleViolation.objects.values_list("coup_id", "found_by")) == [
        (stored[1], "coup_recording"),
        (stored[4], "coup_recording"),
    ]
    assert {outcomes[5].violation.pk, outcomes[6].violation.pk} == set(
        RuleViolation.objects.values_list("pk", flat=True)
    )
    again = coups_record(shoe=shoe, coups=batch[5:])
    assert [outcome.status for outcome in again] == ["conflict", "conflict"]
    assert RuleViolation.objects.count() == 2
    assert len(callbacks) == 2  # the check of the coups, the refresh of the table-day's ratings
    assert list(CommissionEntry.objects.order_by("seat").values_list("seat", "amount_minor")) == [(2, 100)]
    shoe = Shoe.objects.get(pk=shoe.pk)
    assert (shoe.coups_recorded, shoe.cards_dealt) == (3, 4 + 4 + 5)


def test_verification_runs_after_commit_and_flags_a_missing_draw(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    with django_capture_on_commit_callbacks(execute=True):
        coup = factories.coup(shoe, 1, *hands.MISSING_DRAW)
    assert list(RuleViolation.objects.values_list("code", "coup_id", "found_by")) == [
        ("player_missing_card", coup.pk, "coup_verification")
    ]


@pytest.mark.parametrize(
    ("moment", "day"),
    [
        (dt.datetime(2026, 3, 2, 5, 59, 59), dt.date(2026, 3, 1)),
        (dt.datetime(2026, 3, 2, 6, 0, 0), dt.date(2026, 3, 2)),
        (dt.datetime(2026, 3, 2, 0, 0, 0), dt.date(2026, 3, 1)),
        (dt.datetime(2026, 3, 2, 23, 59, 59), dt.date(2026, 3, 2)),
    ],
)
def test_gaming_day_starts_at_6_in_the_casino_time_zone(settings, moment, day):
    from zoneinfo import ZoneInfo

    settings.TIME_ZONE = "Asia/Macau"
    dealt_at = moment.replace(tzinfo=ZoneInfo("Asia/Macau"))
    shoe = factories.shoe()
    coup = factories.coup(shoe, 1, *hands.BANKER_NATURAL, dealt_at=dealt_at.astimezone(dt.UTC))
    assert Coup.objects.get(pk=coup.pk).gaming_day == day


def test_gaming_day_bounds_are_06_00_to_06_00_casino_time(settings):
    from zoneinfo import ZoneInfo

    from pit.core.gaming_day import gaming_day_bounds, gaming_day_for

    settings.TIME_ZONE = "Asia/Macau"
    start, end = gaming_day_bounds(dt.date(2026, 3, 1))
    macau = ZoneInfo("Asia/Macau")
    assert (start, end) == (
        dt.datetime(2026, 3, 1, 6, tzinfo=macau),
        dt.datetime(2026, 3, 2, 6, tzinfo=macau),
    )
    assert start.astimezone(dt.UTC) == dt.datetime(2026, 2, 28, 22, 0, tzinfo=dt.UTC)
    assert gaming_day_for(start) == dt.date(2026, 3, 1)
    assert gaming_day_for(end - dt.timedelta(microseconds=1)) == dt.date(2026, 3, 1)
    assert gaming_day_for(end) == dt.date(2026, 3, 2)


@pytest.mark.postgres
def test_on_postgresql_a_days_batch_is_stored_as_the_engine_settles_it_and_chained():
    """The batch's array insert (PostgreSQL) writes each row as the engine settled it, with the
    writer, one recorded time, and hash links that verify."""
    import random

    from pit import game
    from pit.accounts.services import device_create
    from pit.core.gaming_day import gaming_day_for
    from pit.records.selectors import chains_verify

    shoe = factories.shoe()
    device, _ = device_create(table=shoe.table, name="shoe reader")
    rng, dealt, posted = random.Random(16), game.new_shoe(8, random.Random(16)), []
    for number in range(1, 61):
        coup = dealt.deal_coup()
        wagers = tuple(
            factories.wager(seat, bet, str(rng.choice((25, 100, 250))), paid=rng.choice((None, "0")))
            for seat, bet in zip(
                (1, 2, 3, 5, 6, 7, 8),
                ("banker", "player", "banker", "tie", "banker", "player_pair", "banker"),
                strict=True,
            )
        )
        naive = number % 2 == 0  # a naive time is taken in the default time zone, as Django stores one
        dealt_at = dt.datetime(2026, 3, 2, 20, 0) + dt.timedelta(minutes=number)
        posted.append(
            CoupInput(
                number=number,
                player=[c.code for c in coup.player],
                banker=[c.code for c in coup.banker],
                wagers=wagers,
                dealt_at=dealt_at if naive else dealt_at.replace(tzinfo=dt.UTC),
            )
        )
    outcomes = coups_record(shoe=shoe, coups=posted, actor=Actor(device=device))
    assert {outcome.status for outcome in outcomes} == {"created"}
    paytable = game.PRESETS["commission_box"]
    for item, outcome in zip(posted, outcomes, strict=True):
        coup = Coup.objects.get(pk=outcome.coup.pk)
        evaluation = game.evaluate(game.Coup.from_codes(item.player, item.banker))
        assert (coup.number, coup.player_cards, coup.banker_cards, coup.winner, coup.recorded_by_device_id) == (
            item.number,
            item.player,
            item.banker,
            str(evaluation.winner),
            device.pk,
        )
        moment = item.dealt_at if item.dealt_at.tzinfo else item.dealt_at.replace(tzinfo=dt.UTC)  # TIME_ZONE UTC
        assert (coup.dealt_at, coup.gaming_day) == (moment, gaming_day_for(moment))
        expected = []
        for wager in item.wagers:
            settled = game.settle(paytable, wager.bet, wager.amount, evaluation)
            expected.append(
                (
                    wager.seat,
                    wager.bet,
                    int(wager.amount * 100),
                    str(settled.result),
                    int(settled.payout * 100),
                    int(settled.commission * 100),
                    None if wager.paid is None else 0,
                )
            )
        assert sorted(
            coup.wagers.values_list(
                "seat", "bet", "amount_minor", "result", "payout_minor", "commission_minor", "paid_minor"
            )
        ) == sorted(expected)
        assert [(w.seat, w.commission_minor) for w in outcome.wagers] == [(w[0], w[5]) for w in expected]
    entries = CommissionEntry.objects.filter(shoe=shoe)
    assert sorted(entries.values_list("wager_id", "amount_minor")) == sorted(
        Wager.objects.filter(coup__shoe=shoe, commission_minor__gt=0).values_list("pk", "commission_minor")
    )
    assert entries.count() > 0 and set(entries.values_list("kind", "recorded_by_device_id")) == {("accrued", device.pk)}
    assert Coup.objects.filter(shoe=shoe).values("recorded_at").distinct().count() == 1
    verification = chains_verify(shoe_ids=[shoe.pk])
    assert verification.breaks == [] and verification.rows == 60 + 420 + entries.count()


def test_refusals_write_nothing_and_leave_the_callers_transaction_usable():
    """coup_record's block takes no savepoint inside a caller's transaction: its refusals (a shoe of
    another table, a malformed coup, no such shoe) are raised after it, and the caller goes on."""
    from django.db import transaction

    from pit.shoes.services import ShoeAtOtherTable

    shoe, other = factories.shoe(factories.table("AT1")), factories.table("AT2")
    good = CoupInput(number=1, player=["KH", "5D"], banker=["9S", "QC"], wagers=wagers((1, "banker", "100")))
    with transaction.atomic():
        with pytest.raises(ShoeAtOtherTable) as refused:
            coup_record(shoe=shoe.pk, coup=good, at_table=other.pk)
        assert refused.value.table.code == "AT1"
        with pytest.raises(ValidationError):
            coup_record(shoe=shoe.pk, coup=CoupInput(number=1, player=["KH"], banker=["9S", "QC"]))
        with pytest.raises(Shoe.DoesNotExist):
            coup_record(shoe=-1, coup=good)
        assert written() == (0, 0, 0, 0)
        outcome = coup_record(shoe=shoe.pk, coup=good, at_table=shoe.table_id)
    assert outcome.status == CoupOutcomeStatus.CREATED
    assert written() == (1, 1, 1, 0)  # the banker win accrues its commission
