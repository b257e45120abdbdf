"""The shared task policy: settings pinned, transient errors retried with a bound, validation errors
never retried, redeliveries counted and a task parked as failed instead of looping; the admin."""

import json
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest
from celery.exceptions import Ignore
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import OperationalError
from django.urls import reverse

import pit.compliance.tasks  # noqa: F401 (registers the tasks, as the worker's autodiscovery does)
from pit.celery import app
from pit.core.models import FailedTask, FailedTaskState, OutboxMessage
from pit.core.tasks import TRANSIENT_ERRORS, PitTask, failed_task_requeue, task_delivery_count
from pit.ledger.models import Reconciliation
from pit.ledger.tasks import shoe_reconcile
from pit.shoes.services import shoe_close

ROOT = Path(__file__).resolve().parents[2]
app.loader.import_default_modules()  # every tasks module, as a worker does at start
# Tasks declared with a bare @shared_task in modules rewritten on another branch, until they use
# @pit_task: pit/api/tasks.py (idempotency_keys_purge).
OUR_TASKS = sorted(name for name in app.tasks if name.split(".")[0] != "celery")


def _settings_under(env: dict) -> dict:
    """The Celery settings as a worker with this environment would load them."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; print(json.dumps({"
        "'acks_late': s.CELERY_TASK_ACKS_LATE, 'reject': s.CELERY_TASK_REJECT_ON_WORKER_LOST, "
        "'prefetch': s.CELERY_WORKER_PREFETCH_MULTIPLIER, 'time_limit': s.CELERY_TASK_TIME_LIMIT, "
        "'soft_time_limit': s.CELERY_TASK_SOFT_TIME_LIMIT, 'transport': s.CELERY_BROKER_TRANSPORT_OPTIONS, "
        "'beat': sorted(s.CELERY_BEAT_SCHEDULE), 'max_deliveries': s.PIT_TASK_MAX_DELIVERIES}))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "PIT_", "DATABASE_URL"))}
    output = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "pit.settings.production",
            "DJANGO_SECRET_KEY": "policy-test-only-" + "0123456789abcdef" * 3,
            "DJANGO_ALLOWED_HOSTS": "pit.example.com",
            **env,
        },
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def test_the_worker_settings_are_pinned():
    loaded = _settings_under(
        {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "DATABASE_URL": "postgres://pit@127.0.0.1:5432/pit"}
    )
    assert (loaded["acks_late"], loaded["reject"], loaded["prefetch"]) == (True, True, 1)
    assert (loaded["time_limit"], loaded["soft_time_limit"]) == (1800, 1500)
    # Redis must not hand a message to a second worker while the first may still be running it.
    assert loaded["transport"]["visibility_timeout"] == 3600 > loaded["time_limit"] > loaded["soft_time_limit"]
    assert {"compliance.coups_sweep", "ledger.shoes_reconcile_missing"} <= set(loaded["beat"])
    assert loaded["max_deliveries"] == 5


def test_the_beat_schedule_names_registered_tasks():
    for entry in ("compliance.coups_sweep", "ledger.shoes_reconcile_missing", "core.outbox_dispatch"):
        assert settings.CELERY_BEAT_SCHEDULE[entry]["task"] in app.tasks
    # Fast enough that a killed worker's reconciliation exists within 90 s of the restart.
    assert settings.CELERY_BEAT_SCHEDULE["core.outbox_dispatch"]["schedule"] == 20
    assert settings.CELERY_BEAT_SCHEDULE["ledger.shoes_reconcile_missing"]["schedule"] == 60


def test_the_policy_covers_every_task():
    assert {"compliance.coups_verify", "ledger.shoe_reconcile", "core.outbox_dispatch"} <= set(OUR_TASKS)


@pytest.mark.parametrize("name", OUR_TASKS)
def test_every_task_follows_the_policy(name):
    task = app.tasks[name]
    assert isinstance(task, PitTask)
    assert task.autoretry_for == TRANSIENT_ERRORS
    assert hasattr(task, "_orig_run")  # Celery wrapped run() with the autoretry
    assert (task.max_retries, task.retry_backoff, task.retry_backoff_max, task.retry_jitter) == (
        5,
        2,
        300,
        True,
    )
    assert (task.acks_late, task.reject_on_worker_lost) == (True, True)
    assert ValidationError not in TRANSIENT_ERRORS


@pytest.fixture
def retries_run_eagerly():
    """As in a worker: failures are handled (retried, parked), not raised to the caller. (Celery runs
    an eager task's retries and on_failure only when eager errors are not propagated.)"""
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = True


@pytest.fixture
def closed_shoe(box_shoe):
    shoe_close(shoe=box_shoe, box_counts=[])
    return box_shoe


@pytest.mark.django_db
def test_a_transient_error_is_retried(closed_shoe, retries_run_eagerly):
    from pit.ledger import services

    real = services.shoe_reconcile
    calls = []

    def flaky(*, shoe_id):
        calls.append(shoe_id)
        if len(calls) < 3:
            raise OperationalError("server closed the connection unexpectedly")
        return real(shoe_id=shoe_id)

    with mock.patch("pit.ledger.tasks.shoe_reconcile_service", flaky):
        result = shoe_reconcile.delay(closed_shoe.pk).get()

    assert calls == [closed_shoe.pk] * 3
    assert result == Reconciliation.objects.get().pk
    assert FailedTask.objects.count() == 0


@pytest.mark.django_db
def test_transient_errors_are_retried_up_to_the_bound_then_parked(closed_shoe, retries_run_eagerly):
    calls = []

    def down(*, shoe_id):
        calls.append(shoe_id)
        raise OperationalError("could not connect to server")

    with mock.patch("pit.ledger.tasks.shoe_reconcile_service", down):
        result = shoe_reconcile.apply(args=[closed_shoe.pk], task_id="reconcile-down")

    assert (result.state, type(result.result)) == ("FAILURE", OperationalError)
    assert len(calls) == 1 + 5
    parked = FailedTask.objects.get(task_id="reconcile-down")
    assert (parked.task_name, parked.args, parked.state, parked.attempts) == (
        "ledger.shoe_reconcile",
        [closed_shoe.pk],
        FailedTaskState.PARKED,
        6,
    )
    assert parked.error.startswith("django.db.utils.OperationalError: could not connect to server")
    assert Reconciliation.objects.count() == 0


@pytest.mark.django_db
def test_a_validation_error_is_never_retried(box_shoe, retries_run_eagerly):
    from pit.ledger import services

    calls = []

    def counted(*, shoe_id):
        calls.append(shoe_id)
        return services.shoe_reconcile(shoe_id=shoe_id)

    with mock.patch("pit.ledger.tasks.shoe_reconcile_service", counted):
        result = shoe_reconcile.apply(args=[box_shoe.pk], task_id="reconcile-dealing")

    assert (result.state, type(result.result), calls) == ("FAILURE", ValidationError, [box_shoe.pk])

    parked = FailedTask.objects.get()
    assert (parked.task_id, parked.state, parked.attempts) == ("reconcile-dealing", FailedTaskState.PARKED, 1)
    assert "is still dealing; it is reconciled when it is closed at the shuffle." in parked.error
    assert Reconciliation.objects.count() == 0


@pytest.mark.django_db
def test_redeliveries_are_counted_and_the_task_parked_past_the_limit():
    states = [
        task_delivery_count(task_id="t-1", task_name="ledger.shoe_reconcile", args=[7], kwargs={}) for _ in range(5)
    ]
    assert [(row.attempts, row.state) for row in states] == [
        (2, "redelivered"),
        (3, "redelivered"),
        (4, "redelivered"),
        (5, "redelivered"),
        (6, "parked"),
    ]
    row = FailedTask.objects.get()
    assert (row.args, row.error) == (
        [7],
        "Delivered 6 times (limit 5): the worker was lost each time (killed, out of memory, or past the "
        "time limit). Parked, not run again.",
    )


@pytest.mark.django_db
def test_a_parked_redelivery_is_not_run(closed_shoe):
    FailedTask.objects.create(
        task_id="t-2",
        task_name="ledger.shoe_reconcile",
        args=[closed_shoe.pk],
        state="redelivered",
        attempts=5,
        last_seen_at="2026-03-01T12:00Z",
    )
    shoe_reconcile.push_request(id="t-2", delivery_info={"redelivered": True}, is_eager=False)
    try:
        with pytest.raises(Ignore):
            shoe_reconcile.before_start("t-2", [closed_shoe.pk], {})
    finally:
        shoe_reconcile.pop_request()
    assert FailedTask.objects.get().state == FailedTaskState.PARKED
    assert Reconciliation.objects.count() == 0


@pytest.mark.django_db
def test_a_first_delivery_writes_nothing(closed_shoe):
    shoe_reconcile.delay(closed_shoe.pk).get()
    assert FailedTask.objects.count() == 0


@pytest.mark.django_db
def test_staff_see_parked_tasks_and_enqueue_them_again(admin_client):
    row = FailedTask.objects.create(
        task_id="t-3",
        task_name="ledger.shoe_reconcile",
        args=[42],
        state="parked",
        attempts=6,
        error="OperationalError: could not connect\n\nTraceback ...",
        last_seen_at="2026-03-01T12:00Z",
    )
    page = admin_client.get(reverse("admin:core_failedtask_changelist"))
    assert page.status_code == 200
    assert "ledger.shoe_reconcile" in page.content.decode()
    assert "OperationalError: could not connect" in page.content.decode()

    with mock.patch("pit.ledger.tasks.shoe_reconcile.apply_async") as send:
        task_id = failed_task_requeue(failed_task=row)
    # Through the outbox: owed in the database first, sent after commit (none in this test).
    assert list(OutboxMessage.objects.values_list("task_id", "task_name", "args", "dispatched_at")) == [
        (task_id, "ledger.shoe_reconcile", [42], None),
    ]
    send.assert_not_called()
    row.refresh_from_db()
    assert row.state == FailedTaskState.REQUEUED


@pytest.mark.django_db
def test_failed_tasks_lists_only_what_failed_and_needs_a_person(admin_client):
    """The fault: 660 rows that had all succeeded (delivery bookkeeping) filled the page."""
    for n, state in enumerate(["succeeded", "redelivered", "requeued", "parked", "succeeded"]):
        FailedTask.objects.create(
            task_id=f"t-{n}",
            task_name=f"ledger.task_{state}_{n}",
            state=state,
            attempts=2,
            error="RuntimeError: boom" if state == "parked" else "",
            last_seen_at="2026-03-01T12:00Z",
        )
    page = admin_client.get(reverse("admin:core_failedtask_changelist"))
    assert page.status_code == 200
    assert list(page.context["cl"].result_list.values_list("task_id", flat=True)) == ["t-3"]
    assert "1 failed task" in page.content.decode()
    for n in (0, 1, 2, 4):
        assert f"task_id=t-{n}" not in page.content.decode() and f"_{n}<" not in page.content.decode()
