"""The policy every Celery task of the pit follows, in one base class (`pit_task`).

- Retry transient errors only (the database or the broker went away for a moment), with
  exponential backoff and jitter, up to `max_retries`. A ValidationError, a Conflict or any bug
  is not transient: retrying it would fail the same way, so it fails at once.
- Late acks and reject-on-worker-lost (settings) give a message back when the worker dies under
  it; Redis hands it out again after the visibility timeout. Each redelivery is counted per task
  id in a `FailedTask` row; beyond PIT_TASK_MAX_DELIVERIES the task is parked (acknowledged, not
  run) so that a task that kills its worker cannot loop forever.
- A task that fails for good is parked too, with its error, for staff to see in the admin.

Tasks take ids, re-read their rows, call one service and are safe to run twice.
"""

import logging
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

import kombu.exceptions
import redis.exceptions
from billiard.einfo import ExceptionInfo
from celery import Task, shared_task
from celery.contrib.django.task import DjangoTask
from celery.exceptions import Ignore
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from pit.core.models import FailedTask, FailedTaskState, OutboxMessage
from pit.core.outbox import outbox_dispatch_due, outbox_enqueue, outbox_message_done

P = ParamSpec("P")
R = TypeVar("R")

logger = logging.getLogger(__name__)

# Errors that say "try again later", never "this is wrong".
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)


def _max_deliveries() -> int:
    return int(settings.PIT_TASK_MAX_DELIVERIES)


def task_delivery_count(
    *, task_id: str, task_name: str, args: Sequence[Any] | None, kwargs: Mapping[str, Any] | None
) -> FailedTask:
    """Count one more delivery of a message that came back, and park the task when it has been
    delivered more than PIT_TASK_MAX_DELIVERIES times. The first delivery was never counted (it is
    the normal case, and writes nothing), so a first redelivery is attempt 2."""
    now = timezone.now()
    with transaction.atomic():
        row, created = FailedTask.objects.select_for_update().get_or_create(
            task_id=task_id,
            defaults={
                "task_name": task_name,
                "args": list(args or ()),
                "kwargs": dict(kwargs or {}),
                "state": FailedTaskState.REDELIVERED,
                "attempts": 2,
                "last_seen_at": now,
            },
        )
        if not created:
            FailedTask.objects.filter(pk=row.pk).update(attempts=F("attempts") + 1, last_seen_at=now)
            row.refresh_from_db()
        if row.state == FailedTaskState.PARKED:
            return row
        if row.attempts > _max_deliveries():
            row.state = FailedTaskState.PARKED
            row.error = (
                f"Delivered {row.attempts} times (limit {_max_deliveries()}): the worker was lost each time "
                "(killed, out of memory, or past the time limit). Parked, not run again."
            )
        else:
            row.state = FailedTaskState.REDELIVERED
        row.save(update_fields=["state", "error"])
    return row


def task_park(
    *,
    task_id: str,
    task_name: str,
    args: Sequence[Any] | None,
    kwargs: Mapping[str, Any] | None,
    error: str,
    attempts: int,
) -> FailedTask:
    """Record a task that failed for good, with its error; it is not retried again."""
    now = timezone.now()
    with transaction.atomic():
        row, created = FailedTask.objects.select_for_update().get_or_create(
            task_id=task_id,
            defaults={
                "task_name": task_name,
                "args": list(args or ()),
                "kwargs": dict(kwargs or {}),
                "state": FailedTaskState.PARKED,
                "attempts": attempts,
                "error": error,
                "last_seen_at": now,
            },
        )
        if not created:
            row.state = FailedTaskState.PARKED
            row.attempts = max(row.attempts, attempts)
            row.error = error
            row.last_seen_at = now
            row.save(update_fields=["state", "attempts", "error", "last_seen_at"])
    return row


