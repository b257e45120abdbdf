"""The soft count: a table's drop box per period, notes by denomination plus chips and markers."""

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import DropCount
from pit.accounting.services import drop_record
from pit.core.errors import Conflict
from tests.accounting.conftest import DAY

pytestmark = pytest.mark.django_db


def test_drop_totals_cash_chips_and_markers(pit):
    drop = drop_record(
        table=pit.bb1,
        gaming_day=DAY,
        cash={"10000": 52, "2000": 5},
        chips_minor=25000,
        markers_minor=100000,
        actor=pit.actor,
    )
    assert (drop.cash, drop.cash_minor, drop.total_minor) == ({"2000": 5, "10000": 52}, 530000, 655000)
    assert (
        drop_record(
            table=pit.bb1,
            gaming_day=DAY,
            cash={"10000": 52, "2000": 5},
            chips_minor=25000,
            markers_minor=100000,
            actor=pit.actor,
        ).pk
        == drop.pk
    )
    with pytest.raises(Conflict):
        drop_record(table=pit.bb1, gaming_day=DAY, cash={"10000": 51}, actor=pit.actor)
    assert DropCount.objects.count() == 1


def test_bad_drop_names_the_field(pit):
    for kwargs, field in (({"chips_minor": -1}, "chips"), ({"markers_minor": "5"}, "markers"), ({"shift": 2}, "shift")):
        with pytest.raises(ValidationError) as error:
            drop_record(table=pit.bb1, gaming_day=DAY, cash={"10000": 1}, actor=pit.actor, **kwargs)
        assert list(error.value.message_dict) == [field]
    assert not DropCount.objects.exists()


def test_markers_only_where_the_casino_takes_them(pit, settings):
    settings.PIT_DROP_MARKERS = False
    with pytest.raises(ValidationError) as error:
        drop_record(table=pit.bb1, gaming_day=DAY, cash={"10000": 1}, markers_minor=500, actor=pit.actor)
    assert error.value.message_dict == {
        "markers": ["This casino does not take markers in the drop box (PIT_DROP_MARKERS)."]
    }
    assert drop_record(table=pit.bb1, gaming_day=DAY, cash={"10000": 1}, actor=pit.actor).markers_minor == 0
