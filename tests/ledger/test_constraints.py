"""Every named constraint of the ledger app is held by the database itself."""

import pytest
from django.utils import timezone

from pit.ledger.models import BoxCount, CommissionEntry, Reconciliation, ReconciliationSeat
from tests import factories
from tests.dbcheck import refused
from tests.shoes import hands

pytestmark = pytest.mark.django_db


@pytest.fixture
def accrual():
    shoe = factories.shoe()
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    return CommissionEntry.objects.get()


def entry(accrual, **fields):
    values = {"shoe_id": accrual.shoe_id, "seat": 1, "currency": "USD", **fields}
    return CommissionEntry.objects.create(**values)


def test_commission_one_accrual_per_wager(accrual):
    with refused("commission_one_accrual_per_wager"):
        entry(accrual, kind="accrued", amount_minor=500, wager_id=accrual.wager_id)


def test_commission_one_shuffle_collection_per_seat(accrual):
    entry(accrual, kind="collected", collection_reason="shuffle", amount_minor=-500)
    with refused("commission_one_shuffle_collection_per_seat"):
        entry(accrual, kind="collected", collection_reason="shuffle", amount_minor=0)
    entry(accrual, kind="collected", collection_reason="player_left", amount_minor=0)  # others may repeat


def test_commission_kind_valid(accrual):
    with refused("commission_kind_valid", "commission_entry_shape"):
        entry(accrual, kind="bonus", amount_minor=1, reverses=accrual)


@pytest.mark.parametrize(
    ("fields", "with_wager"),
    [
        ({"kind": "accrued", "amount_minor": 0}, True),  # an accrual is positive ...
        ({"kind": "accrued", "amount_minor": 5}, False),  # ... and belongs to a wager
        # Positive (paid back to the seat) only at the shuffle or in a supplementary reconciliation.
        ({"kind": "collected", "collection_reason": "player_left", "amount_minor": 5}, False),
        ({"kind": "reversal", "amount_minor": -5}, False),  # a reversal points at what it reverses
    ],
)
def test_commission_entry_shape(accrual, fields, with_wager):
    if with_wager:  # a wager of its own, so that the one-accrual-per-wager rule is not what refuses it
        coup = factories.coup(accrual.shoe, 2, *hands.BANKER_NATURAL, wagers=[factories.wager(2, "player", "10")])
        fields = {**fields, "wager": coup.wagers.get()}
    with refused("commission_entry_shape"):
        entry(accrual, **fields)


def test_commission_collection_reason(accrual):
    with refused("commission_collection_reason"):
        entry(accrual, kind="collected", collection_reason="", amount_minor=-5)
    with refused("commission_collection_reason"):
        entry(accrual, kind="collected", collection_reason="tip", amount_minor=-5)
    with refused("commission_collection_reason"):
        entry(accrual, kind="reversal", collection_reason="shuffle", amount_minor=-500, reverses=accrual)


def test_commission_reversal_is_one_to_one(accrual):
    entry(accrual, kind="reversal", amount_minor=-500, reverses=accrual)
    with refused("reverses"):
        entry(accrual, kind="reversal", amount_minor=-500, reverses=accrual)


def test_box_count_constraints(accrual):
    BoxCount.objects.create(shoe_id=accrual.shoe_id, seat=1, currency="USD", counted_minor=500)
    with refused("box_count_unique_per_seat"):
        BoxCount.objects.create(shoe_id=accrual.shoe_id, seat=1, currency="USD", counted_minor=400)
    with refused("box_count_not_negative"):
        BoxCount.objects.create(shoe_id=accrual.shoe_id, seat=2, currency="USD", counted_minor=-1)


def reconciliation(accrual, **fields):
    values = {
        "shoe_id": accrual.shoe_id,
        "currency": "USD",
        "accrued_minor": 500,
        "collected_earlier_minor": 0,
        "expected_minor": 500,
        "counted_minor": 400,
        "variance_minor": -100,
        "status": "variance",
        **fields,
    }
    return Reconciliation.objects.create(**values)


def test_reconciliation_status_valid(accrual):
    with refused("reconciliation_status_valid"):
        reconciliation(accrual, status="fine")


def test_reconciliation_variance_is_counted_minus_expected(accrual):
    with refused("reconciliation_variance_is_counted_minus_expected"):
        reconciliation(accrual, variance_minor=100)


def test_reconciliation_explained_has_note(accrual):
    with refused("reconciliation_explained_has_note"):
        reconciliation(accrual, status="explained", explained_at=timezone.now())
    with refused("reconciliation_explained_has_note"):
        reconciliation(accrual, status="explained", explanation="miscount")


def test_one_reconciliation_per_shoe(accrual):
    reconciliation(accrual)
    with refused("shoe"):
        reconciliation(accrual)


def test_reconciliation_seat_constraints(accrual):
    made = reconciliation(accrual)
    line = {"accrued_minor": 500, "collected_earlier_minor": 0, "expected_minor": 500, "counted_minor": 400}
    ReconciliationSeat.objects.create(reconciliation=made, seat=1, variance_minor=-100, **line)
    with refused("reconciliation_seat_unique"):
        ReconciliationSeat.objects.create(reconciliation=made, seat=1, variance_minor=-100, **line)
    with refused("reconciliation_seat_variance_is_counted_minus_expected"):
        ReconciliationSeat.objects.create(reconciliation=made, seat=2, variance_minor=0, **line)
