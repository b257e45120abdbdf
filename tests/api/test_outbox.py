"""The outbox on the embedded default: a send the broker refuses never fails the write (201/200, the
task owed in the database), the pickup sends it once the broker is back, and a task sent but never
completed is sent again after its grace period, then parked; tasks go to queues by urgency."""

import contextlib
import datetime as dt
import logging
from decimal import Decimal
from unittest import mock

import kombu.exceptions
import pytest
from celery.exceptions import Ignore
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.compliance.tasks import coups_sweep_task, coups_verify
from pit.core import derived
from pit.core.models import FailedTask, OutboxMessage
from pit.core.outbox import _BrokerState, outbox_dispatch_due, outbox_enqueue
from pit.core.queues import BULK, URGENT, task_queue, task_route
from pit.ledger.models import Reconciliation
from pit.ledger.tasks import shoe_reconcile
from pit.reports.tasks import report_export_run
from pit.shoes.models import Coup
from tests.api.conftest import coup_body

pytestmark = pytest.mark.django_db

REFUSED = kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def _owed():
    return list(OutboxMessage.objects.values_list("task_name", "args", "dispatched_at", "attempts"))


def _later(seconds: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(seconds=seconds)


@pytest.fixture(autouse=True)
def _no_ratings_refresh(monkeypatch):
    """The outbox's own mechanics: a live coup owes its check only here (the ratings' refresh it
    also owes is pit.ratings' concern, tested there and in tests/core/test_derived.py)."""
    monkeypatch.setattr(derived, "DERIVED", tuple(item for item in derived.DERIVED if item.name != "ratings"))


@pytest.fixture(autouse=True)
def _broker_was_up():
    """Each test starts as a process whose last send went through (an outage is logged once per process)."""
    _BrokerState.down = False


@contextlib.contextmanager
def broker_down():
    """Every send is refused as by a stopped Redis."""
    with (
        mock.patch.object(coups_verify, "apply_async", side_effect=REFUSED) as verify,
        mock.patch.object(shoe_reconcile, "apply_async", side_effect=REFUSED),
    ):
        yield verify


def test_coups_posted_while_the_broker_is_down_are_201_owed_and_logged_once(
    device, shoe, django_capture_on_commit_callbacks, caplog
):
    caplog.set_level(logging.DEBUG, logger="pit.core.outbox")
    with broker_down() as sends, django_capture_on_commit_callbacks(execute=True):
        # Player 7 beats Banker 6: the device reports the wrong winner on coup 2.
        first = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(1), format="json")
        second = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(2, reported_winner="banker"), format="json")

    assert (first.status_code, second.status_code) == (201, 201)
    one, two = Coup.objects.order_by("number")
    assert _owed() == [
        ("compliance.coups_verify", [[one.pk]], None, 0),
        ("compliance.coups_verify", [[two.pk]], None, 0),
    ]
    assert RuleViolation.objects.count() == 0
    assert sends.call_count == 2
    # One line for the outage, no traceback; the second refusal is only a debug line.
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [(record.getMessage(), record.exc_info) for record in warnings] == [
        (
            f"broker unreachable, compliance.coups_verify {OutboxMessage.objects.first().task_id} kept in the "
            "outbox for the pickup (OperationalError: Error 111 connecting to 127.0.0.1:6379. Connection refused.)",
            None,
        )
    ]

    # Still down: the pickup merges the two checks into one, is refused and keeps it.
    with broker_down() as sends:
        assert outbox_dispatch_due(now=_later(10)) == 0
    assert sends.call_count == 1
    assert _owed() == [("compliance.coups_verify", [[one.pk, two.pk]], None, 0)]


def test_the_pickup_sends_what_the_broker_refused_once_it_is_back(device, shoe, django_capture_on_commit_callbacks):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(1), format="json")
        device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(2, reported_winner="banker"), format="json")
    assert len(_owed()) == 2 and RuleViolation.objects.count() == 0

    assert outbox_dispatch_due(now=timezone.now()) == 0  # younger than the send grace: maybe still on its way
    with mock.patch.object(coups_verify, "apply_async", wraps=coups_verify.apply_async) as sends:
        assert outbox_dispatch_due(now=_later(10)) == 1  # the two checks owed, merged into one
    one, two = Coup.objects.order_by("number")
    assert [call.kwargs["args"] for call in sends.call_args_list] == [[[one.pk, two.pk]]]

    assert _owed() == []
    assert list(RuleViolation.objects.values_list("code", "coup__number")) == [("reported_winner_mismatch", 2)]


