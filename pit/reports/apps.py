from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    """Commission reports, table results and violation reports, as CSV, XLSX and JSON. Reads only."""

    name = "pit.reports"
    verbose_name = _("Reports")
