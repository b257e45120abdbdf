from django.apps import AppConfig


class CoreConfig(AppConfig):
    """What every part of the pit shares: health checks, money helpers, the engine's commands."""

    name = "pit.core"
    verbose_name = "Pit"

    def ready(self) -> None:
        # Load the Celery app so that tasks bind to it (see pit/__init__.py for why not there).
        import pit.celery  # noqa: F401
