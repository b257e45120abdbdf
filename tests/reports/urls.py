"""The site's URLs plus the JSON reports at /api/v1/reports/, as pit.api.urls includes them."""

from django.urls import include, path

from pit.urls import urlpatterns as site_urlpatterns

urlpatterns = [
    path("api/v1/reports/", include(("pit.api.report_urls", "reports"), namespace="api-reports")),
    *site_urlpatterns,
]
