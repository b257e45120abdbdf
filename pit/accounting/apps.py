from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountingConfig(AppConfig):
    """Table accounting: chip inventories, fills and credits, the drop, the statutory win, the day close."""

    name = "pit.accounting"
    verbose_name = _("Table accounting")

    def ready(self) -> None:
        from pit.core.daylock import day_guard_register  # imported once the apps are ready (AppConfig.ready)

        from .locks import days_ensure_open  # the lock reads this app's models, loaded by now

        # Every write service of a fact, in whichever app, refuses a closed day through this check.
        day_guard_register(days_ensure_open)
