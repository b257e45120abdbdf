"""Celery tasks of the reports: background exports of large ranges."""

from pit.core.tasks import pit_task
from pit.reports.schedules import report_schedules_run as report_schedules_run_service
from pit.reports.services import report_export_run as report_export_run_service
from pit.reports.services import report_exports_purge as report_exports_purge_service


@pit_task("reports.report_export_run")
def report_export_run(export_id: int) -> int:
    """Write a ReportExport's file; safe to run twice (a finished export is left as it is)."""
    return report_export_run_service(export_id=export_id).pk


@pit_task("reports.report_exports_purge")
def report_exports_purge() -> int:
    """Delete export files past PIT_REPORT_EXPORT_KEEP_DAYS; safe to run twice (expired ones are skipped)."""
    return report_exports_purge_service()


@pit_task("reports.report_schedules_run")
def report_schedules_run() -> int:
    """Run the report schedules due now; safe to run twice (each runs once per day it is due)."""
    return len(report_schedules_run_service())
