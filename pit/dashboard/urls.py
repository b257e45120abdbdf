"""URLs of the pit boss's dashboard, under /admin/pit/dashboard/ (behind the admin's login)."""

from django.contrib import admin
from django.urls import path

from pit.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", admin.site.admin_view(views.dashboard), name="index"),
    path("data/", admin.site.admin_view(views.dashboard_data), name="data"),
]
