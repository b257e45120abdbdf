"""The API answers 409 naming the closed gaming day to a void of one of its coups; nothing is written."""

import pytest

from pit.accounting.models import GamingDayEvent
from pit.shoes.models import CoupCorrection
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def test_a_void_of_a_closed_days_coup_is_a_409(pit_boss, shoe):
    coup = factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    GamingDayEvent.objects.create(gaming_day=coup.gaming_day, action="closed", by=pit_boss.user)
    response = pit_boss.post(f"/api/v1/coups/{coup.pk}/void/", {"reason": "Misdeal"}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert f"Gaming day {coup.gaming_day} is closed: its records are locked." in str(body)
    assert not CoupCorrection.objects.exists()