@transaction.atomic
def failed_task_requeue(*, failed_task: FailedTask) -> str:
    """Staff send a parked task again (after fixing its cause): a new task id, the same arguments,
    through the outbox (so a broker outage delays it, never loses it or fails the action)."""
    row = FailedTask.objects.select_for_update().get(pk=failed_task.pk)
    message = outbox_enqueue(row.task_name, *row.args, **row.kwargs)
    row.state = FailedTaskState.REQUEUED
    row.last_seen_at = timezone.now()
    row.save(update_fields=["state", "last_seen_at"])
    return message.task_id


def _resent_from_outbox(task_id: str) -> bool:
    """A copy the outbox pickup sent again (the first did not complete): counted like a redelivery,
    so that a task that kills its worker is parked, not sent again forever. Once one copy has run,
    its row is gone and later copies run as new (safe to run twice)."""
    return OutboxMessage.objects.filter(task_id=task_id, attempts__gt=1).exists()


class PitTask(DjangoTask[Any, Any]):
    """The shared policy (see the module docstring); every task of the pit uses it via `pit_task`."""

    autoretry_for = TRANSIENT_ERRORS
    retry_backoff = 2  # seconds before the first retry, doubled each time
    retry_backoff_max = 300
    retry_jitter = True
    max_retries = 5
    acks_late = True
    reject_on_worker_lost = True

    def before_start(self, task_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        request = self.request
        if request.is_eager:
            return
        try:
            if not (request.delivery_info or {}).get("redelivered") and not _resent_from_outbox(task_id):
                return
            # Celery's request context takes any attribute; this one lasts as long as the delivery.
            request.pit_counted = True  # type: ignore[attr-defined]
            row = task_delivery_count(task_id=task_id, task_name=self.name, args=args, kwargs=kwargs)
        except DatabaseError:
            # Counting is a safeguard, not the work: if the database is away the task itself will
            # meet the same error and retry with backoff.
            logger.warning("could not count the redelivery of %s %s", self.name, task_id, exc_info=True)
            return
        if row.state == FailedTaskState.PARKED:
            logger.error("parked %s %s after %s deliveries", self.name, task_id, row.attempts)
            self._outbox_done(task_id)
            raise Ignore()

    def _outbox_done(self, task_id: str) -> None:
        try:
            outbox_message_done(task_id=task_id)
        except DatabaseError:  # left in the outbox, the task is sent once more: harmless
            logger.warning("could not clear %s %s from the outbox", self.name, task_id, exc_info=True)

    def on_success(self, retval: Any, task_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self._outbox_done(task_id)
        if getattr(self.request, "pit_counted", False):
            try:
                FailedTask.objects.filter(task_id=task_id, state=FailedTaskState.REDELIVERED).update(
                    state=FailedTaskState.SUCCEEDED, last_seen_at=timezone.now()
                )
            except DatabaseError:
                logger.warning("could not mark %s %s as succeeded", self.name, task_id, exc_info=True)

    def on_failure(
        self,
        exc: Exception,
        task_id: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        einfo: ExceptionInfo | None,
    ) -> None:
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        if einfo is not None:
            error = f"{error}\n\n{einfo.traceback}"
        try:
            task_park(
                task_id=task_id,
                task_name=self.name,
                args=args,
                kwargs=kwargs,
                error=error,
                attempts=(self.request.retries or 0) + 1,
            )
        except DatabaseError:
            logger.exception("could not park the failed task %s %s", self.name, task_id)
        else:
            self._outbox_done(task_id)  # parked: staff own it now (admin: Failed tasks)


def pit_task(name: str, **options: Any) -> Callable[[Callable[P, R]], Task[P, R]]:
    """`@shared_task` with the pit's policy: `@pit_task("ledger.shoe_reconcile")`."""
    decorator: Callable[[Callable[P, R]], Task[P, R]] = shared_task(name=name, base=PitTask, **options)
    return decorator


@pit_task("core.outbox_dispatch")
def outbox_dispatch() -> int:
    """Beat, every 20 s: send what writes still owe (see pit.core.outbox); safe to run twice."""
    return outbox_dispatch_due()
