"""URLs of the JSON reports, included at /api/v1/reports/ by pit/api/urls.py."""

from django.urls import path

from pit.api.report_views import report_view
from pit.reports.catalog import REPORTS

app_name = "reports"

urlpatterns = [path(f"{slug}/", report_view(slug), name=slug) for slug in REPORTS]
