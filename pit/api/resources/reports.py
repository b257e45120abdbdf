"""The reports as JSON for other systems, under /api/v1/reports/<slug>/ (filters and limits:
docs/design/api.md); money is a decimal string, the body is streamed."""

from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import path
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.views import APIView

from pit.api.authentication import DevicePrincipal
from pit.api.permissions import PitAccess
from pit.reports.catalog import REPORTS
from pit.reports.definitions import ColumnType
from pit.reports.forms import ReportFilterForm
from pit.reports.models import DeliveryFormat, DeliveryVia
from pit.reports.permissions import report_allowed
from pit.reports.renderers import json_chunks
from pit.reports.services import report_deliver


class ReportAccess(PitAccess):
    """PitAccess for anonymous callers (401) and floor devices (403, no device access); staff by
    the reports' own rule: accountants and auditors every report, pit bosses the floor's."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if user is None or not user.is_authenticated or isinstance(user, DevicePrincipal):
            return super().has_permission(request, view)
        report = REPORTS[view.report]
        if not report_allowed(user, report):
            raise exceptions.PermissionDenied(
                gettext("Your role may not run the {report_title} report.").format(report_title=report.title)
            )
        return True


_FILTERS = [
    OpenApiParameter("from", OpenApiTypes.DATE, required=True, description="First gaming day."),
    OpenApiParameter("to", OpenApiTypes.DATE, required=True, description="Last gaming day (inclusive)."),
    OpenApiParameter("tables", OpenApiTypes.STR, description="Table codes, comma-separated; none: every table."),
    OpenApiParameter("game", OpenApiTypes.STR, enum=["big", "midi", "mini"], description="Only tables of a game."),
    OpenApiParameter(
        "only_variances", OpenApiTypes.BOOL, description="Commission: only seats whose count differs from the ledger."
    ),
]
_DECIMAL = r"^-?[0-9]+(\.[0-9]+)?$"
_COLUMN_SCHEMAS = {
    ColumnType.TEXT: {"type": "string"},
    ColumnType.INTEGER: {"type": "integer"},
    ColumnType.MONEY: {"type": "string", "pattern": _DECIMAL, "description": "In the row's currency."},
    ColumnType.PERCENTAGE: {"type": "string", "pattern": _DECIMAL, "description": "In percent."},
    ColumnType.DECIMAL: {"type": "string", "pattern": _DECIMAL},
    ColumnType.DATE: {"type": "string", "format": "date"},
    ColumnType.DATETIME: {"type": "string", "format": "date-time"},
}


def report_answer_schema(report) -> dict:
    """The JSON answer of one report, typed column by column from its definition (pit.reports.catalog)."""
    columns = report.visible_columns
    row = {
        "type": "object",
        # A personal column (a patron's name) only for a reader who may see personal data.
        "required": ["line", *(column.key for column in columns if not column.personal)],
        "properties": {
            "line": {
                "type": "string",
                "description": '"detail", "<level> subtotal", "total", or "bridge": after the totals, where the '
                "commission report and table results differ, the steps from one's commission to the other's.",
            },
            **{
                column.key: {**_COLUMN_SCHEMAS[column.type], "nullable": True, "description": column.label}
                for column in columns
            },
        },
    }
    answer: dict[str, Any] = {
        "type": "object",
        "required": ["report", "title", "filters", "columns", "rows", "totals"],
        "properties": {
            "report": {"type": "string", "enum": [report.slug]},
            "title": {"type": "string"},
            "filters": {
                "type": "object",
                "required": ["from", "to", "tables", "game", "only_variances"],
                "properties": {
                    "from": {"type": "string", "format": "date"},
                    "to": {"type": "string", "format": "date"},
                    "tables": {"type": "array", "items": {"type": "string"}},
                    "game": {"type": "string", "nullable": True},
                    "only_variances": {"type": "boolean"},
                },
            },
            "columns": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["key", "label", "type"],
                    "properties": {
                        "key": {"type": "string"},
                        "label": {"type": "string"},
                        "type": {"type": "string", "enum": [str(kind) for kind in ColumnType]},
                    },
                },
            },
            "rows": {"type": "array", "items": row},
            "totals": {"type": "array", "items": row, "description": "One per currency."},
        },
    }
    if report.slug == "commission":
        answer["required"].append("record_heads")
        answer["properties"]["record_heads"] = _RECORD_HEADS
    return answer


# Each gaming day's hash-chain heads (pit.records), so a signed export pins the record.
_RECORD_HEADS = {
    "type": "array",
    "description": "Each gaming day's hash-chain heads: its digest and, per shoe, the head of its chain.",
    "items": {
        "type": "object",
        "required": ["gaming_day", "digest", "shoes"],
        "properties": {
            "gaming_day": {"type": "string", "format": "date"},
            "digest": {"type": "string"},
            "shoes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["shoe", "table", "sequence", "rows", "head"],
                    "properties": {
                        "shoe": {"type": "integer"},
                        "table": {"type": "string"},
                        "sequence": {"type": "integer"},
                        "rows": {"type": "integer"},
                        "head": {"type": "string"},
                    },
                },
            },
        },
    },
}


class ReportView(APIView):
    report: str = ""
    permission_classes = [ReportAccess]

    def get(self, request):
        params = request.query_params.copy()
        tables = [code.strip() for value in params.getlist("tables") for code in value.split(",") if code.strip()]
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
                        gettext(
                            "The API returns at most {limit} gaming days at a time; {filters_days} were asked for."
                        ).format(limit=limit, filters_days=filters.days)
                    ]
                }
            )
        report = report_deliver(
            report=REPORTS[self.report],
            filters=filters,
            format=DeliveryFormat.JSON,
            via=DeliveryVia.API,
            user=request.user,
        )
        return StreamingHttpResponse(json_chunks(report, filters), content_type="application/json")


def report_view(slug: str):
    """The view of one report, with its own schema (extend_schema marks the function it is given,
    so each report gets a function of its own)."""
    report = REPORTS[slug]

    def get(self, request):
        return ReportView.get(self, request)

    get = extend_schema(
        operation_id=f"reports_{slug.replace('-', '_')}",
        summary=f"{report.title} report",
        description=report.description,
        tags=["reports"],
        parameters=_FILTERS,
        responses={
            200: OpenApiResponse(
                report_answer_schema(report),
                description="Money and decimals are strings, percentages in percent, dates ISO 8601.",
            )
        },
    )(get)
    name = f"{slug.title().replace('-', '')}ReportView"
    view = type(name, (ReportView,), {"report": slug, "get": get})
    assert issubclass(view, ReportView)  # type() answers a plain `type`
    return view.as_view()


urlpatterns = [path(f"{slug}/", report_view(slug), name=slug) for slug in REPORTS]
