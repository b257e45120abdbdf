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
        body = {"kind": "fill", "number": f"F-{number}", "table": "BB1", "gaming_day": DAY.isoformat(),
                "reason": "low", "chips": {"100.00": 10}}
        results = _race([
            lambda b=body: first.post("/api/v1/accounting/slips/", b, format="json"),
            lambda b=body: second.post("/api/v1/accounting/slips/", b, format="json"),
        ])
        assert [status for status, _ in results] == [201, 201], results
        assert results[0][1]["id"] == results[1][1]["id"]
    assert Slip.objects.count() == 5


def test_two_receipts_at_once_record_one_step():
    from pit.core.actors import SYSTEM

    table = factories.table("BB1")
    slip = slip_request(kind="fill", number="F-1", table=table, gaming_day=DAY, reason="low",
                        chips={"10000": 10}, actor=SYSTEM)
    slip_issue(slip=slip, chips={"10000": 10}, actor=SYSTEM)
    device = _client(device_create(table=table, name="terminal")[1])
    url = "/api/v1/accounting/slips/fill/F-1/receive/"
    results = _race([
        lambda: device.post(url, {"chips": {"100.00": 10}}, format="json"),
        lambda: device.post(url, {"chips": {"100.00": 10}}, format="json"),
    ])
    assert sorted(status for status, _ in results) == [201, 201], results
    assert SlipStep.objects.filter(step="received").count() == 1