def test_unsent_checks_are_merged_up_to_the_urgent_batch_size(settings, django_capture_on_commit_callbacks):
    settings.PIT_URGENT_VERIFY_MAX_COUPS = 3
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        for coup_ids in ([1], [2, 3], [4], [5], [6, 7, 8, 9]):
            outbox_enqueue(coups_verify, coup_ids)
        outbox_enqueue(shoe_reconcile, 99)
    with mock.patch.object(coups_verify, "apply_async") as sends, mock.patch.object(shoe_reconcile, "apply_async"):
        assert outbox_dispatch_due(now=_later(10)) == 4
    assert [call.kwargs["args"] for call in sends.call_args_list] == [[[1, 2, 3]], [[4, 5]], [[6, 7, 8, 9]]]


def test_a_shoe_closed_while_the_broker_is_down_is_200_and_reconciled_by_the_pickup(
    device, shoe, django_capture_on_commit_callbacks
):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        response = device.post(
            f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": [{"seat": 1, "counted": "0.00"}]}, format="json"
        )
    assert response.status_code == 200
    assert _owed() == [("ledger.shoe_reconcile", [shoe.pk], None, 0)]
    assert Reconciliation.objects.count() == 0

    assert outbox_dispatch_due(now=_later(10)) == 1

    assert Reconciliation.objects.filter(shoe=shoe).count() == 1
    assert _owed() == []


def test_a_task_sent_but_never_completed_is_sent_again_with_doubling_grace_never_parked(
    shoe, django_capture_on_commit_callbacks
):
    with mock.patch.object(shoe_reconcile, "apply_async") as send:  # the broker takes it; no worker runs it
        with django_capture_on_commit_callbacks(execute=True):
            outbox_enqueue(shoe_reconcile, shoe.pk)
        row = OutboxMessage.objects.get()
        assert (row.attempts, row.dispatched_at is not None) == (1, True)

        def pickup(seconds_after_last_send):
            last = OutboxMessage.objects.get().dispatched_at
            return outbox_dispatch_due(now=last + dt.timedelta(seconds=seconds_after_last_send))

        assert pickup(44) == 0
        assert pickup(46) == 1  # 45 s after the first send
        assert pickup(89) == 0
        assert pickup(91) == 1  # then 90 s
        assert pickup(181) == 1  # 180 s
        assert pickup(361) == 1  # 360 s
        assert pickup(721) == 1  # 720 s: workers that are down make nothing fail
        assert pickup(1441) == 1
        assert pickup(2881) == 1
        assert pickup(3599) == 0
        assert pickup(3601) == 1  # an hour at most
        assert send.call_count == 9
        assert {call.kwargs["task_id"] for call in send.call_args_list} == {row.task_id}
    assert OutboxMessage.objects.get().attempts == 9
    assert FailedTask.objects.count() == 0


def test_a_copy_sent_again_that_kills_its_worker_each_time_is_parked(shoe, django_capture_on_commit_callbacks):
    """A worker starting a copy the outbox sent again counts a delivery, as for a Redis redelivery."""
    with mock.patch.object(shoe_reconcile, "apply_async"), django_capture_on_commit_callbacks(execute=True):
        task_id = outbox_enqueue(shoe_reconcile, shoe.pk).task_id
    shoe_reconcile.push_request(id=task_id, delivery_info={"redelivered": False}, is_eager=False)
    try:
        shoe_reconcile.before_start(task_id, [shoe.pk], {})  # the first copy: not counted
        assert FailedTask.objects.count() == 0
        OutboxMessage.objects.update(attempts=2)  # the pickup sent it again: the first never completed
        for _ in range(4):
            shoe_reconcile.before_start(task_id, [shoe.pk], {})  # each copy killed its worker
        with pytest.raises(Ignore):
            shoe_reconcile.before_start(task_id, [shoe.pk], {})
    finally:
        shoe_reconcile.pop_request()
    parked = FailedTask.objects.get()
    assert (parked.task_id, parked.state, parked.attempts) == (task_id, "parked", 6)
    assert _owed() == []  # staff own it now; the pickup sends it no more


