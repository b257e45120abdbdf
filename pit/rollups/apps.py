from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RollupsConfig(AppConfig):
    """Daily rollups: per table and gaming day, the sums the year-long reports read instead of the detail."""

    name = "pit.rollups"
    verbose_name = _("Daily rollups")
