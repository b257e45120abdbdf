from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DashboardConfig(AppConfig):
    """The pit boss's dashboard: the pit at a glance."""

    name = "pit.dashboard"
    verbose_name = _("Dashboard")