def test_a_coup_check_is_sent_again_after_four_times_the_grace(django_capture_on_commit_callbacks, shoe):
    with mock.patch.object(coups_verify, "apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            outbox_enqueue(coups_verify, [1])
        last = OutboxMessage.objects.get().dispatched_at
        assert outbox_dispatch_due(now=last + dt.timedelta(seconds=179)) == 0
        assert outbox_dispatch_due(now=last + dt.timedelta(seconds=181)) == 1
    assert [call.kwargs["task_id"] for call in send.call_args_list] == [OutboxMessage.objects.get().task_id] * 2


def test_a_bulk_task_is_sent_again_only_after_the_task_time_limit(settings, django_capture_on_commit_callbacks):
    with mock.patch.object(report_export_run, "apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            outbox_enqueue(report_export_run, 7)
        last = OutboxMessage.objects.get().dispatched_at
        assert outbox_dispatch_due(now=last + dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)) == 0
        assert outbox_dispatch_due(now=last + dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 61)) == 1
    assert send.call_count == 2


def test_a_task_that_ran_leaves_nothing_owed(shoe, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        from pit.shoes.services import shoe_close

        shoe_close(shoe=shoe, box_counts=[(1, Decimal("0"))])
    assert Reconciliation.objects.filter(shoe=shoe).count() == 1
    assert _owed() == []


def test_a_rolled_back_write_owes_nothing(shoe, django_capture_on_commit_callbacks):
    from django.db import transaction

    from pit.shoes.services import shoe_close

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("0"))])
        raise RuntimeError("the request failed after the close")
    assert (callbacks, _owed(), Reconciliation.objects.count()) == ([], [], 0)


def test_tasks_go_to_queues_by_urgency_and_reconciliations_before_coup_checks(settings):
    assert task_route("ledger.shoe_reconcile", [1]) == (URGENT, 0)
    assert task_route("core.outbox_dispatch") == (URGENT, 0)
    assert task_route("compliance.coups_verify", [[1]]) == (URGENT, 6)
    assert task_route("compliance.coups_verify", [[1, 2]]) == (URGENT, 3)  # catching up: older coups first
    assert task_queue("ledger.shoe_reconcile", [1]) == URGENT
    assert task_queue("ledger.shoes_reconcile_missing") == URGENT
    assert task_queue("core.outbox_dispatch") == URGENT
    assert task_queue("compliance.coups_verify", [[1]]) == URGENT
    assert task_queue("compliance.coups_verify", [list(range(settings.PIT_URGENT_VERIFY_MAX_COUPS))]) == URGENT
    assert task_queue("compliance.coups_verify", [list(range(settings.PIT_URGENT_VERIFY_MAX_COUPS + 1))]) == BULK
    assert task_queue(coups_sweep_task.name) == BULK
    assert task_queue("reports.report_export_run", [1]) == BULK
    assert task_queue("reports.report_exports_purge") == BULK
    assert task_queue("api.idempotency_keys_purge") == BULK
    assert task_queue("some.task_nobody_routed") == BULK


@pytest.mark.django_db(transaction=True)
def test_a_web_request_sends_its_tasks_once_its_answer_is_written(device, shoe, monkeypatch):
    """The coup's check is owed at commit and sent at request_finished (the WSGI server closes the
    answer after writing it): the client does not wait for the broker."""
    from celery import current_app

    from pit.core import outbox
    from tests.api.conftest import coup_body

    sent = []
    monkeypatch.setitem(current_app.conf, "task_always_eager", False)
    # A broker that takes nothing: the row stays for the pickup. Was the request still running?
    monkeypatch.setattr(
        outbox, "_send", lambda message: sent.append((message.task_name, outbox._after_response.messages)) or False
    )
    response = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 201
    assert sent == [("compliance.coups_verify", None)]
    assert list(OutboxMessage.objects.values_list("task_name", "dispatched_at")) == [("compliance.coups_verify", None)]
