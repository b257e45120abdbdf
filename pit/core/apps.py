from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    """What every part of the pit shares: health checks, money helpers, the engine's commands."""

    name = "pit.core"
    verbose_name = _("Pit")

    def ready(self) -> None:
        from celery import signals as celery_signals
        from django.core import signals

        # Load the Celery app so that tasks bind to it (see pit/__init__.py for why not there).
        import pit.celery  # noqa: F401
        from pit.core import outbox, workers  # their signal receivers are connected once the apps are ready

        # A worker beats per queue it consumes while it runs (pit/core/workers.py; /healthz reads it).
        celery_signals.worker_ready.connect(workers.worker_ready, dispatch_uid="pit_worker_ready", weak=False)
        celery_signals.worker_shutdown.connect(workers.worker_shutdown, dispatch_uid="pit_worker_shutdown", weak=False)

        # Tasks owed by a web request are sent once its answer has gone out (pit/core/outbox.py).
        signals.request_started.connect(outbox.request_started, dispatch_uid="outbox_request_started")
        signals.request_finished.connect(outbox.request_finished, dispatch_uid="outbox_request_finished")
        # ... and before Django's close_old_connections (connected when django.db was imported, so
        # first until moved behind): each send's mark then goes on the connection the request has just
        # committed on, instead of paying a second health check (CONN_HEALTH_CHECKS: a SELECT 1 round
        # trip) after close_old_connections has reset it, on every coup posted. The connection is then
        # checked, kept or closed as before; the next request's first query checks it as before.
        # (Django's test client already calls them in this order after its first request.)
        from django.db import close_old_connections

        signals.request_finished.disconnect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
