"""The reconciliation at the shuffle (eager Celery on the embedded default): the figures per seat and
per shoe, the variance violation, the shuffle collection in the ledger, once; the missed-shoe pickup."""

import datetime as dt
from decimal import Decimal

import pytest
from django.test import override_settings
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.ledger.models import CommissionEntry, EntryKind, Reconciliation
from pit.ledger.selectors import shoes_missing_reconciliation
from pit.ledger.services import commission_collect, shoe_reconcile
from pit.ledger.tasks import shoe_reconcile as shoe_reconcile_task
from pit.ledger.tasks import shoes_reconcile_missing
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.jobs.conftest import BANKER_NATURAL

pytestmark = pytest.mark.django_db


@pytest.fixture
def dealt_shoe(box_shoe):
    """Seat 1 owes 5.00 + 2.50, seat 2 owes 10.00 and leaves (collected), seat 3 owes nothing."""
    factories.coup(box_shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(2, "banker", "200")])
    factories.coup(box_shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "banker", "50"), wager(3, "player", "100")])
    commission_collect(shoe=box_shoe, seat=2, note="Player left")
    return box_shoe


def _lines(reconciliation):
    return list(
        reconciliation.seats.order_by("seat").values_list(
            "seat",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
        )
    )


def test_closing_a_shoe_reconciles_it_after_commit(dealt_shoe, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        shoe_close(shoe=dealt_shoe, box_counts=[(1, Decimal("7.50")), (2, Decimal("0")), (3, Decimal("1.00"))])
    assert len(callbacks) == 1

    reconciliation = Reconciliation.objects.get(shoe=dealt_shoe)
    assert _lines(reconciliation) == [
        (1, 750, 0, 750, 750, 0),
        (2, 1000, 1000, 0, 0, 0),
        (3, 0, 0, 0, 100, 100),
    ]
    assert (
        reconciliation.accrued_minor,
        reconciliation.collected_earlier_minor,
        reconciliation.expected_minor,
        reconciliation.counted_minor,
        reconciliation.variance_minor,
        reconciliation.status,
    ) == (1750, 1000, 750, 850, 100, "variance")
    (violation,) = RuleViolation.objects.all()
    assert (violation.code, violation.seat, violation.found_by, violation.message) == (
        "box_variance",
        3,
        "reconciliation",
        "The commission box for seat 3 counted 1.00 against 0.00 owed by the ledger; over by 1.00.",
    )
    # The shuffle collection empties every seat's balance in the ledger.
    shuffle = CommissionEntry.objects.filter(kind=EntryKind.COLLECTED, collection_reason="shuffle")
    assert list(shuffle.values_list("seat", "amount_minor")) == [(1, -750)]
    for seat in (1, 2, 3):
        entries = CommissionEntry.objects.filter(shoe=dealt_shoe, seat=seat)
        assert sum(entries.values_list("amount_minor", flat=True)) == 0


def test_running_it_twice_gives_one_reconciliation_and_one_collection(dealt_shoe):
    shoe_close(shoe=dealt_shoe, box_counts=[(1, Decimal("7.00"))])
    first = shoe_reconcile_task.delay(dealt_shoe.pk).get()
    second = shoe_reconcile_task.delay(dealt_shoe.pk).get()

    assert first == second == Reconciliation.objects.get().pk
    assert Reconciliation.objects.count() == 1
    assert CommissionEntry.objects.filter(kind=EntryKind.COLLECTED, collection_reason="shuffle").count() == 1
    (violation,) = RuleViolation.objects.all()
    assert violation.message == (
        "The commission box for seat 1 counted 7.00 against 7.50 owed by the ledger; short by 0.50."
    )


@override_settings(PIT_BOX_VARIANCE_TOLERANCE="0.50")
def test_a_variance_within_the_tolerance_raises_no_violation(dealt_shoe):
    shoe_close(shoe=dealt_shoe, box_counts=[(1, Decimal("7.00"))])
    reconciliation = shoe_reconcile(shoe_id=dealt_shoe.pk)
    assert (reconciliation.variance_minor, reconciliation.status) == (-50, "balanced")
    assert RuleViolation.objects.count() == 0


def test_a_shoe_without_coups_reconciles_to_zero_on_its_gaming_day(box_shoe):
    closed_at = dt.datetime(2026, 3, 2, 3, 0, tzinfo=dt.UTC)  # 03:00 is still the gaming day of 1 March
    shoe_close(shoe=box_shoe, box_counts=[(1, Decimal("2.00"))], closed_at=closed_at)
    reconciliation = shoe_reconcile(shoe_id=box_shoe.pk)
    assert (reconciliation.expected_minor, reconciliation.counted_minor, reconciliation.variance_minor) == (
        0,
        200,
        200,
    )
    assert RuleViolation.objects.get().gaming_day == dt.date(2026, 3, 1)


def test_the_pickup_reconciles_closed_shoes_whose_message_was_lost(dealt_shoe, box_table):
    # Closed without running the on-commit callbacks: the message never left.
    shoe_close(
        shoe=dealt_shoe,
        box_counts=[(1, Decimal("7.50"))],
        closed_at=timezone.now() - dt.timedelta(minutes=10),
    )
    recent = factories.shoe(box_table)
    shoe_close(shoe=recent, box_counts=[])
    assert shoes_missing_reconciliation() == [dealt_shoe.pk]  # the one closed just now is in its grace period

    assert shoes_reconcile_missing.delay().get() == [dealt_shoe.pk]

    assert Reconciliation.objects.get().shoe_id == dealt_shoe.pk
    assert shoes_missing_reconciliation() == []
