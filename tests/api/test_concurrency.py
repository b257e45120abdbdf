"""Races on PostgreSQL with real connections: two devices posting the same coup at the same moment
create it once; the same Idempotency-Key sent twice at once runs once."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from pit.accounts.services import device_create
from pit.api.models import IdempotencyKey
from pit.shoes.models import Coup, Wager
from tests import factories
from tests.api.conftest import coup_body

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    return client


def _race(calls):
    """Run the callables at the same moment, each in its own thread and database connection."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        try:
            barrier.wait(timeout=10)
            response = call()
            results[index] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_devices_posting_the_same_coup_at_once_create_exactly_one():
    table = factories.table("BB1")
    shoe = factories.shoe(table)
    first = _client(device_create(table=table, name="shoe reader")[1])
    second = _client(device_create(table=table, name="bet recognition")[1])
    url = f"/api/v1/shoes/{shoe.pk}/coups/"
    for number in range(1, 11):
        results = _race(
            [
                lambda n=number: first.post(url, coup_body(n), format="json"),
                lambda n=number: second.post(url, coup_body(n), format="json"),
            ]
        )
        assert sorted(status for status, _ in results) == [200, 201], results
        assert results[0][1]["id"] == results[1][1]["id"]
    assert Coup.objects.count() == 10
    assert Wager.objects.count() == 70
    shoe.refresh_from_db()
    assert shoe.coups_recorded == 10


def test_a_single_post_and_a_batch_racing_for_the_same_coups_record_each_once():
    table = factories.table("BB1")
    shoe = factories.shoe(table)
    device = _client(device_create(table=table, name="shoe reader")[1])
    url = f"/api/v1/shoes/{shoe.pk}/coups/"
    batch = {"coups": [coup_body(n) for n in range(1, 21)]}
    results = _race(
        [
            lambda: device.post(url + "batch/", batch, format="json"),
            lambda: device.post(url, coup_body(7), format="json"),
        ]
    )
    assert results[0][0] == 200 and results[1][0] in (200, 201)
    assert Coup.objects.count() == 20 and Wager.objects.count() == 140


def test_the_same_idempotency_key_sent_twice_at_once_runs_once():
    table = factories.table("BB1")
    shoe = factories.shoe(table)
    device = _client(device_create(table=table, name="shoe reader")[1])
    url = f"/api/v1/shoes/{shoe.pk}/coups/"
    for number in range(1, 6):
        key = f"retry-{number}"
        results = _race(
            [lambda n=number, k=key: device.post(url, coup_body(n), format="json", HTTP_IDEMPOTENCY_KEY=k)] * 2
        )
        statuses = sorted(status for status, _ in results)
        # The second waits for the first (the key is taken in its transaction) and replays its answer.
        assert statuses == [201, 201], results
    assert Coup.objects.count() == 5
    assert IdempotencyKey.objects.filter(status="completed").count() == 5


def test_tables_playing_one_paytable_record_at_once_and_an_edit_of_it_waits():
    from django.db import OperationalError, transaction

    from pit.paytables.models import PaytableConfiguration
    from pit.shoes.services import shoe_lock

    first, second = factories.shoe(factories.table("BB1")), factories.shoe(factories.table("BB2"))
    assert first.table.paytable_id == second.table.paytable_id
    held, release = threading.Event(), threading.Event()

    def record_slowly():
        try:
            with transaction.atomic():
                shoe_lock(first.pk)
                held.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=record_slowly)
    thread.start()
    try:
        assert held.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            assert shoe_lock(second.pk).table.code == "BB2"  # not blocked by BB1's coup
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '300ms'")
            PaytableConfiguration.objects.select_for_update().get(pk=first.table.paytable_id)
    finally:
        release.set()
        thread.join(10)
