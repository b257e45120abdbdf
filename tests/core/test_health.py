"""/healthz: the database, the broker, each queue's live consumers, the outbox and the checks' lag,
503 naming each check past its threshold (docs/operations/health.md)."""

import datetime as dt
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from pit.celery import app
from pit.core.health import CheckResult
from pit.core.models import OutboxMessage, WorkerHeartbeat
from pit.core.workers import heartbeat_write


@pytest.mark.django_db
def test_healthz_is_200_when_database_and_broker_answer(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_503_and_names_the_broker_when_it_is_down(client):
    down = CheckResult("broker", False, "OperationalError: connection refused")
    with mock.patch("pit.core.health.check_broker", return_value=down):
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == {
        "ok": False,
        "detail": "OperationalError: connection refused",
    }
    assert response.json()["status"] == "unavailable"


# ---------------------------------------------------------------------------------------- what it reports


@pytest.fixture
def with_workers():
    """Tasks go to workers (not run eagerly): the queues need consumers; both have a fresh heartbeat."""
    app.conf.task_always_eager = False
    for queue in ("urgent", "bulk"):
        heartbeat_write(worker=f"{queue}@host", queues=[queue], pid=1)
    yield
    app.conf.task_always_eager = True


def _owe(task_name: str, *, age: int, sent: bool = False, count: int = 1) -> None:
    now = timezone.now()
    for _ in range(count):
        row = OutboxMessage.objects.create(task_id=f"{task_name}-{OutboxMessage.objects.count()}", task_name=task_name)
        OutboxMessage.objects.filter(pk=row.pk).update(
            created_at=now - dt.timedelta(seconds=age), dispatched_at=now if sent else None
        )


@pytest.mark.django_db
def test_healthz_reports_each_queue_the_outbox_and_the_lag(client, with_workers):
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["failing"] == []
    assert body["checks"]["queue:urgent"] == {"ok": True, "detail": "1 live consumer(s)", "consumers": 1}
    assert body["checks"]["queue:bulk"]["consumers"] == 1
    assert body["checks"]["outbox"] == {
        "ok": True,
        "detail": "0 owed, 0 unsent",
        "size": 0,
        "unsent": 0,
        "oldest_unsent_seconds": None,
    }
    assert body["checks"]["checks"] == {
        "ok": True,
        "detail": "up to date",
        "coup_checks_lag_seconds": 0,
        "reconciliations_lag_seconds": 0,
    }


@pytest.mark.django_db
@override_settings(PIT_HEALTH_WORKER_STALE_SECONDS=30)
def test_a_queue_whose_worker_stopped_beating_is_503_named(client, with_workers):
    WorkerHeartbeat.objects.filter(queue="urgent").update(beat_at=timezone.now() - dt.timedelta(seconds=31))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["queue:urgent"]
    assert response.json()["checks"]["queue:urgent"] == {
        "ok": False,
        "detail": "no live consumer (no heartbeat within 30 s; the last one 31 s ago)",
        "consumers": 0,
    }


@pytest.mark.django_db
@override_settings(PIT_HEALTH_OUTBOX_MAX_SIZE=5)
def test_an_outbox_over_its_threshold_is_503_named(client, with_workers):
    _owe("compliance.coups_verify", age=2, sent=True, count=6)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["failing"] == ["outbox"]
    assert response.json()["checks"]["outbox"]["detail"] == "6 tasks owed (threshold 5)"


@pytest.mark.django_db
@override_settings(PIT_HEALTH_OUTBOX_MAX_UNSENT_SECONDS=120, PIT_HEALTH_CHECKS_MAX_LAG_SECONDS=300)
def test_a_task_never_sent_and_checks_behind_are_503_named(client, with_workers):
    _owe("ledger.shoe_reconcile", age=130)
    _owe("compliance.coups_verify", age=600, sent=True)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["outbox", "checks"]
    assert body["checks"]["outbox"]["detail"] == "the oldest unsent for 130 s (threshold 120 s)"
    assert body["checks"]["outbox"]["unsent"] == 1
    assert body["checks"]["checks"] == {
        "ok": False,
        "detail": "coup checks 600 s behind (threshold 300 s)",
        "coup_checks_lag_seconds": 600,
        "reconciliations_lag_seconds": 130,
    }


@pytest.mark.django_db
@override_settings(PIT_HEALTH_REQUIRE_WORKERS=False, PIT_HEALTH_OUTBOX_MAX_SIZE=0)
def test_a_web_measured_alone_checks_only_the_database_and_the_broker(client, with_workers):
    WorkerHeartbeat.objects.all().delete()
    _owe("compliance.coups_verify", age=900)
    body = client.get("/healthz").json()
    assert body["failing"] == []
    details = {name: check["detail"] for name, check in body["checks"].items() if name not in ("database", "broker")}
    off = "not checked (PIT_HEALTH_REQUIRE_WORKERS is off)"
    assert details == dict.fromkeys(("queue:urgent", "queue:bulk", "outbox", "checks"), off)


@pytest.mark.django_db
def test_a_queue_no_worker_ever_consumed_is_named(client, with_workers):
    WorkerHeartbeat.objects.filter(queue="bulk").delete()
    body = client.get("/healthz").json()
    assert body["failing"] == ["queue:bulk"]
    assert body["checks"]["queue:bulk"]["detail"] == "no live consumer (no heartbeat within 45 s; none ever)"
