"""Warm a fresh web process before its first request (gunicorn's post_worker_init calls it).

Everything a first request would otherwise do lazily is done here: import every view (the URLconf)
and openpyxl for the reports, register the Celery tasks (the outbox names them), resolve DRF's
classes, and open the connections a coup POST uses: the database, the broker's producer and the
cache. A worker restarted by max_requests then answers its first coup as fast as its thousandth
(tests/deploy/test_deploy_files.py checks that a coup POST imports nothing new after this).
Nothing here writes; a service that is down is logged and left for the first request to reach.

Bounded, so that a fresh worker answers within seconds of its start (after every web worker was
killed the site gave no answer for 84 s): the broker and the cache are reached from threads given
WARMUP_REACH_SECONDS together, and one that does not answer in time is left to the first request;
`notify` (gunicorn's worker heartbeat) is called between the steps, so that gunicorn's timeout never
kills a worker that is still warming up on a busy machine.
"""

import logging
import threading
import time
from collections.abc import Callable

from celery import Celery

logger = logging.getLogger(__name__)

WARMUP_REACH_SECONDS = 3.0  # the broker and the cache, together, at most


def _reach_bounded(reaches: list[tuple[str, Callable[[], object]]], seconds: float) -> None:
    """Run each reach in a thread of its own; wait for them `seconds` at most, together."""

    def run(name: str, reach: Callable[[], object]) -> None:
        try:
            reach()
        except Exception as exc:  # a service down now is the first request's to report
            logger.warning("warm-up could not reach the %s: %s: %s", name, type(exc).__name__, exc)

    threads = [threading.Thread(target=run, args=pair, name=f"warm-{pair[0]}", daemon=True) for pair in reaches]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + seconds
    for thread, (name, _) in zip(threads, reaches, strict=True):
        thread.join(max(deadline - time.monotonic(), 0))
        if thread.is_alive():
            logger.warning(
                "warm-up gave up waiting for the %s after %.0f s; the first request reaches it", name, seconds
            )


def warm_process(notify: Callable[[], object] = lambda: None) -> None:
    from importlib import import_module

    from django.conf import settings
    from django.core.cache import cache
    from django.db import connections
    from django.urls import get_resolver
    from django.utils.module_loading import import_string
    from rest_framework.settings import api_settings

    get_resolver().url_patterns  # noqa: B018 - imports every urls.py and the views they name
    notify()
    import openpyxl  # noqa: F401

    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    app.loader.import_default_modules()  # every tasks module, as a worker does at start
    app.backend, app.events.Dispatcher  # noqa: B018 - what sending a task builds on first use
    notify()
    # What the session and message middleware import on first use.
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)
    import_string(settings.MESSAGE_STORAGE)
    for name in dir(api_settings.defaults):  # DRF imports its classes on first use
        if name.isupper():
            getattr(api_settings, name, None)
    notify()
    # The database in this thread (its connection is this thread's, the one requests use); the
    # broker's producer pool and the cache's client are shared by every thread, so reached beside.
    try:
        connections["default"].ensure_connection()
    except Exception as exc:  # a service down now is the first request's to report
        logger.warning("warm-up could not reach the database: %s: %s", type(exc).__name__, exc)
    notify()
    _reach_bounded(
        [("broker", lambda: _producer_connect(app)), ("cache", lambda: cache.get("pit:warmup"))], WARMUP_REACH_SECONDS
    )
    notify()


def _producer_connect(app: Celery) -> None:
    with app.producer_or_acquire() as producer:
        producer.connection.ensure_connection(max_retries=1)
