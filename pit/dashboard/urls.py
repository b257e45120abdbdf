"""URLs of the pit boss's dashboard, under /admin/pit/dashboard/ (behind the admin's login)."""

from django.contrib import admin
from django.urls import path

from pit.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", admin.site.admin_view(views.dashboard), name="index"),
    # Not behind admin_view: a signed-out poll gets a 401 in JSON, not the login page's HTML.
    path("data/", views.dashboard_data, name="data"),
]
