"""Writes of the reports app: only its own bookkeeping (ReportExport rows and the files they name)
and the audit event of every delivery (ReportDelivery).

Reports never write a domain row; these services record that an export was asked for, run it
(from the Celery task) and keep its progress, and record each time a report's rows leave pit.
"""

import datetime as dt
import os
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from pit.core.outbox import outbox_enqueue
from pit.records.anchors import export_sign, signature_path

from .catalog import REPORTS
from .definitions import ReportDefinition, ReportFilters
from .models import CsvHeaders, ExportFormat, ExportStatus, ReportDelivery, ReportExport
from .pdf import pdf_write
from .permissions import gets_personal_columns
from .renderers import REPORTS_WITH_RECORD_HEADS, csv_write, xlsx_write
from .schedules import schedule_problems

EXPORT_DIR = "reports"
# Progress is saved at most this often (rows): a row update per 1,000 report rows would be wasteful.
PROGRESS_EVERY = 5000


def exports_root() -> Path:
    return Path(settings.MEDIA_ROOT) / EXPORT_DIR


@transaction.atomic
def report_export_request(
    *,
    report: ReportDefinition,
    filters: ReportFilters,
    format: str,
    user,
    language: str | None = None,
    headers: str = CsvHeaders.MACHINE,
) -> ReportExport:
    """Queue a background export; the task runs after commit. Its rows are estimated by the task,
    not here: over a year the count takes longer than a request may (see `report_export_run`).
    `language` (default: the active one) is the language an XLSX or PDF is written in; `headers`
    the CSV's header line (stable names or translated headings)."""
    if format == ExportFormat.PDF and not report.pdf_columns:
        raise ValidationError({"format": _("%(report)s has no PDF.") % {"report": report.title}})
    export = ReportExport(
        report=report.slug,
        format=format,
        filters=filters.to_dict(),
        requested_by=user,
        personal=gets_personal_columns(user, report),
        language=language or translation.get_language() or settings.LANGUAGE_CODE,
        headers=headers,
    )
    export.full_clean()
    export.save()
    outbox_enqueue("reports.report_export_run", export.pk)  # by name: pit.reports.tasks imports this module
    return export


@transaction.atomic
def report_deliver(
    *,
    report: ReportDefinition,
    filters: ReportFilters,
    format: str,
    via: str,
    user,
    detail: str = "",
    personal: bool | None = None,
) -> ReportDefinition:
    """Record that a report's rows leave pit (shown on the reports page, downloaded, read through
    the API or sent by a schedule: `via`, a DeliveryVia) and answer the report as `user` gets it:
    with its personal columns only when the user may see personal data (`personal`: what a file
    written earlier holds). Every path that delivers rows renders what this answers, after the
    record is written (tests/reports/test_deliveries.py enumerates them): no report is seen or sent
    without its record, and no personal column reaches a reader who may not see it."""
    if personal is None:
        personal = gets_personal_columns(user, report)
    delivery = ReportDelivery(
        report=report.slug,
        format=format,
        via=via,
        filters=filters.to_dict(),
        delivered_to=user,
        detail=detail[:300],
        personal_shown=personal,
    )
    # The reader is the request's user (or a schedule's owner): no query to find it exists.
    delivery.full_clean(exclude=["delivered_to"])
    delivery.save()
    return report.for_reader(personal=personal)


@transaction.atomic
def report_schedule_save(*, schedule, user):
    """Save a report schedule (the admin's form): its owner, who it runs as, is whoever made it;
    refused (ValidationError by field) when `schedule_problems` finds anything."""
    if schedule.owner_id is None:
        schedule.owner = user
    problems = schedule_problems(schedule)
    if problems:
        raise ValidationError(problems)
    schedule.full_clean()
    schedule.save()
    return schedule


def report_export_run(*, export_id: int) -> ReportExport:
    """Write the export's file under MEDIA_ROOT/reports/ and mark it ready. Idempotent: an export
    that is ready with its file present is returned as it is; otherwise the file is written again
    (to a temporary name, renamed into place when complete, so a half file is never served)."""
    export = ReportExport.objects.get(pk=export_id)
    if export.status == ExportStatus.DONE and export.file and (Path(settings.MEDIA_ROOT) / export.file).exists():
        return export
    report = REPORTS[export.report].for_reader(personal=export.personal)
    filters = ReportFilters.from_dict(export.filters)
    ReportExport.objects.filter(pk=export.pk).update(
        status=ExportStatus.RUNNING,
        started_at=timezone.now(),
        rows_written=0,
        error="",
    )

    def progress(rows: int) -> None:
        if rows % PROGRESS_EVERY == 0:
            ReportExport.objects.filter(pk=export.pk).update(rows_written=rows)

    folder = exports_root()
    folder.mkdir(parents=True, exist_ok=True)
    relative = f"{EXPORT_DIR}/export-{export.pk}.{export.format}"
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".export-{export.pk}-", suffix=".part")
    written = {"rows": 0}

    def counting(rows: int) -> None:
        written["rows"] = rows
        progress(rows)

    try:
        # The rows the file will hold, what progress counts against (0% until counted).
        ReportExport.objects.filter(pk=export.pk).update(rows_estimated=report.estimate(filters))
        # Written in the requester's language (headings, titles, bridging lines); CSV values never change.
        with os.fdopen(handle, "wb") as out, translation.override(export.language):
            if export.format == ExportFormat.XLSX:
                xlsx_write(report, filters, out, progress=counting)
            elif export.format == ExportFormat.PDF:
                pdf_write(report, filters, out)
            else:
                csv_write(report, filters, out, progress=counting, headers=export.headers)
        target = Path(settings.MEDIA_ROOT) / relative
        # A signature left beside a file of this export that is being written again signs that file, not this one.
        signature_path(target).unlink(missing_ok=True)
        os.replace(temporary, target)
        if settings.PIT_RECORDS_SIGNING_KEY and report.slug in REPORTS_WITH_RECORD_HEADS:
            export_sign(target)  # <file>.sig: the export pins the record heads it carries (pit.records.anchors)
    except Exception as exc:
        Path(temporary).unlink(missing_ok=True)
        ReportExport.objects.filter(pk=export.pk).update(
            status=ExportStatus.FAILED, finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"
        )
        raise
    ReportExport.objects.filter(pk=export.pk).update(
        status=ExportStatus.DONE,
        file=relative,
        rows_written=written["rows"],
        finished_at=timezone.now(),
    )
    export.refresh_from_db()
    return export


def report_exports_purge(*, keep_days: int | None = None) -> int:
    """Delete the files of exports finished more than `keep_days` ago (PIT_REPORT_EXPORT_KEEP_DAYS)
    and mark them expired; the rows stay as the record of who exported what. Returns how many."""
    keep = settings.PIT_REPORT_EXPORT_KEEP_DAYS if keep_days is None else keep_days
    cutoff = timezone.now() - dt.timedelta(days=keep)
    stale = ReportExport.objects.filter(
        status__in=[ExportStatus.DONE, ExportStatus.FAILED], finished_at__lt=cutoff
    ).only("pk", "file")
    purged = 0
    for export in stale.iterator():
        if export.file:
            (Path(settings.MEDIA_ROOT) / export.file).unlink(missing_ok=True)
            signature_path(Path(settings.MEDIA_ROOT) / export.file).unlink(missing_ok=True)
        purged += ReportExport.objects.filter(pk=export.pk).update(status=ExportStatus.EXPIRED, file="")
    return purged
