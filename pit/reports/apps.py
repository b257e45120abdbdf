from django.apps import AppConfig


class ReportsConfig(AppConfig):
    """Commission reports, table results and violation reports, as CSV, XLSX and JSON. Reads only."""

    name = "pit.reports"
    verbose_name = "Reports"
