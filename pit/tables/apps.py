from django.apps import AppConfig


class TablesConfig(AppConfig):
    """The baccarat tables of the pit: game, seats, limits, status and the paytable in force."""

    name = "pit.tables"
    verbose_name = "Tables"
