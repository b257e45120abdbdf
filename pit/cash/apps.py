from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CashConfig(AppConfig):
    name = "pit.cash"
    verbose_name = _("Patrons' cash")

    def ready(self) -> None:
        from pit.cash import receivers  # noqa: F401 (a seat's cash buy-in is a cash transaction)
