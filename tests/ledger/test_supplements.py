"""Commission that changes after a shoe was reconciled (a coup recorded after the close, a
correction, a void) is reconciled by a supplement: every seat's balance ends at zero, the box
count (unchanged) explains the new variance, and the commission report says the same."""

from decimal import Decimal

import pytest
from django.db.models import Sum

from pit.compliance.models import RuleViolation
from pit.ledger.models import CollectionReason, CommissionEntry, Reconciliation, ReconciliationSupplement
from pit.ledger.services import shoe_reconcile
from pit.reports.definitions import ReportFilters
from pit.reports.selectors import commission_rows
from pit.shoes.services import coup_correct, coup_void, shoe_close
from tests import factories
from tests.factories import wager
from tests.jobs.conftest import BANKER_NATURAL

pytestmark = pytest.mark.django_db


def balances(shoe) -> dict[int, int]:
    return dict(
        CommissionEntry.objects.filter(shoe=shoe)
        .values("seat")
        .order_by("seat")
        .annotate(total=Sum("amount_minor"))
        .values_list("seat", "total")
    )


def supplement_lines(supplement):
    return list(
        supplement.seats.order_by("seat").values_list(
            "seat",
            "change_minor",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
        )
    )


def report(shoe) -> dict[int, tuple]:
    day = shoe.coups.order_by("-number").first().gaming_day
    return {
        row["seat"]: (
            row["accrued"],
            row["expected"],
            row["counted"],
            row["variance"],
            row["collected_at_shuffle"],
            row["status"],
        )
        for row in commission_rows(ReportFilters(date_from=day, date_to=day))
    }


@pytest.fixture
def box_shoe(db):
    return factories.shoe(factories.table("BB1", preset="commission_box"))


@pytest.fixture
def reconciled(box_shoe, django_capture_on_commit_callbacks):
    """Seat 1 owes 5.00 when the shoe closes; the box holds 10.00 (a coup raced the close)."""
    factories.coup(box_shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=box_shoe, box_counts=[(1, Decimal("10.00"))])
    reconciliation = Reconciliation.objects.get(shoe=box_shoe)
    assert (reconciliation.expected_minor, reconciliation.variance_minor, reconciliation.status) == (
        500,
        500,
        "variance",
    )
    return box_shoe


def test_a_coup_recorded_after_the_reconciliation_is_supplemented(reconciled, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        factories.coup(reconciled, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])

    supplement = ReconciliationSupplement.objects.get()
    assert (
        supplement.sequence,
        supplement.change_minor,
        supplement.expected_minor,
        supplement.counted_minor,
        supplement.variance_minor,
        supplement.status,
    ) == (1, 500, 1000, 1000, 0, "balanced")
    assert supplement_lines(supplement) == [(1, 500, 1000, 0, 1000, 1000, 0)]
    assert supplement.seats.get().entry.collection_reason == CollectionReason.SUPPLEMENT
    assert balances(reconciled) == {1: 0}
    # The first reconciliation stays as made; its variance finding no longer holds (the late coup
    # explains the box), and the late coup itself is flagged.
    assert Reconciliation.objects.get(shoe=reconciled).variance_minor == 500
    variance = RuleViolation.objects.get(code="box_variance")
    assert variance.cleared_at is not None
    assert RuleViolation.objects.filter(code="coup_after_shoe_closed", cleared_at=None).count() == 1
    assert report(reconciled) == {
        1: (
            Decimal("10.00"),
            Decimal("10.00"),
            Decimal("10.00"),
            Decimal("0.00"),
            Decimal("10.00"),
            "Variance; 1 supplement, the last: Balanced",
        ),
    }


def test_reconciling_again_writes_nothing(reconciled, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        factories.coup(reconciled, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
    entries = CommissionEntry.objects.count()
    shoe_reconcile(shoe_id=reconciled.pk)
    shoe_reconcile(shoe_id=reconciled.pk)
    assert (ReconciliationSupplement.objects.count(), CommissionEntry.objects.count()) == (1, entries)


def test_a_void_after_the_reconciliation_pays_the_seat_back(reconciled, django_capture_on_commit_callbacks):
    coup = reconciled.coups.get()
    with django_capture_on_commit_callbacks(execute=True):
        coup_void(coup=coup, reason="Misdeal declared by the pit boss")

    supplement = ReconciliationSupplement.objects.get()
    assert supplement_lines(supplement) == [(1, -500, 0, 0, 0, 1000, 1000)]
    assert (supplement.status, supplement.seats.get().entry.amount_minor) == ("variance", 500)
    assert balances(reconciled) == {1: 0}
    holding = RuleViolation.objects.filter(code="box_variance", cleared_at=None)
    assert [v.fingerprint for v in holding] == [f"box_variance:shoe{reconciled.pk}:seat1:supplement1"]
    assert report(reconciled)[1] == (
        Decimal("0.00"),
        Decimal("0.00"),
        Decimal("10.00"),
        Decimal("10.00"),
        Decimal("0.00"),
        "Variance; 1 supplement, the last: Variance",
    )


def test_a_correction_after_the_reconciliation_is_supplemented(reconciled, django_capture_on_commit_callbacks):
    coup = reconciled.coups.get()
    with django_capture_on_commit_callbacks(execute=True):
        coup_correct(coup=coup, wagers=(wager(1, "banker", "200"),), reason="The stake was 200, misread")
    assert supplement_lines(ReconciliationSupplement.objects.get()) == [(1, 500, 1000, 0, 1000, 1000, 0)]
    assert balances(reconciled) == {1: 0}
    day = coup.gaming_day
    (row,) = commission_rows(ReportFilters(date_from=day, date_to=day))
    assert row["accrued"] == Decimal("10.00")  # the replaced wager's 5.00 reversed, the corrected 10.00 accrued


def test_a_seat_that_owes_less_than_nothing_at_the_shuffle_is_paid_back(box_shoe, django_capture_on_commit_callbacks):
    from pit.ledger.services import commission_collect

    coup = factories.coup(box_shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
    commission_collect(shoe=box_shoe, seat=1, note="Player left")
    coup_void(coup=coup, reason="Misdeal")  # after the player paid 5.00 and left
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=box_shoe, box_counts=[])
    line = Reconciliation.objects.get(shoe=box_shoe).seats.get()
    assert (line.accrued_minor, line.collected_earlier_minor, line.expected_minor) == (0, 500, -500)
    shuffle = CommissionEntry.objects.get(shoe=box_shoe, collection_reason=CollectionReason.SHUFFLE)
    assert shuffle.amount_minor == 500
    assert balances(box_shoe) == {1: 0}
    assert not ReconciliationSupplement.objects.exists()


def test_the_beat_pickup_supplements_a_shoe_whose_message_was_lost(reconciled):
    from pit.ledger.selectors import shoes_missing_reconciliation
    from pit.ledger.tasks import shoes_reconcile_missing

    # Recorded after the close with no on-commit callback run: the supplement's message is lost.
    factories.coup(reconciled, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
    assert balances(reconciled) == {1: 500}
    assert shoes_missing_reconciliation() == [reconciled.pk]
    assert shoes_reconcile_missing.delay().get() == [reconciled.pk]
    assert balances(reconciled) == {1: 0}
    assert ReconciliationSupplement.objects.count() == 1
    assert shoes_missing_reconciliation() == []
