"""The outbox: background work a write owes is stored with the write, then sent to the broker.

Services call `outbox_enqueue` inside their transaction; beat sends what the broker lost.
Design: docs/design/outbox.md."""

import datetime as dt
import logging
import threading
import uuid
from typing import Any

import kombu.exceptions
import redis.exceptions
from celery import Task, current_app
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Field, Q
from django.utils import timezone

from pit.core.models import OutboxMessage
from pit.core.queues import URGENT, VERIFY_TASK, task_route
from pit.core.rows import statement_form

logger = logging.getLogger(__name__)

# A row this young may still be on its way through its own after-commit send.
SEND_GRACE = dt.timedelta(seconds=5)
PICKUP_BATCH = 1000
# What a send raises when the broker is away (a task run eagerly, in tests, may raise anything else).
BROKER_ERRORS = (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError)


class _BrokerState:
    """Per process: whether the last send failed, so an outage is logged once, not per request."""

    down = False


def _send(message: OutboxMessage) -> bool:
    """Send one task; False (logged once per outage) when the broker cannot take it."""
    try:
        current_app.tasks[message.task_name].apply_async(
            args=message.args, kwargs=message.kwargs, task_id=message.task_id, retry=False
        )
    except Exception as exc:  # whatever the broker or its client raise, the write stands
        if current_app.conf.task_always_eager and not isinstance(exc, BROKER_ERRORS):
            raise  # the task itself failed, in-process: let the test see it
        if not _BrokerState.down:
            _BrokerState.down = True
            logger.warning(
                "broker unreachable, %s %s kept in the outbox for the pickup (%s: %s)",
                message.task_name,
                message.task_id,
                type(exc).__name__,
                str(exc).splitlines()[0] if str(exc) else "",
            )
        else:
            logger.debug("broker still unreachable: %s %s kept in the outbox", message.task_name, message.task_id)
        return False
    if _BrokerState.down:
        _BrokerState.down = False
        logger.warning("broker reachable again; sending from the outbox")
    return True


def _column(name: str) -> str:
    """The database column of one of the outbox row's concrete fields."""
    field = OutboxMessage._meta.get_field(name)
    assert isinstance(field, Field) and field.column is not None, name
    return field.column


@statement_form
def _mark_sent_sql() -> str:
    """The UPDATE `filter(pk=...).update(dispatched_at=now, attempts=F("attempts") + 1)` sends."""
    meta, quote = OutboxMessage._meta, connection.ops.quote_name
    dispatched, attempts = (quote(_column(name)) for name in ("dispatched_at", "attempts"))
    return (
        f"UPDATE {quote(meta.db_table)} SET {dispatched} = %s, {attempts} = ({attempts} + 1) "  # noqa: S608
        f"WHERE {quote(_column('id'))} = %s"
    )


def _mark_sent(message: OutboxMessage) -> None:
    """The row's send recorded, by a statement written once per process (every coup posted owes one:
    no query compiled per send)."""
    now = OutboxMessage._meta.get_field("dispatched_at").get_db_prep_save(timezone.now(), connection)
    try:
        with transaction.mark_for_rollback_on_error(), connection.cursor() as cursor:  # as update() does
            cursor.execute(_mark_sent_sql(), [now, message.pk])
    except DatabaseError as exc:  # unmarked, the pickup sends it once more: harmless, never an error
        logger.warning("could not mark %s %s as sent: %s", message.task_name, message.task_id, exc)


def _send_after_commit(message: OutboxMessage) -> None:
    if _send(message):
        _mark_sent(message)


class _AfterResponse(threading.local):
    """The messages a web request committed, sent once its answer is written (None: not in a request)."""

    messages: list[OutboxMessage] | None = None


_after_response = _AfterResponse()


def _send_committed(message: OutboxMessage) -> None:
    # A task run eagerly (tests) stands in for a worker: it runs at commit, inside the request, as
    # before, not while the client already sends its next request on a shared test connection.
    if _after_response.messages is not None and not current_app.conf.task_always_eager:
        _after_response.messages.append(message)
    else:
        _send_after_commit(message)


def request_started(**kwargs: object) -> None:
    request_finished()  # a request whose answer was never closed: its messages go now
    _after_response.messages = []


def request_finished(**kwargs: object) -> None:
    """The answer is written (the WSGI server closes the response after sending it): send now."""
    messages, _after_response.messages = _after_response.messages, None
    for message in messages or ():
        _send_after_commit(message)


_discovery = threading.Lock()


def outbox_message(task: Task[Any, Any] | str, *args: Any, **kwargs: Any) -> OutboxMessage:
    """The row owing `task(*args, **kwargs)`, not saved yet: for a writer that inserts it with its
    own rows in one statement (the single coup POST), then calls `outbox_after_commit` with it saved."""
    name = task if isinstance(task, str) else task.name
    if name not in current_app.tasks:
        # Owed by name before anything imported the apps' tasks modules (a command, a web worker's
        # first write): autodiscover them, as a worker does when it starts. Under a lock: Celery runs
        # its discovery once, so a second thread arriving while the first imports would find it
        # done and the task not registered yet (seen: two floor threads' first shoe closes failed).
        with _discovery:
            if name not in current_app.tasks:
                current_app.loader.import_default_modules()
    current_app.tasks[name]  # an unknown task is a bug: fail the write now, not the send later
    return OutboxMessage(task_id=str(uuid.uuid4()), task_name=name, args=list(args), kwargs=kwargs)


