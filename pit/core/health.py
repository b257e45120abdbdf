"""Health of what the floor depends on, each against a documented threshold (docs/operations/health.md):

- `database`: it answers `SELECT 1`;
- `broker`: it takes a connection (one attempt, 2 s);
- `queue:<name>`, for each queue of pit.core.queues: the workers consuming it with a heartbeat
  fresher than PIT_HEALTH_WORKER_STALE_SECONDS (pit.core.workers); none is a failure;
- `outbox`: the tasks writes still owe, and the oldest never sent (the broker never got it): more
  than PIT_HEALTH_OUTBOX_MAX_SIZE owed, or one unsent for over PIT_HEALTH_OUTBOX_MAX_UNSENT_SECONDS,
  is a failure;
- `checks`: the lag of the coup checks and of the reconciliations, the age of the oldest still
  owed; over PIT_HEALTH_CHECKS_MAX_LAG_SECONDS is a failure.

With CELERY_TASK_ALWAYS_EAGER tasks run in the process that owes them: no queue needs a consumer.
PIT_HEALTH_REQUIRE_WORKERS=False checks the database and the broker only (a web measured alone, as
the benchmarks do: what needs workers running is not looked at, and /healthz costs what it did).
"""

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.models import Count, Max, Min, Q
from django.utils import timezone

from pit.core.models import OutboxMessage, WorkerHeartbeat
from pit.core.queues import BULK, RECONCILE_TASK, URGENT, VERIFY_TASK

QUEUES = (URGENT, BULK)


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    figures: dict[str, Any] = field(default_factory=dict)


def check_database() -> CheckResult:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure to reach the database is what we report
        return CheckResult("database", False, f"{type(exc).__name__}: {exc}")
    return CheckResult("database", True, connections["default"].vendor)


def check_broker() -> CheckResult:
    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    try:
        with app.connection_for_write() as connection:
            connection.ensure_connection(max_retries=0, timeout=2)
            transport = connection.transport_cls
    except Exception as exc:
        return CheckResult("broker", False, f"{type(exc).__name__}: {exc}")
    return CheckResult("broker", True, str(transport))


def _age(now: dt.datetime, then: dt.datetime | None) -> int | None:
    return None if then is None else max(int((now - then).total_seconds()), 0)


def check_consumers(now: dt.datetime) -> list[CheckResult]:
    """One result per queue: its live consumers."""
    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    if app.conf.task_always_eager:
        return [
            CheckResult(f"queue:{queue}", True, "tasks run eagerly, in the process that owes them") for queue in QUEUES
        ]
    fresh = now - dt.timedelta(seconds=settings.PIT_HEALTH_WORKER_STALE_SECONDS)
    live = dict(
        WorkerHeartbeat.objects.filter(beat_at__gte=fresh)
        .values_list("queue")
        .annotate(workers=Count("worker"))
        .values_list("queue", "workers")
    )
    last = dict(WorkerHeartbeat.objects.values_list("queue").annotate(last=Max("beat_at")).values_list("queue", "last"))
    results = []
    for queue in QUEUES:
        consumers = live.get(queue, 0)
        figures = {"consumers": consumers}
        if consumers:
            results.append(CheckResult(f"queue:{queue}", True, f"{consumers} live consumer(s)", figures))
            continue
        seen = _age(now, last.get(queue))
        detail = f"no live consumer (no heartbeat within {settings.PIT_HEALTH_WORKER_STALE_SECONDS} s" + (
            f"; the last one {seen} s ago)" if seen is not None else "; none ever)"
        )
        results.append(CheckResult(f"queue:{queue}", False, detail, figures))
    return results


def check_outbox_and_lag(now: dt.datetime) -> list[CheckResult]:
    """The outbox (`outbox`) and the lag of the checks and reconciliations it owes (`checks`)."""
    found = OutboxMessage.objects.aggregate(
        size=Count("id"),
        unsent=Count("id", filter=Q(dispatched_at__isnull=True)),
        oldest_unsent=Min("created_at", filter=Q(dispatched_at__isnull=True)),
        oldest_check=Min("created_at", filter=Q(task_name=VERIFY_TASK)),
        oldest_reconciliation=Min("created_at", filter=Q(task_name=RECONCILE_TASK)),
    )
    max_size, max_unsent = settings.PIT_HEALTH_OUTBOX_MAX_SIZE, settings.PIT_HEALTH_OUTBOX_MAX_UNSENT_SECONDS
    unsent_age = _age(now, found["oldest_unsent"])
    outbox = {"size": found["size"], "unsent": found["unsent"], "oldest_unsent_seconds": unsent_age}
    wrong = []
    if found["size"] > max_size:
        wrong.append(f"{found['size']} tasks owed (threshold {max_size})")
    if unsent_age is not None and unsent_age > max_unsent:
        wrong.append(f"the oldest unsent for {unsent_age} s (threshold {max_unsent} s)")
    outbox_result = CheckResult(
        "outbox", not wrong, "; ".join(wrong) or f"{found['size']} owed, {found['unsent']} unsent", outbox
    )
    max_lag = settings.PIT_HEALTH_CHECKS_MAX_LAG_SECONDS
    lags = {
        "coup_checks_lag_seconds": _age(now, found["oldest_check"]) or 0,
        "reconciliations_lag_seconds": _age(now, found["oldest_reconciliation"]) or 0,
    }
    behind = [
        f"{what} {lags[key]} s behind (threshold {max_lag} s)"
        for what, key in (
            ("coup checks", "coup_checks_lag_seconds"),
            ("reconciliations", "reconciliations_lag_seconds"),
        )
        if lags[key] > max_lag
    ]
    checks_result = CheckResult("checks", not behind, "; ".join(behind) or "up to date", lags)
    return [outbox_result, checks_result]


def system_health() -> list[CheckResult]:
    database = check_database()
    results = [database, check_broker()]
    now = timezone.now()
    if not database.ok:
        unknown = "unknown: the database did not answer"
        return [*results, *(CheckResult(f"queue:{queue}", False, unknown) for queue in QUEUES)] + [
            CheckResult("outbox", False, unknown),
            CheckResult("checks", False, unknown),
        ]
    if not settings.PIT_HEALTH_REQUIRE_WORKERS:
        off = "not checked (PIT_HEALTH_REQUIRE_WORKERS is off)"
        return [*results, *(CheckResult(f"queue:{queue}", True, off) for queue in QUEUES)] + [
            CheckResult("outbox", True, off),
            CheckResult("checks", True, off),
        ]
    try:
        return [*results, *check_consumers(now), *check_outbox_and_lag(now)]
    except DatabaseError as exc:
        failed = f"unknown: {type(exc).__name__}: {exc}"
        return [*results, CheckResult("queues", False, failed)]
