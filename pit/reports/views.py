"""The reports page in the admin (/admin/pit/reports/): filters, an on-screen summary, CSV and XLSX
downloads, and background exports of large ranges with their progress. Thin: forms, selectors,
renderers and services do the work."""

import tempfile
from functools import wraps
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from .catalog import REPORTS
from .definitions import ReportFilters
from .forms import ReportFilterForm, days_label
from .models import CsvHeaders, DeliveryFormat, DeliveryVia, ExportFormat, ExportStatus, ReportExport
from .pdf import pdf_reports, pdf_write
from .permissions import reads_personal, report_allowed, reports_allowed
from .renderers import csv_chunks, report_page, report_summary, xlsx_write
from .services import report_deliver, report_export_request

# The page totals a report on screen only up to this many detail rows (a month of the ledger detail
# can hold millions); beyond it, download the file.
SUMMARY_MAX_ROWS = 50_000
ROWS_PER_PAGE = 50  # detail rows per page on screen, with the subtotals among them
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CONTENT_TYPES: dict[str, str] = {
    ExportFormat.CSV: "text/csv; charset=utf-8",
    ExportFormat.XLSX: XLSX_TYPE,
    ExportFormat.PDF: "application/pdf",
}


def inline_max_days() -> int:
    return settings.PIT_REPORT_INLINE_MAX_DAYS


def inline_max_rows() -> int:
    return settings.PIT_REPORT_INLINE_MAX_ROWS


def background_reason(definition, filters: ReportFilters) -> tuple[str, int]:
    """Why a report must be written in the background ("" when it may stream at once), and its
    estimated rows: more gaming days than PIT_REPORT_INLINE_MAX_DAYS, or more estimated rows than
    PIT_REPORT_INLINE_MAX_ROWS (the time a report takes grows with its rows, not its days)."""
    if filters.days > inline_max_days():
        return _("%(days)s covers more than %(limit)s gaming days") % {
            "days": days_label(filters),
            "limit": inline_max_days(),
        }, 0
    estimate = definition.estimate(filters)
    if estimate > inline_max_rows():
        words = _("%(days)s holds about %(rows)s rows, more than the %(limit)s written at once")
        return words % {
            "days": days_label(filters),
            "rows": f"{estimate:,}",
            "limit": f"{inline_max_rows():,}",
        }, estimate
    return "", estimate


