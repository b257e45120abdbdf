"""The meter: base + contributions (rate x standing stakes at the bank's tables) + resets - payouts,
recomputed here from the rows; payouts with two signers; the database refuses a meter that goes down."""

import datetime as dt
from decimal import ROUND_FLOOR, Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from pit.core.actors import Actor
from pit.core.models import OutboxMessage
from pit.core.queues import METERS_TASK
from pit.progressives.models import MeterConfiguration, MeterPayout, MeterReading
from pit.progressives.selectors import meter_figures
from pit.progressives.services import (
    meter_configuration_file,
    meter_file,
    meter_payout_record,
    meters_read,
)
from pit.shoes.models import Wager
from pit.shoes.services import coup_correct, coup_void
from tests import factories
from tests.progressives.conftest import PASSWORD
from tests.shoes import hands

pytestmark = pytest.mark.django_db

NO_PAIR = hands.BANKER_NATURAL


def deal(bank, code, number, cards, *wagers, minutes=1):
    return factories.coup(
        bank.shoes[code],
        number,
        *cards,
        dealt_at=bank.start + dt.timedelta(minutes=number + minutes),
        wagers=[factories.wager(*w) for w in wagers],
    )


def independent_meter_minor(bank) -> int:
    """The meter from the rows, not from the selector: base + 5% of every standing Player Pair stake of
    the bank's tables + each payout's reset - each payout's amount, floored to the cent."""
    rows = Wager.objects.filter(
        bet="player_pair", coup__shoe__table__code__in=["BB1", "BB2"], coup__dealt_at__gte=bank.start
    ).select_related("coup")
    stakes = 0
    for wager in rows:
        versions = sorted(wager.coup.corrections.all(), key=lambda c: c.sequence)
        latest = versions[-1].pk if versions else None
        if wager.correction_id == latest:
            stakes += wager.amount_minor
    payouts = list(MeterPayout.objects.filter(meter=bank.meter))
    exact = (
        Decimal(100000)
        + Decimal("0.05") * stakes
        + sum(p.reset_minor for p in payouts)
        - sum(p.amount_minor for p in payouts)
    )
    return int(exact.to_integral_value(rounding=ROUND_FLOOR))


def test_the_meter_is_base_plus_rate_times_the_standing_stakes_of_the_bank(bank):
    deal(bank, "BB1", 1, NO_PAIR, (1, "player_pair", "25"), (1, "banker", "500"), (2, "player_pair", "10"))
    deal(bank, "BB2", 1, NO_PAIR, (3, "player_pair", "33.33"))
    deal(bank, "BB3", 1, NO_PAIR, (1, "player_pair", "1000"))  # not of the bank
    figures = meter_figures(bank.meter)
    assert figures.stakes_minor == 2500 + 1000 + 3333
    assert figures.contributions == Decimal("341.65")  # 5% of 6,833 cents
    assert figures.exact == Decimal("100341.65")
    assert figures.amount_minor == 100341 == independent_meter_minor(bank)
    assert figures.carried == 0 and figures.payouts == 0


def test_wagers_before_the_meter_started_do_not_feed_it(bank):
    factories.coup(
        bank.shoes["BB1"],
        1,
        *NO_PAIR,
        dealt_at=bank.start - dt.timedelta(minutes=1),
        wagers=[factories.wager(1, "player_pair", "100")],
    )
    assert meter_figures(bank.meter).amount_minor == 100000


def test_a_hit_is_paid_at_the_meter_and_resets_it_to_the_filed_reset(bank):
    deal(bank, "BB1", 1, NO_PAIR, (1, "player_pair", "100"))
    hit = deal(bank, "BB2", 1, hands.PLAYER_PAIR, (2, "player_pair", "50"))
    assert meter_figures(bank.meter).amount_minor == 100750
    payout = meter_payout_record(
        meter=bank.meter,
        coup=hit,
        seat=2,
        paid_by=bank.boss,
        witnessed_by=bank.cashier,
        actor=Actor(user=bank.boss),
        secrets={"witnessed_by": PASSWORD},
    )
    assert (payout.amount_minor, payout.reset_minor, payout.table_id) == (100750, 50000, bank.bb2.pk)
    readings = list(MeterReading.objects.filter(meter=bank.meter).order_by("id").values_list("amount_minor", "payout"))
    assert readings == [(100750, None), (50000, payout.pk)]
    assert meter_figures(bank.meter).amount_minor == 50000 == independent_meter_minor(bank)
    # Contributions go on after the reset.
    deal(bank, "BB1", 2, NO_PAIR, (1, "player_pair", "20"))
    assert meter_figures(bank.meter).amount_minor == 50100 == independent_meter_minor(bank)


