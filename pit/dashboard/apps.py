from django.apps import AppConfig


class DashboardConfig(AppConfig):
    """The pit boss's dashboard: the pit at a glance."""

    name = "pit.dashboard"
    verbose_name = "Dashboard"
