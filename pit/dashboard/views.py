"""The pit boss's dashboard: a page in the admin's look, and the JSON it refreshes itself from."""

from typing import cast

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache

from pit.accounts.models import Role
from pit.compliance.wording import violation_sentence
from pit.core.admin_site import PageLink, page_link_register
from pit.dashboard.selectors import HOLD_BAND, pit_overview
from pit.protection.selectors import alarm_banner

# Who watches the floor (docs/guides/pit-boss.md): pit bosses, auditors and superusers.
DASHBOARD_ROLES = (Role.PIT_BOSS, Role.AUDITOR)
REFRESH_SECONDS = 5


def dashboard_allowed(user) -> bool:
    if not (user.is_authenticated and user.is_active and user.is_staff):
        return False
    return user.is_superuser or user.groups.filter(name__in=DASHBOARD_ROLES).exists()


page_link_register(
    PageLink(
        "dashboard",
        # PageLink takes str: a lazy translation is one wherever it is shown.
        cast(str, _("Dashboard")),
        cast(str, _("The floor now: the pit's map, tables, shoes, alarms and the shift's notes.")),
        url=lambda: reverse("dashboard:index"),
        allowed=lambda request: dashboard_allowed(request.user),
        position=10,
    )
)


def _check(request) -> None:
    if not dashboard_allowed(request.user):
        raise PermissionDenied(gettext("The dashboard is for pit bosses, auditors and superusers."))


def _violations_url() -> str:
    try:
        return reverse("admin:compliance_ruleviolation_changelist")
    except NoReverseMatch:
        return "/admin/compliance/ruleviolation/"


def _in_words(alarms: list[dict]) -> list[dict]:
    """The banner's alarms with their sentences in the reader's language (the record keeps the English)."""
    return [{**alarm, "message": violation_sentence(alarm["code"], alarm["message"])} for alarm in alarms]


def dashboard(request):
    _check(request)
    context = {
        **admin.site.each_context(request),
        "title": gettext("The pit at a glance"),
        "overview": pit_overview(),
        "data_url": reverse("dashboard:data"),
        "violations_url": _violations_url(),
        "refresh_seconds": REFRESH_SECONDS,
        "alarms": _in_words(alarm_banner()),
        "hold_band": HOLD_BAND,
        "tables_url": reverse("admin:tables_table_changelist"),
        "shift_note_add_url": reverse("admin:dashboard_shiftnote_add"),
    }
    return TemplateResponse(request, "dashboard/index.html", context)


@never_cache
def dashboard_data(request):
    """The overview the page polls. Signed out (the session ended): 401 with where to sign in
    again, which the page shows instead of freezing; not allowed: 403, also in JSON."""
    if not request.user.is_authenticated:
        login = f"{reverse('admin:login')}?next={reverse('dashboard:index')}"
        return JsonResponse({"signed_out": True, "login_url": login}, status=401)
    if not dashboard_allowed(request.user):
        return JsonResponse(
            {"detail": gettext("The dashboard is for pit bosses, auditors and superusers.")}, status=403
        )
    return JsonResponse(pit_overview(), headers={"Cache-Control": "no-store"})
