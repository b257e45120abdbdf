"""pit.accounting.persistence: whether days are closed and whether a device holds a scope, as the
ORM reads them (on PostgreSQL the statements written by hand; on SQLite the ORM's queries)."""

import datetime as dt

import pytest

from pit.accounting import persistence
from pit.accounting.models import DayAction, DeviceGrant, GamingDayEvent
from pit.accounting.selectors import days_closed
from pit.accounts.services import device_create
from tests import factories

pytestmark = pytest.mark.django_db

MONDAY = dt.date(2026, 3, 2)


def test_day_actions_are_the_events_of_the_days_asked_oldest_first(django_user_model):
    accountant = django_user_model.objects.create_user("acc", is_staff=True)
    tuesday, wednesday = MONDAY + dt.timedelta(days=1), MONDAY + dt.timedelta(days=2)
    for day, action in (
        (MONDAY, DayAction.CLOSED),
        (tuesday, DayAction.CLOSED),
        (MONDAY, DayAction.REOPENED),
        (wednesday, DayAction.CLOSED),
    ):
        GamingDayEvent.objects.create(gaming_day=day, action=action, by=accountant, note="a recount")
    expected = list(
        GamingDayEvent.objects.filter(gaming_day__in=[MONDAY, tuesday])
        .order_by("id")
        .values_list("gaming_day", "action")
    )
    assert (
        persistence.day_actions([MONDAY, tuesday])
        == expected
        == [
            (MONDAY, "closed"),
            (tuesday, "closed"),
            (MONDAY, "reopened"),
        ]
    )
    assert persistence.day_actions([MONDAY - dt.timedelta(days=1)]) == []
    assert days_closed([wednesday, MONDAY, tuesday]) == [tuesday, wednesday]


def test_a_device_holds_only_the_scopes_granted_to_it():
    device, _ = device_create(table=factories.table("AP1"), name="cage terminal")
    other, _ = device_create(table=factories.table("AP2"), name="shoe reader")
    DeviceGrant.objects.create(device=device, scope="cage")
    assert persistence.device_holds(device.pk, "cage") is True
    assert persistence.device_holds(device.pk, "count_room") is False
    assert persistence.device_holds(other.pk, "cage") is False


@pytest.mark.postgres
def test_the_days_read_under_their_shared_locks_hold_them_to_the_end_of_the_transaction():
    from django.db import connection

    from pit.accounting.locks import _LOCK_SPACE

    tuesday = MONDAY + dt.timedelta(days=1)
    assert persistence.day_actions([MONDAY, tuesday], lock_space=_LOCK_SPACE) == []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT classid, objid, mode FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
            "AND granted ORDER BY objid"
        )
        held = cursor.fetchall()
    assert held == [
        (_LOCK_SPACE, MONDAY.toordinal(), "ShareLock"),
        (_LOCK_SPACE, tuesday.toordinal(), "ShareLock"),
    ]
