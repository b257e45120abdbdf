"""The reports app's own bookkeeping: exports of large ranges made in the background."""

from django.conf import settings
from django.db import models


class ExportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    XLSX = "xlsx", "Excel workbook (XLSX)"


class ExportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"
    EXPIRED = "expired", "Expired (file deleted)"


class ReportExport(models.Model):
    """A report file written by a Celery task under MEDIA_ROOT/reports/ and downloaded through a
    permission-checked view (never a public media URL). Only the reports app writes these rows."""

    report = models.CharField(max_length=40)
    format = models.CharField(max_length=4, choices=ExportFormat.choices)
    filters = models.JSONField(help_text="ReportFilters.to_dict() of the request.")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=8, choices=ExportStatus.choices, default=ExportStatus.QUEUED)
    rows_estimated = models.PositiveBigIntegerField(default=0)
    rows_written = models.PositiveBigIntegerField(default=0)
    file = models.CharField(max_length=200, blank=True, help_text="Path under MEDIA_ROOT once written.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ExportStatus.values), name="report_export_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(format__in=ExportFormat.values), name="report_export_format_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.report} {self.format} #{self.pk}"

    @property
    def filename(self) -> str:
        return f"{self.report}_{self.filters['from']}_{self.filters['to']}.{self.format}"

    @property
    def progress_percent(self) -> int:
        if self.status == ExportStatus.DONE:
            return 100
        if not self.rows_estimated:
            return 0
        return min(99, int(self.rows_written * 100 / self.rows_estimated))
