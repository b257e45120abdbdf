"""URLs of the pit boss's dashboard, under /admin/pit/dashboard/ (behind the admin's login)."""

from django.contrib import admin
from django.urls import path
from django.views.i18n import JavaScriptCatalog

from pit.dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", admin.site.admin_view(views.dashboard), name="index"),
    # Not behind admin_view: a signed-out poll gets a 401 in JSON, not the login page's HTML.
    path("data/", views.dashboard_data, name="data"),
    # The words of dashboard.js in the reader's language (the djangojs catalog): no data, no login needed.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="jsi18n"),
]
