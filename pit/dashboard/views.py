"""The pit boss's dashboard: a page in the admin's look, and the JSON it refreshes itself from."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse

from pit.dashboard.selectors import pit_overview
from pit.protection.selectors import alarm_banner

PERMISSION = "tables.view_table"
REFRESH_SECONDS = 5


def _check(request) -> None:
    if not request.user.has_perm(PERMISSION):
        raise PermissionDenied("The dashboard is for pit bosses and auditors.")


def _violations_url() -> str:
    try:
        return reverse("admin:compliance_ruleviolation_changelist")
    except NoReverseMatch:
        return "/admin/compliance/ruleviolation/"


def dashboard(request):
    _check(request)
    context = {
        **admin.site.each_context(request),
        "title": "The pit at a glance",
        "overview": pit_overview(),
        "data_url": reverse("dashboard:data"),
        "violations_url": _violations_url(),
        "refresh_seconds": REFRESH_SECONDS,
        "alarms": alarm_banner(),
    }
    return TemplateResponse(request, "dashboard/index.html", context)


def dashboard_data(request):
    _check(request)
    return JsonResponse(pit_overview(), headers={"Cache-Control": "no-store"})
