"""Tables: creation, seat layouts, limits, opening and closing (with their events)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.core.actors import Actor
from pit.tables.models import Table, TableEvent, TableLimit
from pit.tables.services import default_seat_layout, table_close, table_create, table_limits_set, table_open
from tests import factories

pytestmark = pytest.mark.django_db


def test_default_layouts_skip_4_and_13():
    assert default_seat_layout("big") == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16]
    assert default_seat_layout("midi") == [1, 2, 3, 5, 6, 7, 8, 9, 10]
    assert default_seat_layout("mini") == [1, 2, 3, 5, 6, 7, 8]


def test_table_create_with_the_default_layout_and_limits():
    table = table_create(
        code="BB1",
        name="Big one",
        game="big",
        paytable=factories.paytable(),
        limits={"banker": (Decimal("25"), Decimal("10000")), "tie": (Decimal("5.50"), Decimal("1000"))},
    )
    table.refresh_from_db()
    assert table.seats == [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16]
    assert table.status == "closed"
    assert table.currency == "USD"
    assert list(table.limits.values_list("bet", "minimum_minor", "maximum_minor")) == [
        ("banker", 2500, 1000000),
        ("tie", 550, 100000),
    ]
    assert TableEvent.objects.count() == 0


def test_table_create_sorts_a_custom_layout():
    table = table_create(code="MB1", name="Mini", game="mini", paytable=factories.paytable(), seats=[8, 1, 2, 3])
    assert table.seats == [1, 2, 3, 8]


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([], "non-empty list"),
        ("1,2,3", "non-empty list"),
        ([1, 2, 2], "appears twice"),
        ([0, 1], "1 to 99"),
        ([1, 100], "1 to 99"),
        ([1, True], "1 to 99"),
        ([1, 2.0], "1 to 99"),
    ],
)
def test_table_create_refuses_a_bad_layout_and_writes_nothing(seats, message):
    with pytest.raises(ValidationError) as caught:
        table_create(code="BB1", name="Big", game="big", paytable=factories.paytable(), seats=seats)
    assert message in caught.value.message_dict["seats"][0]
    assert Table.objects.count() == 0


def test_table_create_refuses_a_duplicate_code():
    factories.table(code="BB1")
    with pytest.raises(ValidationError) as caught:
        factories.table(code="BB1")
    assert "code" in caught.value.message_dict
    assert Table.objects.count() == 1


def test_table_create_refuses_an_unknown_game_or_currency():
    with pytest.raises(ValidationError) as caught:
        table_create(code="X1", name="X", game="huge", paytable=factories.paytable())
    assert caught.value.message_dict == {"game": ["'huge' is not a game; choose one of big, midi, mini."]}
    with pytest.raises(ValidationError) as caught:
        table_create(code="X1", name="X", game="big", paytable=factories.paytable(), seats=[1], currency="usdx")
    assert list(caught.value.message_dict) == ["currency"]
    assert Table.objects.count() == 0


def test_limits_replace_the_previous_ones():
    table = factories.table()
    table_limits_set(table=table, limits={"player": (Decimal("100"), Decimal("5000"))})
    assert list(TableLimit.objects.filter(table=table).values_list("bet", "minimum_minor", "maximum_minor")) == [
        ("player", 10000, 500000)
    ]


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"dragon_7": (Decimal("1"), Decimal("10"))}, "is not a bet"),
        ({"player": (Decimal("0"), Decimal("10"))}, "minimum must be positive"),
        ({"player": (Decimal("50"), Decimal("10"))}, "at most the maximum"),
        ({"player": (Decimal("1.001"), Decimal("10"))}, "player:"),
    ],
)
def test_limits_refused_keep_the_old_ones(limits, message):
    table = factories.table()
    before = list(TableLimit.objects.filter(table=table).values_list("bet", "minimum_minor", "maximum_minor"))
    with pytest.raises(ValidationError) as caught:
        table_limits_set(table=table, limits=limits)
    assert message in caught.value.message_dict["limits"][0]
    assert list(TableLimit.objects.filter(table=table).values_list("bet", "minimum_minor", "maximum_minor")) == before


def test_open_and_close_record_events_once(django_user_model):
    user = django_user_model.objects.create_user("pitboss", password="x")
    table = factories.table(open_=False)
    at = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)
    table_open(table=table, actor=Actor(user=user), at=at)
    table_open(table=table, actor=Actor(user=user))  # already open: nothing happens
    table.refresh_from_db()
    assert table.status == "open"
    events = list(TableEvent.objects.filter(table=table).values_list("kind", "at", "recorded_by_user"))
    assert events == [("opened", at, user.pk)]

    table_close(table=table)
    table_close(table=table)
    table.refresh_from_db()
    assert table.status == "closed"
    assert list(TableEvent.objects.filter(table=table).order_by("id").values_list("kind", "recorded_by_user")) == [
        ("opened", user.pk),
        ("closed", None),
    ]