def outbox_after_commit(message: OutboxMessage) -> None:
    """Send a message inserted in the current transaction once it commits (never raising)."""
    transaction.on_commit(lambda: _send_committed(message))


def outbox_enqueue(task: Task[Any, Any] | str, *args: Any, **kwargs: Any) -> OutboxMessage:
    """Owe `task(*args, **kwargs)` (a task or its registered name): stored in the current
    transaction, sent after it commits, never raising."""
    message = outbox_message(task, *args, **kwargs)
    message.save(force_insert=True)
    outbox_after_commit(message)
    return message


def outbox_message_done(*, task_id: str) -> None:
    """The task ran (or was parked): nothing is owed any more."""
    OutboxMessage.objects.filter(task_id=task_id).delete()


def outbox_owed_row(*, task_id: str) -> OutboxMessage | None:
    """The outbox row of a task now running, locked until its transaction ends (a task that took it
    over commits first: its arguments are then read as that task left them). None if it has none.
    A row not marked sent yet is not locked: its write's after-commit mark is on its way and must
    not wait (and no other task takes such a row over)."""
    row = OutboxMessage.objects.filter(task_id=task_id).first()
    if row is None or row.dispatched_at is None:
        return row
    return OutboxMessage.objects.select_for_update().filter(task_id=task_id).first()


def outbox_pending(task_name: str, *, exclude_task_id: str | None, limit: int = PICKUP_BATCH) -> list[OutboxMessage]:
    """Rows still owed for `task_name` that the broker already took and no worker is running (locked
    for the caller's transaction; rows locked by a running task are skipped). A row not marked sent
    yet is left alone: its write's after-commit send is still on its way (and would wait on a lock)."""
    return list(
        OutboxMessage.objects.select_for_update(skip_locked=True)
        .filter(task_name=task_name, dispatched_at__isnull=False)
        .exclude(task_id=exclude_task_id or "")
        .order_by("created_at", "id")[:limit]
    )


def outbox_take_over(rows: list[OutboxMessage], *, args: list[Any]) -> None:
    """The caller's task does these rows' work in its own transaction: their arguments become `args`
    (nothing left to do), so that their own copies, when a worker runs them, do nothing; each row is
    deleted as usual when its task has run."""
    OutboxMessage.objects.filter(pk__in=[row.pk for row in rows]).update(args=args)


def _redispatch_after(message: OutboxMessage) -> dt.timedelta:
    queue, priority = task_route(message.task_name, message.args, message.kwargs)
    if queue != URGENT:
        return dt.timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    # A reconciliation is served first, so one not done after the grace was lost. The checks of coups
    # may be queued behind a busy stream: give them longer, or re-sending would only add to the queue.
    base = settings.PIT_OUTBOX_REDISPATCH_SECONDS * (1 if priority == 0 else 4)
    return dt.timedelta(seconds=min(base * 2 ** max(message.attempts - 1, 0), 3600))


def _merge_unsent_checks(*, before: dt.datetime) -> None:
    """Checks of coups the broker never got (an outage) are sent as checks of up to
    PIT_URGENT_VERIFY_MAX_COUPS coups each: one task per 50 coups catches up far faster than one per coup."""
    rows = list(
        OutboxMessage.objects.filter(task_name=VERIFY_TASK, dispatched_at__isnull=True, created_at__lt=before).order_by(
            "created_at", "id"
        )[:PICKUP_BATCH]
    )
    chunks: list[list[OutboxMessage]] = [[]]
    for row in rows:
        if len(row.args) != 1 or row.kwargs:
            continue  # not the shape `coups_verify(coup_ids)` the services send: sent as it is
        size = sum(len(other.args[0]) for other in chunks[-1])
        if chunks[-1] and size + len(row.args[0]) > settings.PIT_URGENT_VERIFY_MAX_COUPS:
            chunks.append([])
        chunks[-1].append(row)
    with transaction.atomic():
        for chunk in chunks:
            if len(chunk) < 2:
                continue
            OutboxMessage.objects.filter(pk__in=[row.pk for row in chunk]).delete()
            merged = OutboxMessage.objects.create(
                task_id=str(uuid.uuid4()),
                task_name=VERIFY_TASK,
                args=[[coup_id for row in chunk for coup_id in row.args[0]]],
            )
            OutboxMessage.objects.filter(pk=merged.pk).update(created_at=chunk[0].created_at)


def outbox_dispatch_due(*, now: dt.datetime | None = None) -> int:
    """Send what is owed and not on its way; returns how many were sent. Stops at the first send the
    broker refuses (the rest waits for the next run)."""
    now = now or timezone.now()
    sent = 0
    _merge_unsent_checks(before=now - SEND_GRACE)
    first_due = now - dt.timedelta(seconds=settings.PIT_OUTBOX_REDISPATCH_SECONDS)
    candidates = OutboxMessage.objects.filter(
        Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=first_due), created_at__lt=now - SEND_GRACE
    ).order_by("created_at", "id")
    for message in candidates[:PICKUP_BATCH]:
        if message.dispatched_at is not None and now - message.dispatched_at < _redispatch_after(message):
            continue
        if not _send(message):
            break
        _mark_sent(message)
        sent += 1
    if sent:
        logger.info("outbox: sent %s task(s)", sent)
    return sent
