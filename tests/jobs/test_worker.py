"""The jobs with a real `celery -A pit worker` process on Redis and PostgreSQL: closing a shoe produces
its reconciliation; a worker killed (SIGKILL) in the middle of one loses nothing and duplicates
nothing once another worker takes the message back, or, with the production visibility timeout,
once the outbox pickup sends it again; a rolled-back transaction enqueues nothing; a Redis of
the test's own, stopped while the floor records, loses no check and no reconciliation; and a seated
patron is rated by the refresh each coup owes, inside the task's audit context."""

import contextlib
import datetime as dt
import os
from decimal import Decimal
from unittest import mock

import psycopg
import pytest
import redis
from django.conf import settings
from django.db import connection, transaction

from pit.accounts.services import device_create
from pit.celery import app
from pit.compliance.models import RuleViolation
from pit.core.models import FailedTask, OutboxMessage
from pit.ledger.models import CommissionEntry, EntryKind, Reconciliation
from pit.ledger.services import commission_collect
from pit.shoes.services import shoe_close
from tests import factories
from tests.api.conftest import coup_body
from tests.factories import wager
from tests.jobs.conftest import BANKER_NATURAL
from tests.jobs.processes import Beat, PrivateRedis, Worker, wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

QUEUE = "urgent"  # reconciliations and the checks of coups just recorded


@pytest.fixture
def broker():
    """The test's Redis database, empty before and after."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.flushdb()
    yield client
    client.flushdb()
    client.close()


@pytest.fixture
def not_eager():
    """This process enqueues for real; the worker runs the tasks."""
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = True


@pytest.fixture
def workers(transactional_db, broker, not_eager, tmp_path):
    started: list[Worker] = []

    def start(visibility_timeout: int = 3600, beat: bool = False, **options) -> Worker:
        worker = Worker(tmp_path / f"worker-{len(started) + 1}.log", visibility_timeout=visibility_timeout, **options)
        started.append(worker)
        if beat:
            started.append(Beat(tmp_path / f"beat-{len(started)}.log", **options))
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture
def holder(workers):
    """A second session on the test database (closed before the workers stop and the tables are flushed)."""
    db = connection.settings_dict
    session = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
    )
    yield session
    session.close()


def _dealt_and_closed_shoe(counted_seat_1: str = "7.50"):
    """Seat 1 owes 7.50; seat 2 owed 10.00 and left (collected); coup 2 has a card Player should not hold."""
    shoe = factories.shoe(factories.table("BB1"))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(2, "banker", "200")])
    factories.coup(shoe, 2, ["KH", "7D", "2C"], ["TS", "6H"], wagers=[wager(1, "player", "50", paid="50")])
    factories.coup(shoe, 3, *BANKER_NATURAL, wagers=[wager(1, "banker", "50")])
    commission_collect(shoe=shoe, seat=2, note="Player left")
    shoe_close(shoe=shoe, box_counts=[(1, Decimal(counted_seat_1)), (2, Decimal("0"))])
    return shoe


def _figures(shoe):
    reconciliation = Reconciliation.objects.get(shoe=shoe)
    seats = list(
        reconciliation.seats.values_list(
            "seat",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
        ).order_by("seat")
    )
    totals = (
        reconciliation.accrued_minor,
        reconciliation.collected_earlier_minor,
        reconciliation.expected_minor,
        reconciliation.counted_minor,
        reconciliation.variance_minor,
        reconciliation.status,
    )
    return seats, totals


def _waiting(client) -> int:
    """Messages waiting in the urgent queue, every priority (Redis keeps one list per priority step)."""
    return sum(client.llen(key) for key in client.keys(f"{QUEUE}*"))


def _blocked_backend():
    """The session of the test database waiting for a lock (the worker inside the reconciliation)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
            [connection.settings_dict["NAME"]],
        )
        row = cursor.fetchone()
    return row and row[0]


def _queued(client) -> int:
    return _waiting(client) + client.hlen("unacked")


