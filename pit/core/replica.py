"""Reports and exports read from a streaming replica when DATABASE_REPLICA_URL names one.

Everything else (every write, and every read a write depends on) stays on the primary: the router
sends a read to the replica only inside `replica_reads()`, which the report renderers enter for
the rows of a report and nothing else. A replica lags its primary by a moment; a report of closed
gaming days does not mind, a service deciding what to write would.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.conf import settings
from django.db.models import Model

REPLICA = "replica"
_reading_replica = contextvars.ContextVar("pit_reading_replica", default=False)
T = TypeVar("T")


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


@contextmanager
def replica_reads() -> Iterator[None]:
    """Reads inside go to the replica, if there is one."""
    token = _reading_replica.set(True)
    try:
        yield
    finally:
        _reading_replica.reset(token)


def read_from_replica(iterable: Iterable[T]) -> Iterator[T]:
    """Iterate `iterable` with its reads on the replica, one item at a time: between items (while the
    caller writes a CSV line or updates an export's progress) reads go where they always go."""
    with replica_reads():
        iterator = iter(iterable)
    while True:
        token = _reading_replica.set(True)  # replica_reads() by hand: once per item, cheaper
        try:
            item = next(iterator)
        except StopIteration:
            return
        finally:
            _reading_replica.reset(token)
        yield item


class ReplicaRouter:
    """DATABASE_ROUTERS entry: replica reads inside `replica_reads()`, everything else on default."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str | None:
        if _reading_replica.get() and replica_configured():
            return REPLICA
        return None

    def db_for_write(self, model: type[Model], **hints: Any) -> str:
        return "default"

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool:
        return True  # the replica is a copy of default: the same rows

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return db != REPLICA  # a replica is read-only; it gets its tables from the primary's WAL
