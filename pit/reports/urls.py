"""URLs of pit.reports, under /admin/pit/reports/."""

from django.urls import path

from . import views

app_name = "reports"

urlpatterns = [
    path("", views.reports_index, name="index"),
    path("export/", views.report_export, name="export"),
    path("exports/<int:pk>/", views.export_status, name="export-status"),
    path("exports/<int:pk>/download/", views.export_download, name="export-download"),
]
