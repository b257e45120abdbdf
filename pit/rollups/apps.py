from django.apps import AppConfig


class RollupsConfig(AppConfig):
    """Daily rollups: per table and gaming day, the sums the year-long reports read instead of the detail."""

    name = "pit.rollups"
    verbose_name = "Daily rollups"
