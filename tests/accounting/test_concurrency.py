"""Races on PostgreSQL with real connections: the same slip posted by two terminals at once, and a
table's receipt racing the cage's second post, are each recorded once."""

import datetime as dt

import pytest

from pit.accounting.models import Slip, SlipStep
from pit.accounting.services import slip_issue, slip_request
from pit.accounts.services import device_create
from tests import factories
from tests.api.test_concurrency import _client, _race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

DAY = dt.date(2026, 11, 20)


def test_the_same_slip_from_two_terminals_at_once_is_one_slip():
    table = factories.table("BB1")
    first = _client(device_create(table=table, name="terminal 1")[1])
    second = _client(device_create(table=table, name="terminal 2")[1])
    for number in range(1, 6):
        body = {
            "kind": "fill",
            "number": f"F-{number}",
            "table": "BB1",
            "gaming_day": DAY.isoformat(),
            "reason": "low",
            "chips": {"100.00": 10},
        }
        results = _race(
            [
                lambda b=body: first.post("/api/v1/accounting/slips/", b, format="json"),
                lambda b=body: second.post("/api/v1/accounting/slips/", b, format="json"),
            ]
        )
        # One records it; the other is its replay (200), or took the same slip back at once (201).
        assert sorted(status for status, _ in results) in ([200, 201], [201, 201]), results
        assert results[0][1]["id"] == results[1][1]["id"]
    assert Slip.objects.count() == 5


def test_two_receipts_at_once_record_one_step():
    from pit.core.actors import SYSTEM

    table = factories.table("BB1")
    slip = slip_request(
        kind="fill", number="F-1", table=table, gaming_day=DAY, reason="low", chips={"10000": 10}, actor=SYSTEM
    )
    slip_issue(slip=slip, chips={"10000": 10}, actor=SYSTEM)
    device = _client(device_create(table=table, name="terminal")[1])
    url = "/api/v1/accounting/slips/fill/F-1/receive/"
    results = _race(
        [
            lambda: device.post(url, {"chips": {"100.00": 10}}, format="json"),
            lambda: device.post(url, {"chips": {"100.00": 10}}, format="json"),
        ]
    )
    assert sorted(status for status, _ in results) in ([200, 201], [201, 201]), results
    assert SlipStep.objects.filter(step="received").count() == 1


def test_a_close_waits_for_a_count_being_written_then_sees_it():
    """Without the day lock the close would look at an empty day, lock it, and the count would land
    in a closed day."""
    import threading

    from django.core.exceptions import ValidationError
    from django.db import connection, transaction

    from pit.accounting.models import GamingDayEvent, InventoryCount
    from pit.accounting.services import gaming_day_close, inventory_record
    from pit.accounts.services import user_create_with_role
    from pit.core.actors import Actor

    table = factories.table("BB1")
    dealer, boss, accountant = (
        user_create_with_role(username=name, password="a-long-password-123", role=role)
        for name, role in (("dealer", "pit boss"), ("boss", "pit boss"), ("counter", "accountant"))
    )
    counting, release = threading.Event(), threading.Event()
    outcome = {}

    def count():
        try:
            with transaction.atomic():
                inventory_record(
                    table=table,
                    gaming_day=DAY,
                    kind="opener",
                    chips={"10000": 5},
                    dealer=dealer,
                    pit_boss=boss,
                    actor=Actor(user=boss),
                    secrets={"dealer": "a-long-password-123"},
                )
                counting.set()
                release.wait(timeout=20)
        finally:
            connection.close()

    def close():
        try:
            gaming_day_close(gaming_day=DAY, user=accountant)
            outcome["close"] = "closed"
        except ValidationError as error:
            outcome["close"] = error.message_dict["gaming_day"]
        finally:
            connection.close()

    counter = threading.Thread(target=count)
    counter.start()
    assert counting.wait(timeout=20)
    closer = threading.Thread(target=close)
    closer.start()
    closer.join(timeout=2)
    assert closer.is_alive()  # waiting for the count's transaction
    release.set()
    counter.join(timeout=20)
    closer.join(timeout=20)
    assert outcome["close"] == ["Table BB1 has no closer, drop recorded for every shift."]
    assert InventoryCount.objects.count() == 1 and not GamingDayEvent.objects.exists()
