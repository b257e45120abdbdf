"""The commission ledger: collection when a player leaves, reversals, the reconciliation at the
shuffle (exact per seat, once), and the explanation of a variance."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.ledger.models import CommissionEntry, Reconciliation, ReconciliationSeat
from pit.ledger.services import (
    commission_collect,
    commission_entry_reverse,
    reconciliation_explain,
    seat_balance_minor,
    shoe_reconcile,
)
from pit.shoes.services import shoe_close
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def entries(shoe):
    return list(
        CommissionEntry.objects.filter(shoe=shoe)
        .order_by("id")
        .values_list("seat", "kind", "amount_minor", "collection_reason", "reverses_id")
    )


@pytest.fixture
def shoe():
    return factories.shoe()


def accrue(shoe, number, *lines):
    """A Banker win with these Banker wagers: each accrues 5% into its seat's box."""
    return factories.coup(
        shoe,
        number,
        *hands.BANKER_NATURAL,
        wagers=[factories.wager(seat, "banker", amount) for seat, amount in lines],
    )


def test_collect_when_the_player_leaves(shoe, django_user_model):
    user = django_user_model.objects.create_user("dealer", password="x")
    accrue(shoe, 1, (1, "100"), (2, "25"))
    accrue(shoe, 2, (1, "10.10"))
    assert seat_balance_minor(shoe=shoe, seat=1) == 551

    entry = commission_collect(shoe=shoe, seat=1, actor=Actor(user=user), note="left at coup 2")
    entry.refresh_from_db()
    assert (entry.kind, entry.amount_minor, entry.collection_reason, entry.currency) == (
        "collected",
        -551,
        "player_left",
        "USD",
    )
    assert (entry.note, entry.recorded_by_user_id) == ("left at coup 2", user.pk)
    assert seat_balance_minor(shoe=shoe, seat=1) == 0
    assert seat_balance_minor(shoe=shoe, seat=2) == 125
    assert commission_collect(shoe=shoe, seat=1) is None  # owes nothing now
    assert commission_collect(shoe=shoe, seat=3) is None  # never owed
    assert CommissionEntry.objects.filter(kind="collected").count() == 1


def test_collect_refuses_an_unknown_seat_or_a_closed_shoe(shoe):
    accrue(shoe, 1, (1, "100"))
    with pytest.raises(ValidationError) as caught:
        commission_collect(shoe=shoe, seat=4)
    assert caught.value.message_dict == {"seat": ["4 is not a seat at table BB1."]}
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("5"))])
    before = entries(shoe)
    with pytest.raises(ValidationError) as caught:
        commission_collect(shoe=shoe, seat=1)
    assert list(caught.value.message_dict) == ["seat"]
    assert entries(shoe) == before


def test_reverse_an_entry_by_a_new_one(shoe, django_user_model):
    user = django_user_model.objects.create_user("accountant", password="x")
    accrue(shoe, 1, (1, "100"))
    accrual = CommissionEntry.objects.get()
    with pytest.raises(ValidationError) as caught:
        commission_entry_reverse(entry=accrual, note="  ")
    assert list(caught.value.message_dict) == ["note"]
    assert CommissionEntry.objects.count() == 1

    reversal = commission_entry_reverse(entry=accrual, note=" wager keyed twice ", actor=Actor(user=user))
    reversal.refresh_from_db()
    assert (reversal.kind, reversal.amount_minor, reversal.reverses_id, reversal.seat) == (
        "reversal",
        -500,
        accrual.pk,
        1,
    )
    assert (reversal.note, reversal.recorded_by_user_id) == ("wager keyed twice", user.pk)
    accrual.refresh_from_db()
    assert accrual.amount_minor == 500  # the original stays as it was
    assert seat_balance_minor(shoe=shoe, seat=1) == 0

    with pytest.raises(ValidationError) as caught:
        commission_entry_reverse(entry=accrual, note="again")
    assert caught.value.message_dict == {"entry": [f"Entry {accrual.pk} is reversed already (by entry {reversal.pk})."]}
    with pytest.raises(ValidationError) as caught:
        commission_entry_reverse(entry=reversal, note="undo")
    assert list(caught.value.message_dict) == ["entry"]
    assert CommissionEntry.objects.count() == 2


@pytest.fixture
def played(shoe):
    """Seat 1 owes 5.00; seat 2 paid its 5.00 when its player left, then a new player owes 0.51;
    seat 3 owed 1.25 (reversed) and 5.00; seat 5 never bet Banker. Seat 3's box is 0.25 short."""
    accrue(shoe, 1, (1, "100"), (2, "100"), (3, "25"))
    commission_collect(shoe=shoe, seat=2)
    accrue(shoe, 2, (2, "10.10"), (3, "100"))
    commission_entry_reverse(entry=CommissionEntry.objects.get(seat=3, amount_minor=125), note="keyed in error")
    shoe_close(
        shoe=shoe,
        box_counts=[(1, Decimal("5.00")), (2, Decimal("0.51")), (3, Decimal("4.75")), (5, Decimal("0"))],
    )
    return shoe


