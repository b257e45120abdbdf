"""Worker heartbeats: each Celery worker says, per queue it consumes, that it is alive.

When a worker is ready it writes a WorkerHeartbeat row per queue it consumes (`-Q urgent`), then
writes them again every PIT_WORKER_HEARTBEAT_SECONDS from a thread of its main process, and deletes
them when it stops. /healthz (pit.core.health) counts the rows of each queue fresher than
PIT_HEALTH_WORKER_STALE_SECONDS: a worker killed, hung or cut off from the database stops beating,
and its queue is reported with no consumer. The thread beats whatever the worker is running (a
sweep of an hour does not make its worker look dead); a database that is away is logged once per
outage and tried again at the next beat.

CoreConfig.ready connects `worker_ready` and `worker_shutdown` to this module.
"""

import datetime as dt
import logging
import os
import threading
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils import timezone

from pit.core.models import WorkerHeartbeat

logger = logging.getLogger(__name__)


def heartbeat_write(*, worker: str, queues: list[str], pid: int, now: dt.datetime | None = None) -> None:
    """This worker consumes these queues, as of now."""
    now = now or timezone.now()
    WorkerHeartbeat.objects.bulk_create(
        [WorkerHeartbeat(worker=worker, queue=queue, pid=pid, beat_at=now) for queue in queues],
        update_conflicts=True,
        unique_fields=["worker", "queue"],
        update_fields=["pid", "beat_at"],
    )


def heartbeat_remove(*, worker: str) -> None:
    """This worker stopped: it consumes nothing any more."""
    WorkerHeartbeat.objects.filter(worker=worker).delete()


def heartbeats_prune(*, older_than: dt.timedelta = dt.timedelta(days=1)) -> int:
    """Rows of workers gone for long (a host renamed, a worker never stopped cleanly)."""
    deleted, _ = WorkerHeartbeat.objects.filter(beat_at__lt=timezone.now() - older_than).delete()
    return deleted


class Heartbeat(threading.Thread):
    """Beats for one worker until stopped (a daemon: it never holds a worker's exit)."""

    def __init__(self, worker: str, queues: list[str]) -> None:
        super().__init__(name=f"pit-heartbeat-{worker}", daemon=True)
        self.worker, self.queues, self.pid = worker, sorted(queues), os.getpid()
        self.stopped = threading.Event()
        self.failing = False

    def beat(self) -> None:
        try:
            heartbeat_write(worker=self.worker, queues=self.queues, pid=self.pid)
            heartbeats_prune()
        except DatabaseError as exc:
            if not self.failing:
                logger.warning("heartbeat of %s not written (%s: %s)", self.worker, type(exc).__name__, exc)
            self.failing = True
        else:
            if self.failing:
                logger.warning("heartbeat of %s written again", self.worker)
            self.failing = False
        finally:
            connection.close()  # this thread's own connection: none is held between beats

    def run(self) -> None:
        while not self.stopped.wait(settings.PIT_WORKER_HEARTBEAT_SECONDS):
            self.beat()

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)
        try:
            heartbeat_remove(worker=self.worker)
        except DatabaseError:
            logger.warning("could not remove the heartbeat of %s; it goes stale", self.worker)
        finally:
            connection.close()


_running: dict[str, Heartbeat] = {}


def worker_ready(sender: Any = None, **kwargs: Any) -> None:
    """`celery.signals.worker_ready` (sender: the worker's consumer): start beating for its queues."""
    worker = str(getattr(sender, "hostname", None) or f"worker@{os.getpid()}")
    queues = list(sender.app.amqp.queues.consume_from) if sender is not None else []
    if not queues or worker in _running:
        return
    heartbeat = _running[worker] = Heartbeat(worker, queues)
    heartbeat.beat()  # before the thread starts: /healthz sees the worker as soon as it is ready
    heartbeat.start()


def worker_shutdown(sender: Any = None, **kwargs: Any) -> None:
    """`celery.signals.worker_shutdown`: stop beating and remove the rows."""
    for worker in list(_running):
        _running.pop(worker).stop()
