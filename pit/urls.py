"""The site's URLs: the admin, the health check, and the API under /api/v1/."""

from django.contrib import admin
from django.urls import include, path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import last_modified
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog

from pit.accounting.admin_accountant import attachment_view, day_close_view
from pit.accounting.admin_cage import cage_issue_view, cage_view, slip_print_view
from pit.accounts.admin_audit import verify_records_view
from pit.accounts.language import language_set_view
from pit.accounts.two_factor import ENROLL_URL_NAME, enroll_view
from pit.core.admin_site import PageLink, page_link_register
from pit.core.views import healthz
from pit.reports.permissions import reports_allowed

# The reports page in the header, for whoever its view lets in (pit.reports.views.staff_reports_view).
page_link_register(
    PageLink(
        "reports",
        _("Reports"),
        _("Commission, handle, win and hold by gaming day."),
        url=lambda: reverse("reports:index"),
        allowed=lambda request: bool(reports_allowed(request.user)),
        position=20,
    )
)

# The catalogs change only with a deployment: the JavaScript catalog is as new as the process.
STARTED = timezone.now()

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False)),
    path("healthz", healthz, name="healthz"),
    path("admin/pit/dashboard/", include("pit.dashboard.urls")),
    path("admin/pit/reports/", include("pit.reports.urls")),
    # The JavaScript catalog (djangojs.po) of the active language: gettext() in static/*.js.
    path("jsi18n/", last_modified(lambda request: STARTED)(JavaScriptCatalog.as_view()), name="javascript-catalog"),
    path("admin/pit/language/", language_set_view, name="language-set"),
    path("admin/two-factor/", admin.site.admin_view(enroll_view), name=ENROLL_URL_NAME),
    path("admin/pit/verify-records/", admin.site.admin_view(verify_records_view), name="verify-records"),
    path("admin/pit/cage/", admin.site.admin_view(cage_view), name="cage"),
    path("admin/pit/cage/slips/<int:pk>/issue/", admin.site.admin_view(cage_issue_view), name="cage-issue"),
    path("admin/pit/slips/<int:pk>/print/", admin.site.admin_view(slip_print_view), name="slip-print"),
    path("admin/pit/day-close/", admin.site.admin_view(day_close_view), name="day-close"),
    path("admin/pit/investigations/files/<int:pk>/", admin.site.admin_view(attachment_view), name="investigation-file"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("pit.api.urls")),
]
