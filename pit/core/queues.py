"""Which Celery queue a task goes to: `urgent` for what the floor waits on, `bulk` for the rest.

A reconciliation or the check of a coup just dealt must never wait behind a nightly sweep, a large
batch verification or a report export, so each queue has workers of its own (docs/operations/queues.md).
CELERY_TASK_ROUTES (settings) lists this router first, then the fixed routes; any task not named
there goes to CELERY_TASK_DEFAULT_QUEUE (bulk).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings

URGENT = "urgent"
BULK = "bulk"
# The tasks that apps below the task's own owe through the outbox, named once for both sides.
VERIFY_TASK = "compliance.coups_verify"
RECONCILE_TASK = "ledger.shoe_reconcile"
REFRESH_TASK = "rollups.shoe_refresh"
WIN_RECHECK_TASK = "accounting.table_day_recheck"
RATINGS_TASK = "ratings.table_day_refresh"
METERS_TASK = "progressives.shoe_meters_read"


# Within the urgent queue a reconciliation goes before the checks of coups (Redis: a lower number is
# served first; no priority is 0). Under a stream that outruns the workers the checks wait, the
# reconciliation the pit boss waits for does not. A check of several coups at once is a floor (or
# the outbox) catching up after an outage: those coups are older than the live stream's, so their
# check goes before the single checks.
CATCH_UP_CHECK_PRIORITY = 3
COUP_CHECK_PRIORITY = 6


def route_coups_verify(
    name: str,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    options: Mapping[str, Any],
    task: object = None,
    **kw: Any,
) -> dict[str, Any] | None:
    """The check of a few coups is urgent (after reconciliations); a batch larger than
    PIT_URGENT_VERIFY_MAX_COUPS is bulk."""
    if name != VERIFY_TASK:
        return None
    coup_ids = (args[0] if args else None) or kwargs.get("coup_ids") or ()
    if len(coup_ids) > settings.PIT_URGENT_VERIFY_MAX_COUPS:
        return {"queue": BULK}
    return {"queue": URGENT, "priority": COUP_CHECK_PRIORITY if len(coup_ids) == 1 else CATCH_UP_CHECK_PRIORITY}


def task_route(name: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None) -> tuple[str, int]:
    """(queue, priority) CELERY_TASK_ROUTES gives this task; priority 0 is served first."""
    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    route = app.amqp.router.route({}, name, tuple(args), kwargs or {})
    queue = route.get("queue")
    return getattr(queue, "name", queue) or settings.CELERY_TASK_DEFAULT_QUEUE, route.get("priority") or 0


def task_queue(name: str, args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None) -> str:
    """The queue CELERY_TASK_ROUTES sends this task to."""
    return task_route(name, args, kwargs)[0]
