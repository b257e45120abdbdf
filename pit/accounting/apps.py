from django.apps import AppConfig


class AccountingConfig(AppConfig):
    """Table accounting: chip inventories, fills and credits, the drop, the statutory win, the day close."""

    name = "pit.accounting"
    verbose_name = "Table accounting"