def test_closing_a_shoe_produces_its_reconciliation(workers, broker):
    worker = workers()
    shoe = _dealt_and_closed_shoe()

    wait_for(lambda: Reconciliation.objects.filter(shoe=shoe).exists(), timeout=60, what="the reconciliation")
    assert _figures(shoe) == (
        [(1, 750, 0, 750, 750, 0), (2, 1000, 1000, 0, 0, 0)],
        (1750, 1000, 750, 750, 0, "balanced"),
    )
    assert list(
        CommissionEntry.objects.filter(kind=EntryKind.COLLECTED, collection_reason="shuffle").values_list(
            "seat", "amount_minor"
        )
    ) == [(1, -750)]
    # The coups were verified by the same worker, after their own commits.
    wait_for(
        lambda: RuleViolation.objects.filter(code="player_extra_card").exists(),
        timeout=30,
        what="the coup check",
    )
    assert list(RuleViolation.objects.values_list("code", "coup__number")) == [("player_extra_card", 2)]
    wait_for(lambda: _queued(broker) == 0, timeout=30, what="the queue to drain")
    assert FailedTask.objects.count() == 0
    assert "ledger.shoe_reconcile" in worker.output()


def test_a_worker_killed_mid_reconciliation_loses_nothing_and_duplicates_nothing(workers, broker, holder):
    shoe = _dealt_and_closed_shoe(counted_seat_1="7.00")
    assert _waiting(broker) == 4  # three coup checks and the reconciliation, waiting for a worker

    # Hold the shoe's row lock so that the worker blocks inside the reconciliation (shoe_lock takes
    # FOR UPDATE). NO KEY UPDATE still lets the coup checks insert findings that refer to the shoe.
    holder.execute("SELECT id FROM shoes_shoe WHERE id = %s FOR NO KEY UPDATE", [shoe.pk])
    first = workers(visibility_timeout=5)

    pid = wait_for(_blocked_backend, timeout=60, what="the worker to block inside the reconciliation")
    first.kill()
    # The dead worker's session goes with it (PostgreSQL notices a vanished client only when it next
    # talks to it; end it now so the test does not depend on when that is).
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    holder.rollback()
    assert Reconciliation.objects.count() == 0
    assert broker.hlen("unacked") == 1  # late ack: the message is still Redis's, not lost

    workers(visibility_timeout=5)  # Redis hands the message out again after the visibility timeout

    wait_for(lambda: Reconciliation.objects.filter(shoe=shoe).exists(), timeout=90, what="the redelivery")
    wait_for(lambda: _queued(broker) == 0, timeout=30, what="the queue to drain")
    assert Reconciliation.objects.count() == 1
    assert _figures(shoe) == (
        [(1, 750, 0, 750, 700, -50), (2, 1000, 1000, 0, 0, 0)],
        (1750, 1000, 750, 700, -50, "variance"),
    )
    assert list(
        CommissionEntry.objects.filter(kind=EntryKind.COLLECTED, collection_reason="shuffle").values_list(
            "seat", "amount_minor"
        )
    ) == [(1, -750)]
    assert list(RuleViolation.objects.filter(code="box_variance").values_list("seat", "message")) == [
        (1, "The commission box for seat 1 counted 7.00 against 7.50 owed by the ledger; short by 0.50."),
    ]
    # The redelivery was counted: a second delivery that succeeded.
    assert list(FailedTask.objects.values_list("task_name", "args", "attempts", "state")) == [
        ("ledger.shoe_reconcile", [shoe.pk], 2, "succeeded"),
    ]


def test_a_rolled_back_transaction_enqueues_nothing(transactional_db, broker, not_eager):
    shoe = factories.shoe(factories.table("BB1"))
    broker.flushdb()  # the shoe's creation enqueued nothing, but start from an empty queue regardless

    with pytest.raises(RuntimeError), transaction.atomic():
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("0"))])
        factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")])
        raise RuntimeError("the request failed after the close")

    assert _queued(broker) == 0
    assert Reconciliation.objects.count() == 0
    shoe.refresh_from_db()
    assert shoe.status == "dealing"

    # The same close, committed, does enqueue: the check above can fail.
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0"))])
    assert _waiting(broker) == 1


