from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every part of the pit shares: health checks, money helpers, the engine's commands."""

    name = "pit.core"
    verbose_name = "Pit"

    def ready(self) -> None:
        from django.core import signals

        # Load the Celery app so that tasks bind to it (see pit/__init__.py for why not there).
        import pit.celery  # noqa: F401
        from pit.core import outbox

        # Tasks owed by a web request are sent once its answer has gone out (pit/core/outbox.py).
        signals.request_started.connect(outbox.request_started, dispatch_uid="outbox_request_started")
        signals.request_finished.connect(outbox.request_finished, dispatch_uid="outbox_request_finished")
