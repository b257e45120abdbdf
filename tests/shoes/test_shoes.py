"""Starting and closing shoes: sequence, burn cards, the one-dealing-shoe rule, the shuffle."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.core.actors import Actor
from pit.core.errors import Conflict
from pit.ledger.models import BoxCount, Reconciliation
from pit.shoes.models import Shoe
from pit.shoes.services import shoe_close, shoe_start
from tests import factories

pytestmark = pytest.mark.django_db


def test_shoe_start_numbers_shoes_and_counts_burn_cards(django_user_model):
    user = django_user_model.objects.create_user("dealer", password="x")
    table = factories.table()
    shuffled = dt.datetime(2026, 3, 1, 21, 0, tzinfo=dt.UTC)
    shoe = shoe_start(
        table=table,
        cut_card_position=360,
        burn=["5H", "KD", "5H"],
        shuffled_at=shuffled,
        actor=Actor(user=user),
    )
    shoe.refresh_from_db()
    assert (shoe.sequence, shoe.decks, shoe.cut_card_position, shoe.status) == (1, 8, 360, "dealing")
    assert shoe.burn_cards == ["5H", "KD", "5H"]
    assert shoe.cards_seen == {"5H": 2, "KD": 1}
    assert (shoe.cards_dealt, shoe.coups_recorded, shoe.shuffled_at) == (0, 0, shuffled)
    assert (shoe.recorded_by_user_id, shoe.recorded_by_device_id) == (user.pk, None)

    shoe_close(shoe=shoe, box_counts=[])
    second = shoe_start(table=table, cut_card_position=300, decks=6)
    assert (second.sequence, second.decks, second.burn_cards, second.cards_seen) == (2, 6, [], {})
    assert factories.shoe(factories.table("BB2")).sequence == 1


def test_shoe_start_while_another_deals_is_a_conflict():
    table = factories.table()
    dealing = factories.shoe(table)
    with pytest.raises(Conflict) as caught:
        shoe_start(table=table, cut_card_position=380)
    assert caught.value.details == {"shoe_id": dealing.pk, "sequence": 1}
    assert "still dealing" in caught.value.message
    assert Shoe.objects.count() == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"cut_card_position": 380, "decks": 0}, "decks"),
        ({"cut_card_position": 380, "decks": 13}, "decks"),
        ({"cut_card_position": 0}, "cut_card_position"),
        ({"cut_card_position": 417}, "cut_card_position"),
        ({"cut_card_position": 313, "decks": 6}, "cut_card_position"),
        ({"cut_card_position": 380, "burn": ["5H", "1X"]}, "burn"),
    ],
)
def test_shoe_start_refuses_bad_input_and_writes_nothing(kwargs, field):
    table = factories.table()
    with pytest.raises(ValidationError) as caught:
        shoe_start(table=table, **kwargs)
    assert list(caught.value.message_dict) == [field]
    assert Shoe.objects.count() == 0


def test_shoe_close_counts_boxes_and_reconciles_only_after_commit(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    closed_at = dt.datetime(2026, 3, 2, 1, 30, tzinfo=dt.UTC)
    with django_capture_on_commit_callbacks() as callbacks:
        shoe_close(shoe=shoe, box_counts=[(3, Decimal("5.25")), (1, Decimal("0"))], closed_at=closed_at)
        assert Reconciliation.objects.count() == 0
    assert len(callbacks) == 1
    shoe.refresh_from_db()
    assert (shoe.status, shoe.closed_at) == ("closed", closed_at)
    assert list(BoxCount.objects.filter(shoe=shoe).values_list("seat", "currency", "counted_minor")) == [
        (1, "USD", 0),
        (3, "USD", 525),
    ]
    assert Reconciliation.objects.count() == 0
    callbacks[0]()
    assert Reconciliation.objects.filter(shoe=shoe).count() == 1


def test_shoe_close_again_with_the_same_counts_is_a_no_op(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    with django_capture_on_commit_callbacks(execute=True):
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("5")), (2, Decimal("0"))])
    closed_at = Shoe.objects.get(pk=shoe.pk).closed_at
    with django_capture_on_commit_callbacks() as callbacks:
        again = shoe_close(shoe=shoe, box_counts=[(2, Decimal("0.00")), (1, Decimal("5.00"))])
    assert callbacks == []
    assert (again.status, again.closed_at) == ("closed", closed_at)
    assert BoxCount.objects.filter(shoe=shoe).count() == 2
    assert Reconciliation.objects.count() == 1


def test_shoe_close_again_with_other_counts_is_a_conflict(django_capture_on_commit_callbacks):
    shoe = factories.shoe()
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("5"))])
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(Conflict) as caught:
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("6"))])
    assert caught.value.details == {"shoe_id": shoe.pk}
    assert callbacks == []
    assert list(BoxCount.objects.filter(shoe=shoe).values_list("seat", "counted_minor")) == [(1, 500)]


@pytest.mark.parametrize(
    ("counts", "key", "message"),
    [
        ([(1, "5"), (4, "1")], "commission_box[1].seat", "4 is not a seat at table BB1."),
        ([(1, "5"), (1, "1")], "commission_box[1].seat", "Seat 1 is counted twice."),
        ([(2, "-1")], "commission_box[0].counted", "A count cannot be negative."),
        ([(2, "0.001")], "commission_box[0].counted", None),
    ],
)
def test_shoe_close_refuses_bad_counts_and_writes_nothing(django_capture_on_commit_callbacks, counts, key, message):
    shoe = factories.shoe()
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(ValidationError) as caught:
        shoe_close(shoe=shoe, box_counts=[(seat, Decimal(amount)) for seat, amount in counts])
    assert list(caught.value.message_dict) == [key]
    if message:
        assert caught.value.message_dict[key] == [message]
    assert callbacks == []
    shoe.refresh_from_db()
    assert (shoe.status, shoe.closed_at) == ("dealing", None)
    assert BoxCount.objects.count() == 0
