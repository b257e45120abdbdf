"""Coups racing the close of their shoe: whatever order the floor's writes reach the back-office
in, after reconciliation every seat's balance is zero, and the reconciliation with its supplements
says what the commission report says, seat by seat.

The deterministic test plays one interleaving on the embedded default; the PostgreSQL test races
real threads (each its own connection) posting coups, closing shoes and correcting coups."""

import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import Sum

from pit.ledger.models import CommissionEntry, Reconciliation, ReconciliationSupplementSeat
from pit.reports.definitions import ReportFilters
from pit.reports.selectors import commission_rows
from pit.shoes.models import Coup
from pit.shoes.services import CoupInput, coup_correct, coup_record, coup_void, shoe_close
from tests import factories
from tests.factories import wager
from tests.jobs.conftest import BANKER_NATURAL

# Each coup: seat 1 Banker 100.00 (owes 5.00), seat 2 Banker 40.00 (owes 2.00), seat 3 Player 25.00.
WAGERS = (wager(1, "banker", "100"), wager(2, "banker", "40"), wager(3, "player", "25"))
SEAT_COMMISSION = {1: 500, 2: 200}


def record(shoe, number):
    return coup_record(shoe=shoe, coup=CoupInput(number, *BANKER_NATURAL, wagers=WAGERS)).coup


def close(shoe, coups_dealt: int):
    """The dealer's count: the box holds the commission of every coup dealt at the table, those the
    back-office will only hear of after the close included."""
    shoe_close(
        shoe=shoe, box_counts=[(seat, Decimal(minor * coups_dealt) / 100) for seat, minor in SEAT_COMMISSION.items()]
    )


def assert_settled_and_agreeing(shoe) -> None:
    """Every seat at zero; the reconciliation and its supplements, seat by seat, agree with the
    commission report (expected, counted, variance, collected at the shuffle)."""
    balances = dict(
        CommissionEntry.objects.filter(shoe=shoe)
        .values("seat")
        .order_by("seat")
        .annotate(total=Sum("amount_minor"))
        .values_list("seat", "total")
    )
    assert set(balances.values()) <= {0}, balances
    reconciliation = Reconciliation.objects.get(shoe=shoe)
    latest = {line.seat: line for line in reconciliation.seats.all()}
    collected = {line.seat: line.expected_minor for line in reconciliation.seats.all()}
    for line in ReconciliationSupplementSeat.objects.filter(supplement__reconciliation=reconciliation).order_by(
        "supplement__sequence"
    ):
        latest[line.seat] = line
        collected[line.seat] = collected.get(line.seat, 0) + line.change_minor
    day = Coup.objects.filter(shoe=shoe).order_by("-number").first().gaming_day
    report = {
        row["seat"]: row
        for row in commission_rows(ReportFilters(date_from=day, date_to=day, tables=(shoe.table.code,)))
        if row["shoe"] == shoe.sequence
    }
    assert set(report) == set(latest)
    for seat, line in latest.items():
        row = report[seat]
        assert (row["expected"], row["counted"], row["variance"], row["collected_at_shuffle"]) == (
            Decimal(line.expected_minor) / 100,
            Decimal(line.counted_minor) / 100,
            Decimal(line.variance_minor) / 100,
            Decimal(collected[seat]) / 100,
        ), seat


@pytest.mark.django_db
def test_late_coups_corrections_and_voids_after_the_close_end_at_zero(django_capture_on_commit_callbacks):
    shoe = factories.shoe(factories.table("BB1"))
    with django_capture_on_commit_callbacks(execute=True):
        for number in (1, 2, 3):
            record(shoe, number)
        close(shoe, coups_dealt=5)  # coups 4 and 5 were dealt before the shuffle, recorded after it
    assert Reconciliation.objects.get(shoe=shoe).variance_minor == 2 * 700
    with django_capture_on_commit_callbacks(execute=True):
        record(shoe, 4)
    with django_capture_on_commit_callbacks(execute=True):
        record(shoe, 5)
    assert Reconciliation.objects.get(shoe=shoe).supplements.count() == 2
    assert_settled_and_agreeing(shoe)
    assert {line.variance_minor for line in ReconciliationSupplementSeat.objects.filter(supplement__sequence=2)} == {0}

    with django_capture_on_commit_callbacks(execute=True):
        coup_correct(coup=shoe.coups.get(number=2), wagers=(wager(1, "banker", "200"),), reason="misread")
        coup_void(coup=shoe.coups.get(number=3), reason="misdeal")
    assert_settled_and_agreeing(shoe)
    supplement = Reconciliation.objects.get(shoe=shoe).supplements.order_by("-sequence").first()
    # Coup 2: seat 1 owes 10.00 instead of 5.00, seat 2 nothing; coup 3 voided: 5.00 and 2.00 less.
    assert (supplement.sequence, supplement.change_minor) == (3, 500 - 200 - 700)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_coups_racing_closes_on_postgresql_end_at_zero():
    """Real threads, each with its own connection: a floor posting coups, the dealer closing the shoe
    partway, a terminal correcting and voiding coups already recorded; five shoes at two tables."""
    errors: list[BaseException] = []

    def run(barrier, work):
        try:
            barrier.wait(timeout=10)
            work()
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connection.close()

    shoes = []
    for round_ in range(5):
        table = factories.table(f"BB{round_ % 2 + 1}") if round_ < 2 else shoes[round_ % 2].table
        shoe = factories.shoe(table)
        shoes.append(shoe)
        for number in (1, 2, 3):
            record(shoe, number)
        barrier = threading.Barrier(3)

        def post_coups(shoe=shoe):
            for number in range(4, 16):
                record(shoe, number)

        def close_shoe(shoe=shoe, round_=round_):
            for _ in range(round_ * 2):
                threading.Event().wait(0.005)
            close(shoe, coups_dealt=15)

        def correct_coups(shoe=shoe):
            coup_correct(
                coup=Coup.objects.get(shoe=shoe, number=1), wagers=(wager(1, "banker", "300"),), reason="misread"
            )
            coup_void(coup=Coup.objects.get(shoe=shoe, number=2), reason="misdeal")

        threads = [
            threading.Thread(target=run, args=(barrier, work)) for work in (post_coups, close_shoe, correct_coups)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not errors, errors

    for shoe in shoes:
        assert Coup.objects.filter(shoe=shoe).count() == 15
        assert_settled_and_agreeing(shoe)
    # Somewhere a coup raced past a close: a supplement was needed and made.
    assert ReconciliationSupplementSeat.objects.exists()
