"""The admin refuses a void of a closed gaming day's coup, showing the message naming the day."""

import pytest

from pit.accounting.models import GamingDayEvent
from pit.shoes.models import CoupCorrection
from tests.admin.test_actions import COUPS, act, messages_of

pytestmark = pytest.mark.django_db


def test_a_void_of_a_closed_days_coup_is_refused_with_the_day_named(client, pit, pit_boss):
    coup = pit.shoe2.coups.get(number=2)
    GamingDayEvent.objects.create(gaming_day=coup.gaming_day, action="closed", by=pit_boss)
    client.force_login(pit_boss)
    response = act(client, COUPS, "void_with_note", [coup], post="yes", note="Misdeal: card exposed")
    assert [level for level, _ in messages_of(response)] == ["error"]
    assert f"Gaming day {coup.gaming_day} is closed: its records are locked." in messages_of(response)[0][1]
    assert not CoupCorrection.objects.exists()
