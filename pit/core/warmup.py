"""Warm a fresh web process before its first request (gunicorn's post_worker_init calls it).

Everything a first request would otherwise do lazily is done here: import every view (the URLconf)
and openpyxl for the reports, register the Celery tasks (the outbox names them), resolve DRF's
classes, and open the connections a coup POST uses: the database, the broker's producer and the
cache. A worker restarted by max_requests then answers its first coup as fast as its thousandth
(tests/deploy/test_deploy_files.py checks that a coup POST imports nothing new after this).
Nothing here writes; a service that is down is logged and left for the first request to reach.
"""

import logging

from celery import Celery

logger = logging.getLogger(__name__)


def warm_process() -> None:
    from importlib import import_module

    from django.conf import settings
    from django.core.cache import cache
    from django.db import connections
    from django.urls import get_resolver
    from django.utils.module_loading import import_string
    from rest_framework.settings import api_settings

    get_resolver().url_patterns  # noqa: B018 - imports every urls.py and the views they name
    import openpyxl  # noqa: F401

    from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

    app.loader.import_default_modules()  # every tasks module, as a worker does at start
    app.backend, app.events.Dispatcher  # noqa: B018 - what sending a task builds on first use
    # What the session and message middleware import on first use.
    import_module(settings.SESSION_ENGINE)
    import_string(settings.SESSION_SERIALIZER)
    import_string(settings.MESSAGE_STORAGE)
    for name in dir(api_settings.defaults):  # DRF imports its classes on first use
        if name.isupper():
            getattr(api_settings, name, None)
    for name, reach in (
        ("database", lambda: connections["default"].ensure_connection()),
        ("broker", lambda: _producer_connect(app)),
        ("cache", lambda: cache.get("pit:warmup")),
    ):
        try:
            reach()
        except Exception as exc:  # a service down now is the first request's to report
            logger.warning("warm-up could not reach the %s: %s: %s", name, type(exc).__name__, exc)


def _producer_connect(app: Celery) -> None:
    with app.producer_or_acquire() as producer:
        producer.connection.ensure_connection(max_retries=1)