def test_a_killed_worker_s_reconciliation_is_sent_again_from_the_outbox(workers, broker, holder):
    """Production visibility timeout (an hour): Redis would hand the message out again far too late;
    the outbox pickup (beat) sends it again once it is overdue, and a restarted worker makes it."""
    # The grace shortened from 45 s so the test is quick; the benchmark measures the default.
    fast = {"env": {"PIT_OUTBOX_REDISPATCH_SECONDS": "5"}}
    shoe = _dealt_and_closed_shoe()
    holder.execute("SELECT id FROM shoes_shoe WHERE id = %s FOR NO KEY UPDATE", [shoe.pk])
    first = workers(**fast)

    pid = wait_for(_blocked_backend, timeout=60, what="the worker to block inside the reconciliation")
    first.kill()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    holder.rollback()
    assert broker.hlen("unacked") == 1
    # Sent once, taken by the killed worker (served before the coup checks, still waiting), not done.
    assert list(OutboxMessage.objects.filter(task_name="ledger.shoe_reconcile").values_list("attempts")) == [(1,)]

    workers(beat=True, **fast)
    # Within 90 s of the restart (the timeout is the target).
    wait_for(lambda: Reconciliation.objects.filter(shoe=shoe).exists(), timeout=90, what="the outbox pickup")
    wait_for(lambda: not OutboxMessage.objects.exists(), timeout=30, what="the outbox to drain")
    assert Reconciliation.objects.count() == 1
    assert _figures(shoe)[1] == (1750, 1000, 750, 750, 0, "balanced")


@contextlib.contextmanager
def _broker_of_this_process(url: str):
    """Point this process's Celery app (the web's sends, /healthz) at another broker, and back."""
    saved = (app.conf.broker_url, app._pool)
    app._pool = None
    app.amqp._producer_pool = None
    # Celery reads CELERY_BROKER_URL from the environment before its own setting.
    with mock.patch.dict(os.environ, {"CELERY_BROKER_URL": url}):
        app.conf.broker_url = url
        try:
            yield
        finally:
            if app._pool is not None:
                app._pool.force_close_all()
            app.conf.broker_url, app._pool = saved
            app.amqp._producer_pool = None


def test_a_broker_outage_loses_no_check_and_no_reconciliation(workers, not_eager, tmp_path):
    from rest_framework.test import APIClient

    server = PrivateRedis(tmp_path / "redis-h1", port=16310)
    server.start()
    try:
        with _broker_of_this_process(server.url):
            shoe = factories.shoe(factories.table("BB1"))
            _, key = device_create(table=shoe.table, name="shoe reader")
            floor = APIClient()
            floor.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
            checks = floor.get("/healthz").json()["checks"]  # no worker yet: the queues have no consumer
            assert (checks["database"]["ok"], checks["broker"]["ok"]) == (True, True)

            server.stop()
            # Player 7 beats Banker 6; coup 2 is reported as a Banker win.
            posted = [
                floor.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(1), format="json").status_code,
                floor.post(
                    f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(2, reported_winner="banker"), format="json"
                ).status_code,
                floor.post(
                    f"/api/v1/shoes/{shoe.pk}/close/",
                    {"commission_box": [{"seat": 1, "counted": "0.00"}]},
                    format="json",
                ).status_code,
            ]
            assert posted == [201, 201, 200]
            assert list(OutboxMessage.objects.order_by("id").values_list("task_name", "dispatched_at")) == [
                ("compliance.coups_verify", None),
                ("ratings.table_day_refresh", None),
                ("compliance.coups_verify", None),
                ("ratings.table_day_refresh", None),
                ("ledger.shoe_reconcile", None),
            ]
            health = floor.get("/healthz")
            assert health.status_code == 503
            assert health.json()["status"] == "unavailable"
            assert health.json()["checks"]["database"]["ok"] is True
            assert health.json()["checks"]["broker"] == {
                "ok": False,
                "detail": "OperationalError: Error 111 connecting to 127.0.0.1:16310. Connection refused.",
            }
            assert RuleViolation.objects.count() == 0 and Reconciliation.objects.count() == 0

            server.start()
            workers(beat=True, broker_url=server.url)
            # Within 2 minutes of the broker's return (the timeout is the target).
            wait_for(lambda: not OutboxMessage.objects.exists(), timeout=120, what="the outbox to drain")
            assert list(RuleViolation.objects.values_list("code", "coup__number")) == [("reported_winner_mismatch", 2)]
            assert Reconciliation.objects.filter(shoe=shoe).count() == 1
            assert floor.get("/healthz").status_code == 200
    finally:
        server.stop()


