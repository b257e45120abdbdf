"""Celery tasks of the reports: background exports of large ranges."""
from pit.core.tasks import pit_task
from pit.reports.services import report_export_run as report_export_run_service


@pit_task("reports.report_export_run")
def report_export_run(export_id: int) -> int:
    """Write a ReportExport's file; safe to run twice (a finished export is left as it is)."""
    return report_export_run_service(export_id=export_id).pk
