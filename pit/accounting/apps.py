from django.apps import AppConfig


class AccountingConfig(AppConfig):
    """Table accounting: chip inventories, fills and credits, the drop, the statutory win, the day close."""

    name = "pit.accounting"
    verbose_name = "Table accounting"

    def ready(self) -> None:
        # Imported once the apps are ready: the lock reads this app's models.
        from pit.core.daylock import day_guard_register

        from .locks import days_ensure_open

        # Every write service of a fact, in whichever app, refuses a closed day through this check.
        day_guard_register(days_ensure_open)
