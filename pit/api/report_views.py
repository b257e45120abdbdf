"""The reports as JSON for other systems: GET /api/v1/reports/commission/?from=...&to=..., and
/commission-detail/, /table-results/, /violations/. Money is a decimal string; the body is streamed.

Filters: from, to (gaming days, ISO dates), tables (codes, comma-separated or repeated), game,
only_variances. Ranges longer than PIT_REPORT_INLINE_MAX_DAYS are refused (400): ask for them in
parts, or export them from the reports page. Who may run what: pit.reports.permissions.
"""

from django.conf import settings
from django.http import StreamingHttpResponse
from rest_framework import exceptions, permissions
from rest_framework.views import APIView

from pit.reports.catalog import REPORTS
from pit.reports.forms import ReportFilterForm
from pit.reports.permissions import report_allowed
from pit.reports.renderers import json_chunks


class ReportAccess(permissions.BasePermission):
    """Staff whose role may run the view's report; floor devices and anonymous callers may not."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if user is None or not user.is_authenticated:
            return False
        if not report_allowed(user, REPORTS[view.report]):
            raise exceptions.PermissionDenied(
                f"Your role may not run the {REPORTS[view.report].title} report."
            )
        return True


class ReportView(APIView):
    report: str = ""
    permission_classes = [ReportAccess]

    def get(self, request):
        params = request.query_params.copy()
        tables = [
            code.strip() for value in params.getlist("tables") for code in value.split(",") if code.strip()
        ]
        params.setlist("tables", tables)
        form = ReportFilterForm(params, report=self.report)
        if not form.is_valid():
            raise exceptions.ValidationError(
                {field: [str(error) for error in errors] for field, errors in form.errors.items()}
            )
        filters = form.filters()
        limit = settings.PIT_REPORT_INLINE_MAX_DAYS
        if filters.days > limit:
            raise exceptions.ValidationError(
                {
                    "to": [
                        f"The API returns at most {limit} gaming days at a time; "
                        f"{filters.days} were asked for."
                    ]
                }
            )
        return StreamingHttpResponse(
            json_chunks(REPORTS[self.report], filters), content_type="application/json"
        )


def report_view(slug: str):
    return type(f"{slug.title().replace('-', '')}ReportView", (ReportView,), {"report": slug}).as_view()
