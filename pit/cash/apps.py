from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CashConfig(AppConfig):
    name = "pit.cash"
    verbose_name = _("Patrons' cash")

    def ready(self) -> None:
        # AppConfig.ready: the receiver that makes a seat's cash buy-in a cash transaction connects at start-up
        from pit.cash import receivers  # noqa: F401
