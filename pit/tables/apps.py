from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TablesConfig(AppConfig):
    """The baccarat tables of the pit: game, seats, limits, status and the paytable in force."""

    name = "pit.tables"
    verbose_name = _("Tables")