def test_reconcile_figures_per_seat(played):
    reconciliation = shoe_reconcile(shoe_id=played.pk)
    reconciliation.refresh_from_db()
    assert list(
        ReconciliationSeat.objects.filter(reconciliation=reconciliation).values_list(
            "seat",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
        )
    ) == [
        (1, 500, 0, 500, 500, 0),
        (2, 551, 500, 51, 51, 0),
        (3, 500, 0, 500, 475, -25),
        (5, 0, 0, 0, 0, 0),
    ]
    assert (
        reconciliation.currency,
        reconciliation.accrued_minor,
        reconciliation.collected_earlier_minor,
        reconciliation.expected_minor,
        reconciliation.counted_minor,
        reconciliation.variance_minor,
        reconciliation.status,
    ) == ("USD", 1551, 500, 1051, 1026, -25, "variance")
    # The shuffle collection brings every seat's balance to zero.
    assert list(
        CommissionEntry.objects.filter(shoe=played, collection_reason="shuffle")
        .order_by("seat")
        .values_list("seat", "amount_minor")
    ) == [(1, -500), (2, -51), (3, -500)]
    for seat in played.table.seats:
        assert seat_balance_minor(shoe=played, seat=seat) == 0
    violation = RuleViolation.objects.get()
    assert (violation.code, violation.seat, violation.shoe_id, violation.found_by) == (
        "box_variance",
        3,
        played.pk,
        "reconciliation",
    )
    assert violation.fingerprint == f"box_variance:shoe{played.pk}:seat3"
    assert violation.gaming_day == played.coups.get(number=2).gaming_day


def test_reconcile_twice_reconciles_once(played):
    first = shoe_reconcile(shoe_id=played.pk)
    counts = (
        CommissionEntry.objects.count(),
        ReconciliationSeat.objects.count(),
        RuleViolation.objects.count(),
    )
    second = shoe_reconcile(shoe_id=played.pk)
    assert second.pk == first.pk
    assert Reconciliation.objects.count() == 1
    assert (
        CommissionEntry.objects.count(),
        ReconciliationSeat.objects.count(),
        RuleViolation.objects.count(),
    ) == counts
    assert CommissionEntry.objects.filter(collection_reason="shuffle").count() == 3


def test_variance_within_tolerance_is_balanced(played, settings):
    settings.PIT_BOX_VARIANCE_TOLERANCE = "0.25"
    reconciliation = shoe_reconcile(shoe_id=played.pk)
    assert (reconciliation.status, reconciliation.variance_minor) == ("balanced", -25)
    assert RuleViolation.objects.count() == 0


def test_one_violation_per_seat_beyond_tolerance(shoe):
    accrue(shoe, 1, (1, "100"), (2, "100"))
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("4")), (2, Decimal("6")), (3, Decimal("1"))])
    shoe_reconcile(shoe_id=shoe.pk)
    shoe_reconcile(shoe_id=shoe.pk)
    assert sorted(RuleViolation.objects.values_list("seat", "code")) == [
        (1, "box_variance"),
        (2, "box_variance"),
        (3, "box_variance"),
    ]


def test_reconcile_a_dealing_shoe_is_refused(shoe):
    accrue(shoe, 1, (1, "100"))
    with pytest.raises(ValidationError):
        shoe_reconcile(shoe_id=shoe.pk)
    assert Reconciliation.objects.count() == 0
    assert CommissionEntry.objects.count() == 1


def test_reconciliation_runs_after_the_shuffle_commits(shoe, django_capture_on_commit_callbacks):
    accrue(shoe, 1, (1, "100"))
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("5"))])
    reconciliation = Reconciliation.objects.get(shoe=shoe)
    assert (reconciliation.status, reconciliation.expected_minor, reconciliation.counted_minor) == (
        "balanced",
        500,
        500,
    )


def test_explain_a_variance(played, django_user_model):
    user = django_user_model.objects.create_user("accountant", password="x")
    reconciliation = shoe_reconcile(shoe_id=played.pk)
    with pytest.raises(ValidationError) as caught:
        reconciliation_explain(reconciliation=reconciliation, user=user, note=" ")
    assert list(caught.value.message_dict) == ["note"]
    assert Reconciliation.objects.get().status == "variance"

    explained = reconciliation_explain(reconciliation=reconciliation, user=user, note=" chip found under the box ")
    explained.refresh_from_db()
    assert (explained.status, explained.explanation, explained.explained_by_id) == (
        "explained",
        "chip found under the box",
        user.pk,
    )
    assert explained.explained_at is not None
    assert (explained.counted_minor, explained.variance_minor) == (1026, -25)  # the figures stay as counted


def test_a_balanced_reconciliation_has_nothing_to_explain(shoe, django_user_model):
    user = django_user_model.objects.create_user("accountant", password="x")
    shoe_close(shoe=shoe, box_counts=[])
    reconciliation = shoe_reconcile(shoe_id=shoe.pk)
    with pytest.raises(ValidationError) as caught:
        reconciliation_explain(reconciliation=reconciliation, user=user, note="nothing")
    assert list(caught.value.message_dict) == ["status"]
    reconciliation.refresh_from_db()
    assert (reconciliation.status, reconciliation.explanation) == ("balanced", "")


def test_an_explanation_is_not_overwritten(played, django_user_model):
    first = django_user_model.objects.create_user("accountant", password="x")
    second = django_user_model.objects.create_user("other", password="x")
    reconciliation = shoe_reconcile(shoe_id=played.pk)
    reconciliation_explain(reconciliation=reconciliation, user=first, note="chip found under the box")

    with pytest.raises(ValidationError) as caught:
        reconciliation_explain(reconciliation=reconciliation, user=second, note="something else")

    assert list(caught.value.message_dict) == ["status"]
    reconciliation.refresh_from_db()
    assert (reconciliation.explanation, reconciliation.explained_by_id) == ("chip found under the box", first.pk)