def staff_reports_view(view):
    """Anonymous users and non-staff go to the admin login; staff who may run no report get 403."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        user = request.user
        if not (user.is_authenticated and user.is_active and user.is_staff):
            return redirect_to_login(request.get_full_path(), reverse("admin:login"))
        if not reports_allowed(user):
            raise PermissionDenied(_("You may not run reports."))
        return view(request, *args, **kwargs)

    return wrapped


def _filename(slug: str, filters: ReportFilters, extension: str) -> str:
    return f"{slug}_{filters.date_from.isoformat()}_{filters.date_to.isoformat()}.{extension}"


def _allowed_form(request, data) -> ReportFilterForm:
    """The filter form, offering only the reports this user may run."""
    allowed = reports_allowed(request.user)
    form = ReportFilterForm(data, initial={"report": allowed[0].slug})
    report_field = form.fields["report"]
    assert isinstance(report_field, forms.ChoiceField)  # ReportFilterForm.report
    report_field.choices = [(report.slug, report.title) for report in allowed]
    return form


@require_GET
@staff_reports_view
def reports_index(request):
    data = request.GET if "report" in request.GET else None
    form = _allowed_form(request, data)
    summary = filters = definition = rows = None
    page_query = ""
    too_long = too_many = False
    reason = ""
    if data is not None and form.is_valid():
        definition, filters = form.definition, form.filters()
        reason, estimate = background_reason(definition, filters)
        too_long = bool(reason)
        too_many = estimate > SUMMARY_MAX_ROWS
        if not (too_long or too_many):
            page = _page_number(request)
            definition = report_deliver(
                report=definition,
                filters=filters,
                format=DeliveryFormat.SCREEN,
                via=DeliveryVia.SCREEN,
                user=request.user,
                detail=f"page {page}",
            )
            summary = report_summary(definition, filters)
            rows = report_page(definition, filters, page, ROWS_PER_PAGE)
            query = request.GET.copy()
            query.pop("page", None)
            page_query = query.urlencode()
    exports = ReportExport.objects.filter(requested_by=request.user).order_by("-requested_at", "-id")[:10]
    context = {
        **admin.site.each_context(request),
        "title": _("Reports"),
        "form": form,
        "definition": definition,
        "filters": filters,
        "days": days_label(filters) if filters else "",
        "summary": summary,
        "rows": rows,
        "page_query": page_query,
        "too_long": too_long,
        "too_many": too_many,
        "summary_max_rows": SUMMARY_MAX_ROWS,
        "inline_max_days": inline_max_days(),
        "inline_max_rows": f"{inline_max_rows():,}",
        "background_reason": reason,
        "reports": reports_allowed(request.user),
        "pdf_reports": [report for report in pdf_reports(REPORTS) if report_allowed(request.user, report)],
        "exports": exports,
        "background_fields": _background_fields(form) if too_long else [],
    }
    return render(request, "reports/index.html", context)


def _page_number(request) -> int:
    try:
        return max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        return 1


def _background_fields(form: ReportFilterForm) -> list[tuple[str, str]]:
    """The filters as hidden fields of the "export in the background" form (a POST)."""
    filters = form.filters()
    fields = [
        ("report", form.definition.slug),
        ("from", filters.date_from.isoformat()),
        ("to", filters.date_to.isoformat()),
        ("game", filters.game),
    ]
    fields += [("tables", code) for code in filters.tables]
    if filters.only_variances:
        fields.append(("only_variances", "on"))
    if form.csv_headers != CsvHeaders.MACHINE:
        fields.append(("headers", form.csv_headers))
    return fields


@require_http_methods(["GET", "POST"])
@staff_reports_view
def report_export(request):
    """GET: download CSV or XLSX now (see `background_reason`; a longer report goes back to the page,
    which offers a background export). POST: export in the background."""
    data = request.GET if request.method == "GET" else request.POST
    form = _allowed_form(request, data)
    file_format = data.get("format", "")
    if file_format not in ExportFormat.values or not form.is_valid():
        if "report" in form.errors and data.get("report") in REPORTS:
            raise PermissionDenied(_("You may not run this report."))
        messages.error(request, _("Choose a report, a valid range of gaming days and CSV, XLSX or PDF."))
        return redirect("reports:index")
    definition, filters = form.definition, form.filters()
    if file_format == ExportFormat.PDF and not definition.pdf_columns:
        printable = _(" and ").join(str(report.title) for report in pdf_reports(REPORTS))
        messages.error(
            request,
            _("%(report)s has no PDF; the PDF for sign-off is of the %(printable)s.")
            % {"report": definition.title, "printable": printable},
        )
        query = data.copy()
        query.pop("format", None)
        return redirect(f"{reverse('reports:index')}?{query.urlencode()}")
    if request.method == "POST":
        export = report_export_request(
            report=definition, filters=filters, format=file_format, user=request.user, headers=form.csv_headers
        )
        messages.info(
            request,
            _(
                "%(report)s for %(days)s is being written in the background (export %(export)s); "
                "download it below once ready."
            )
            % {"report": definition.title, "days": days_label(filters), "export": export.pk},
        )
        return redirect(f"{reverse('reports:index')}#export-{export.pk}")
    reason, _estimate = background_reason(definition, filters)
    if reason:
        messages.warning(request, _("%(reason)s: export it in the background.") % {"reason": reason})
        query = data.copy()
        query.pop("format", None)
        return redirect(f"{reverse('reports:index')}?{query.urlencode()}")
    definition = report_deliver(
        report=definition, filters=filters, format=file_format, via=DeliveryVia.DOWNLOAD, user=request.user
    )
    filename = _filename(definition.slug, filters, file_format)
    if file_format == ExportFormat.CSV:
        chunks = csv_chunks(definition, filters, headers=form.csv_headers)
        response = StreamingHttpResponse(chunks, content_type=CONTENT_TYPES["csv"])
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    # openpyxl's write-only mode spools rows to disk as they come; the zip is then sent from disk.
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it when sent
    (pdf_write if file_format == ExportFormat.PDF else xlsx_write)(definition, filters, spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, filename=filename, content_type=CONTENT_TYPES[file_format])


def _own_export(request, pk: int) -> ReportExport:
    export = get_object_or_404(ReportExport, pk=pk)
    if export.requested_by_id != request.user.pk and not request.user.is_superuser:
        raise Http404(_("No such export."))
    if export.report not in REPORTS or not report_allowed(request.user, REPORTS[export.report]):
        raise PermissionDenied(_("You may not run this report."))
    return export


@require_GET
@staff_reports_view
def export_status(request, pk: int):
    """What the reports page polls: status, rows written of the estimate, and the download URL."""
    export = _own_export(request, pk)
    return JsonResponse(
        {
            "id": export.pk,
            "status": export.status,
            "status_display": export.get_status_display(),
            "rows_written": export.rows_written,
            "rows_estimated": export.rows_estimated,
            "percent": export.progress_percent,
            "download_url": reverse("reports:export-download", args=[export.pk])
            if export.status == ExportStatus.DONE
            else None,
            "error": export.error,
        }
    )


@require_GET
@staff_reports_view
def export_download(request, pk: int):
    """The export's file, to whoever asked for it (and may still run that report)."""
    export = _own_export(request, pk)
    if export.status != ExportStatus.DONE or not export.file:
        raise Http404(_("The export is not ready."))
    path = Path(settings.MEDIA_ROOT) / export.file
    if not path.is_file():
        raise Http404(_("The export's file is gone; export the report again."))
    if export.personal and not reads_personal(request.user):
        raise PermissionDenied(_("The export holds personal data you may not see; export the report again."))
    report_deliver(
        report=REPORTS[export.report],
        filters=ReportFilters.from_dict(export.filters),
        format=export.format,
        via=DeliveryVia.EXPORT,
        user=request.user,
        detail=f"export {export.pk}",
        personal=export.personal,
    )
    return FileResponse(
        path.open("rb"),
        as_attachment=True,
        filename=export.filename,
        content_type=CONTENT_TYPES[export.format],
    )
