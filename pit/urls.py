"""The site's URLs: the admin, the health check, and the API under /api/v1/."""
from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from pit.core.views import healthz

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False)),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
]