def test_a_backlog_of_one_shoe_s_checks_is_checked_by_one_task(workers, broker):
    """Coups posted while no worker runs: each owes its check (sent to Redis); the first task a worker
    runs checks the whole shoe, the others find nothing left; every coup is checked once."""
    shoe = factories.shoe(factories.table("BB1"))
    coups = [factories.coup(shoe, number, *BANKER_NATURAL, reported_winner="player") for number in range(1, 7)]
    assert OutboxMessage.objects.filter(task_name="compliance.coups_verify", dispatched_at__isnull=False).count() == 6

    worker = workers()
    wait_for(lambda: not OutboxMessage.objects.exists(), timeout=60, what="every owed check to be done")
    assert sorted(RuleViolation.objects.values_list("code", "coup_id")) == [
        ("reported_winner_mismatch", coup.pk) for coup in coups
    ]
    wait_for(lambda: _queued(broker) == 0, timeout=30, what="the queue to drain")
    results = [
        line.rsplit(": ", 1)[1]
        for line in worker.output().splitlines()
        if "compliance.coups_verify" in line and " succeeded in " in line
    ]
    assert sorted(results) == ["0", "0", "0", "0", "0", "6"]
    assert FailedTask.objects.count() == 0


def test_a_worker_rates_the_seated_patron_as_the_coups_are_checked(workers, broker):
    """The refresh each coup owes, run by a real worker inside its task's audit context: the
    seated patron's rating counts every wager of the seat (figures from the posted wagers), and is
    the one computing it in this process gives."""
    from django.utils import timezone

    from pit.ratings.models import SessionRating
    from pit.ratings.services import session_rate
    from pit.shoes.models import Wager, WagerResult
    from tests.ratings.players import floor_seat, patron

    table = factories.table("BB1")
    session = floor_seat(table=table, seat=1, at=timezone.now() - dt.timedelta(minutes=10), patron=patron("W-0001"))
    shoe = factories.shoe(table)
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(1, "tie", "25")])
    factories.coup(shoe, 2, *BANKER_NATURAL, wagers=[wager(1, "player", "50"), wager(2, "banker", "300")])

    workers()
    wait_for(
        lambda: SessionRating.objects.filter(session=session, coups_played=2).exists(),
        timeout=60,
        what="the rating of both coups",
    )
    wait_for(lambda: not OutboxMessage.objects.exists(), timeout=60, what="every owed task to be done")
    rating = SessionRating.objects.get(session=session)
    assert (rating.wagers, rating.coups_played, rating.table_coups) == (3, 2, 2)
    assert (rating.handle_minor, rating.largest_bet_minor) == (17500, 10000)
    assert rating.handle_by_bet == {"banker": 10000, "player": 5000, "tie": 2500}
    # The house's result from the seat's settled rows: stakes lost, less payouts, plus commission.
    seat = Wager.objects.filter(coup__shoe=shoe, seat=1)
    assert seat.count() == 3
    assert rating.won_minor == sum(
        (w.amount_minor if w.result == WagerResult.LOSE else 0) - w.payout_minor + w.commission_minor for w in seat
    )
    assert rating.commission_owed_minor == sum(w.commission_minor for w in seat)
    assert rating.theo == session_rate(session).theo > 0
    assert FailedTask.objects.count() == 0