def test_a_payout_needs_two_people_entitled_to_sign(bank):
    hit = deal(bank, "BB1", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    actor = Actor(user=bank.boss)
    cases = [
        ({"paid_by": bank.boss, "witnessed_by": bank.boss}, "witnessed_by"),
        ({"paid_by": bank.cashier, "witnessed_by": bank.boss}, "paid_by"),  # the cage does not pay as pit boss
        ({"paid_by": bank.boss, "witnessed_by": bank.accountant}, "witnessed_by"),  # not a second signer's role
        ({"paid_by": bank.boss, "witnessed_by": None}, "witnessed_by"),
        ({"paid_by": bank.boss, "witnessed_by": bank.cashier}, "witnessed_by_password"),  # signs by password
    ]
    for signers, field in cases:
        with pytest.raises(ValidationError) as error:
            meter_payout_record(meter=bank.meter, coup=hit, seat=1, actor=actor, **signers)
        assert field in error.value.message_dict, (signers, error.value)
    with pytest.raises(ValidationError) as error:
        meter_payout_record(
            meter=bank.meter,
            coup=hit,
            seat=1,
            paid_by=bank.boss,
            witnessed_by=bank.cashier,
            actor=actor,
            secrets={"witnessed_by": "not it"},
        )
    assert "witnessed_by_password" in error.value.message_dict
    assert not MeterPayout.objects.exists() and not MeterReading.objects.exists()


def test_the_database_holds_two_signers(bank):
    hit = deal(bank, "BB1", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        MeterPayout.objects.create(
            meter=bank.meter,
            coup=hit,
            table=bank.bb1,
            seat=1,
            amount_minor=100500,
            reset_minor=50000,
            paid_by=bank.boss,
            witnessed_by=bank.boss,
        )


def test_only_a_standing_winning_wager_of_a_bank_table_is_paid(bank):
    lost = deal(bank, "BB1", 1, NO_PAIR, (1, "player_pair", "100"))
    outside = deal(bank, "BB3", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    signers = {"paid_by": bank.boss, "witnessed_by": bank.cashier}
    for coup, seat, field in [(lost, 1, "seat"), (outside, 1, "coup")]:
        with pytest.raises(ValidationError) as error:
            meter_payout_record(meter=bank.meter, coup=coup, seat=seat, **signers)
        assert field in error.value.message_dict
    hit = deal(bank, "BB2", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    coup_void(coup=hit, reason="misdeal")
    with pytest.raises(ValidationError) as error:
        meter_payout_record(meter=bank.meter, coup=hit, seat=1, **signers)
    assert "seat" in error.value.message_dict
    assert not MeterPayout.objects.exists()


def test_the_same_hit_is_paid_once(bank):
    hit = deal(bank, "BB1", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    signers = {"paid_by": bank.boss, "witnessed_by": bank.cashier}
    meter_payout_record(meter=bank.meter, coup=hit, seat=1, **signers)
    with pytest.raises(ValidationError):
        meter_payout_record(meter=bank.meter, coup=hit, seat=1, **signers)
    assert MeterPayout.objects.count() == 1


def test_a_void_lowers_the_contributions_and_the_meter_carries_them(bank, django_capture_on_commit_callbacks):
    deal(bank, "BB1", 1, NO_PAIR, (1, "player_pair", "100"))
    coup = deal(bank, "BB2", 1, NO_PAIR, (1, "player_pair", "200"), (2, "player_pair", "40"))
    before = meter_figures(bank.meter)
    assert (before.contributions, before.amount_minor) == (Decimal("1700.00"), 101700)
    meters_read()
    owed = OutboxMessage.objects.filter(task_name=METERS_TASK).count()
    coup_void(coup=coup, reason="misdeal")
    # The void owes the meters' re-check of its shoe through the outbox.
    assert OutboxMessage.objects.filter(task_name=METERS_TASK).count() == owed + 1
    after = meter_figures(bank.meter)
    assert after.contributions == Decimal("500.00")  # only BB1's 100 stands
    assert (after.withdrawn_minor, after.carried) == (24000, Decimal("1200.00"))
    assert after.amount_minor == 101700  # the meter did not go down
    [reading] = meters_read()
    assert (reading.amount_minor, reading.contributions, reading.carried) == (101700, 500, 1200)
    # A correction down carries the difference; a correction back up is a contribution again.
    other = deal(bank, "BB1", 2, NO_PAIR, (1, "player_pair", "100"))
    coup_correct(coup=other, wagers=(factories.wager(1, "player_pair", "60"),), reason="misread stake")
    figures = meter_figures(bank.meter)
    assert (figures.contributions, figures.carried, figures.amount_minor) == (
        Decimal("800.00"),
        Decimal("1400.00"),
        102200,
    )


def test_the_database_refuses_a_reading_that_goes_down(bank):
    MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
    with pytest.raises(IntegrityError, match="never goes down"), transaction.atomic():
        MeterReading.objects.create(meter=bank.meter, amount_minor=100499, contributions=499, carried=0)
    MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
    assert MeterReading.objects.count() == 2


def test_the_database_refuses_a_payout_of_other_than_the_last_reading_and_a_false_reset(bank):
    hit = deal(bank, "BB1", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
    fields = {
        "meter": bank.meter,
        "coup": hit,
        "table": bank.bb1,
        "seat": 1,
        "reset_minor": 50000,
        "paid_by": bank.boss,
        "witnessed_by": bank.cashier,
    }
    with pytest.raises(IntegrityError, match="last reading"), transaction.atomic():
        MeterPayout.objects.create(amount_minor=100000, **fields)
    payout = MeterPayout.objects.create(amount_minor=100500, **fields)
    with pytest.raises(IntegrityError, match="reset amount"), transaction.atomic():
        MeterReading.objects.create(meter=bank.meter, amount_minor=1, contributions=500, carried=0, payout=payout)
    assert MeterReading.objects.count() == 1


def test_a_configuration_is_never_backdated_and_the_rate_applies_from_it(bank):
    with pytest.raises(ValidationError) as error:
        meter_configuration_file(
            meter=bank.meter,
            effective_from=timezone.now() - dt.timedelta(minutes=1),
            reset=Decimal("500"),
            rate=Decimal("0.1"),
            tables=[bank.bb1],
            filing_reference="DGE-2026-118",
        )
    assert "effective_from" in error.value.message_dict
    assert MeterConfiguration.objects.count() == 1
    later = timezone.now() + dt.timedelta(minutes=5)
    v2 = meter_configuration_file(
        meter=bank.meter,
        effective_from=later,
        reset=Decimal("600"),
        rate=Decimal("0.1"),
        tables=[bank.bb1],
        filing_reference="DGE-2026-118",
    )
    assert (v2.version, v2.base_minor, v2.reset_minor, v2.rate) == (2, 100000, 60000, Decimal("0.1"))
    bank.start = later - dt.timedelta(minutes=3)  # deal() dates coups from here
    deal(bank, "BB1", 1, NO_PAIR, (1, "player_pair", "100"))  # before v2: 5%
    deal(bank, "BB1", 5, NO_PAIR, (1, "player_pair", "100"))  # after: 10%
    deal(bank, "BB2", 6, NO_PAIR, (1, "player_pair", "100"))  # BB2 left the bank in v2
    assert meter_figures(bank.meter, now=later).contributions == Decimal("1500.00")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rate": Decimal("0")}, "rate"),
        ({"rate": Decimal("1")}, "rate"),
        ({"rate": Decimal("0.0000001")}, "rate"),
        ({"base": Decimal("0")}, "base"),
        ({"reset": Decimal("0.001")}, "reset"),
        ({"bet": "lucky_six"}, "tables"),
        ({"currency": "EUR"}, "tables"),
        ({"filing_reference": " "}, "filing_reference"),
        ({"tables": []}, "tables"),
    ],
)
def test_a_filing_names_what_is_wrong_and_writes_nothing(bank, change, field):
    filing = {
        "code": "PP2",
        "name": "Another",
        "bet": "player_pair",
        "currency": "USD",
        "effective_from": bank.start,
        "base": Decimal("1000"),
        "reset": Decimal("500"),
        "rate": Decimal("0.05"),
        "tables": [bank.bb3],
        "filing_reference": "DGE-2026-119",
    }
    with pytest.raises(ValidationError) as error:
        meter_file(**{**filing, **change})
    assert field in error.value.message_dict
    assert MeterConfiguration.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_refuses_a_meter_that_goes_down_and_a_payout_off_the_reading(bank):
    assert connection.vendor == "postgresql"
    hit = deal(bank, "BB1", 1, hands.PLAYER_PAIR, (1, "player_pair", "100"))
    MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
    with pytest.raises(IntegrityError, match="never goes down"), transaction.atomic():
        MeterReading.objects.create(meter=bank.meter, amount_minor=100499, contributions=499, carried=0)
    with pytest.raises(IntegrityError, match="last reading"), transaction.atomic():
        MeterPayout.objects.create(
            meter=bank.meter,
            coup=hit,
            table=bank.bb1,
            seat=1,
            amount_minor=1,
            reset_minor=50000,
            paid_by=bank.boss,
            witnessed_by=bank.cashier,
        )
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE progressives_meterreading SET amount_minor = 1")
    with pytest.raises(IntegrityError, match="foreign key"), transaction.atomic():
        MeterReading.objects.create(meter=bank.meter, amount_minor=100500, contributions=500, carried=0)
        MeterPayout.objects.create(
            meter=bank.meter,
            coup_id=hit.pk + 10_000,
            table=bank.bb1,
            seat=1,
            amount_minor=100500,
            reset_minor=50000,
            paid_by=bank.boss,
            witnessed_by=bank.cashier,
        )
    payout = meter_payout_record(meter=bank.meter, coup=hit, seat=1, paid_by=bank.boss, witnessed_by=bank.cashier)
    assert payout.amount_minor == 100500
    assert meter_figures(bank.meter).amount_minor == 50000
