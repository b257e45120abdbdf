from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _ignore_nothing(using: str, **kwargs) -> None:
    # Function-local: the app registry is ready only once ready() runs.
    from pit.records.guard import ignore_nothing_install

    ignore_nothing_install(connections[using])


class RecordsConfig(AppConfig):
    """Tamper evidence: every fact row hash-chained (per shoe, or in its model's stream), and the
    verification of the chains."""

    name = "pit.records"
    verbose_name = _("Records and integrity")

    def ready(self) -> None:
        # After every migrate, as whoever migrates (the owner): pgtrigger's install of a trigger
        # writes back its own function, which honours pgtrigger.ignore (pit.records.guard).
        post_migrate.connect(_ignore_nothing, sender=self, dispatch_uid="pit.records.ignore_nothing")
