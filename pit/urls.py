"""The site's URLs: the admin, the health check, and the API under /api/v1/."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from pit.accounts.two_factor import ENROLL_URL_NAME, enroll_view
from pit.core.views import healthz

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False)),
    path("healthz", healthz, name="healthz"),
    path("admin/pit/dashboard/", include("pit.dashboard.urls")),
    path("admin/pit/reports/", include("pit.reports.urls")),
    path("admin/two-factor/", admin.site.admin_view(enroll_view), name=ENROLL_URL_NAME),
    path("admin/", admin.site.urls),
    path("api/v1/", include("pit.api.urls")),
]
