"""The reports app's own bookkeeping: exports of large ranges made in the background."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact


class ExportFormat(models.TextChoices):
    CSV = "csv", _("CSV")
    XLSX = "xlsx", _("Excel workbook (XLSX)")
    PDF = "pdf", _("PDF for sign-off")


class CsvHeaders(models.TextChoices):
    """A CSV's header line: the columns' stable names (what systems read) or their headings in the
    reader's language (pit.reports.renderers.HEADERS)."""

    MACHINE = "machine", _("Stable column names (for systems)")
    TRANSLATED = "translated", _("Headings in my language")


class ExportStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Ready")
    FAILED = "failed", _("Failed")
    EXPIRED = "expired", _("Expired (file deleted)")


class ReportExport(models.Model):
    """A report file written by a Celery task under MEDIA_ROOT/reports/ and downloaded through a
    permission-checked view (never a public media URL). Only the reports app writes these rows."""

    report = models.CharField(max_length=40, verbose_name=_("report"))
    format = models.CharField(max_length=4, choices=ExportFormat.choices, verbose_name=_("format"))
    filters = models.JSONField(help_text=_("ReportFilters.to_dict() of the request."), verbose_name=_("filters"))
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("requested by")
    )
    requested_at = models.DateTimeField(auto_now_add=True, verbose_name=_("requested at"))
    status = models.CharField(
        max_length=8, choices=ExportStatus.choices, default=ExportStatus.QUEUED, verbose_name=_("status")
    )
    rows_estimated = models.PositiveBigIntegerField(default=0, verbose_name=_("rows estimated"))
    rows_written = models.PositiveBigIntegerField(default=0, verbose_name=_("rows written"))
    file = models.CharField(
        max_length=200, blank=True, help_text=_("Path under MEDIA_ROOT once written."), verbose_name=_("file")
    )
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    # The requester's language when asked (an XLSX or PDF is written in it) and the CSV's headers.
    language = models.CharField(
        max_length=10, default="en-us", help_text=_("The language the file is written in."), verbose_name=_("language")
    )
    headers = models.CharField(
        max_length=10,
        choices=CsvHeaders.choices,
        default=CsvHeaders.MACHINE,
        help_text=_("CSV: the stable column names, or the headings in the file's language."),
        verbose_name=_("headers"),
    )
    # Whether the file holds the report's personal columns: its requester could see personal data.
    personal = models.BooleanField(
        default=False, help_text=_("Whether the name and nationality were shown."), verbose_name=_("personal shown")
    )

    class Meta:
        verbose_name = _("report export")
        verbose_name_plural = _("report exports")
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


class DeliveryFormat(models.TextChoices):
    """What a delivered report was: a file in an export format, the reports page, or the API's JSON."""

    SCREEN = "html", _("The reports page")
    CSV = "csv", _("CSV")
    XLSX = "xlsx", _("Excel workbook (XLSX)")
    PDF = "pdf", _("PDF for sign-off")
    JSON = "json", _("JSON (API)")


class DeliveryVia(models.TextChoices):
    """The way a report left pit: every path that shows or sends a report's rows is one of these."""

    SCREEN = "screen", _("Shown on the reports page")
    DOWNLOAD = "download", _("Downloaded at once")
    EXPORT = "export", _("Background export downloaded")
    API = "api", _("Read through the API")
    SCHEDULE = "schedule", _("Sent by a schedule")


class ReportDelivery(Fact):
    """A report's rows left pit, to a person, by one of the `DeliveryVia` paths: the audit event of
    every export, every page shown and every API read (`pit.reports.services.report_deliver`,
    the one writer). Insert-only and chained like every fact; the rows themselves are not kept (the
    facts they are read from are)."""

    report = models.CharField(max_length=40, verbose_name=_("report"))
    format = models.CharField(max_length=4, choices=DeliveryFormat.choices, verbose_name=_("format"))
    via = models.CharField(max_length=8, choices=DeliveryVia.choices, verbose_name=_("via"))
    filters = models.JSONField(help_text=_("ReportFilters.to_dict() of the request."), verbose_name=_("filters"))
    delivered_to = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("Who saw or received it; a schedule's owner for a scheduled run."),
        verbose_name=_("delivered to"),
    )
    delivered_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("delivered at"))
    detail = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("The export, or the schedule with the folder and addresses it went to."),
        verbose_name=_("detail"),
    )
    personal_shown = models.BooleanField(
        help_text=_("Whether the name and nationality were shown."), verbose_name=_("personal shown")
    )

    class Meta:
        verbose_name = _("report delivery")
        verbose_name_plural = _("report deliveries")
        ordering = ["-delivered_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(format__in=DeliveryFormat.values), name="report_delivery_format_valid"
            ),
            models.CheckConstraint(condition=models.Q(via__in=DeliveryVia.values), name="report_delivery_via_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.report} {self.format} to {self.delivered_to} ({self.via})"


class ScheduleFrequency(models.TextChoices):
    DAILY = "daily", _("Every day")
    WEEKLY = "weekly", _("Every week, on the weekday")
    MONTHLY = "monthly", _("Every month, on the day")


class SchedulePeriod(models.TextChoices):
    """The gaming days a scheduled run covers, counted back from the last complete gaming day."""

    PREVIOUS_DAY = "previous_day", _("The last complete gaming day")
    PREVIOUS_7_DAYS = "previous_7_days", _("The last 7 complete gaming days")
    MONTH_TO_DATE = "month_to_date", _("The month to date (through the last complete gaming day)")
    PREVIOUS_MONTH = "previous_month", _("The calendar month before the last complete gaming day's")


class ReportSchedule(models.Model):
    """A report exported on a schedule by beat (`reports.report_schedules_run`): which report and
    filters, the format, the gaming days it covers, when it runs (casino time), and where it goes:
    e-mailed to the recipients (Django's e-mail, EMAIL_URL) and/or written to a folder under
    PIT_REPORT_SCHEDULE_DIR. It runs with its owner's permissions, checked at each run."""

    name = models.CharField(max_length=80, verbose_name=_("name"))
    report = models.CharField(
        max_length=40, help_text=_("A report of the catalog (pit.reports.catalog)."), verbose_name=_("report")
    )
    format = models.CharField(
        max_length=4, choices=ExportFormat.choices, default=ExportFormat.XLSX, verbose_name=_("format")
    )
    tables = models.JSONField(
        default=list, blank=True, help_text=_("Table codes; none: every table."), verbose_name=_("tables")
    )
    game = models.CharField(
        max_length=8, blank=True, help_text=_("big, midi or mini; blank: every game."), verbose_name=_("game")
    )
    period = models.CharField(
        max_length=16, choices=SchedulePeriod.choices, default=SchedulePeriod.PREVIOUS_DAY, verbose_name=_("period")
    )
    frequency = models.CharField(
        max_length=8, choices=ScheduleFrequency.choices, default=ScheduleFrequency.DAILY, verbose_name=_("frequency")
    )
    weekday = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Weekly: 0 is Monday ... 6 is Sunday."), verbose_name=_("weekday")
    )
    day_of_month = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text=_("Monthly: 1 to 28."), verbose_name=_("day of month")
    )
    hour = models.PositiveSmallIntegerField(
        default=8,
        help_text=_("The hour (casino time, 0-23) from which the run is due on its day."),
        verbose_name=_("hour"),
    )
    recipients = models.TextField(
        blank=True, help_text=_("E-mail addresses, one a line or comma-separated."), verbose_name=_("recipients")
    )
    folder = models.CharField(
        max_length=120,
        blank=True,
        help_text=_("A folder under PIT_REPORT_SCHEDULE_DIR (e.g. accounting/daily)."),
        verbose_name=_("folder"),
    )
    active = models.BooleanField(default=True, verbose_name=_("active"))
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("owner")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("report schedule")
        verbose_name_plural = _("report schedules")
        ordering = ["name", "id"]
        # Accountants keep the schedules (pit.accounts.roles); roles never hold add/delete themselves.
        permissions = [("keep_reportschedule", _("Can add, change and delete report schedules"))]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(format__in=ExportFormat.values), name="report_schedule_format_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(period__in=SchedulePeriod.values), name="report_schedule_period_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(frequency__in=ScheduleFrequency.values), name="report_schedule_frequency_valid"
            ),
            models.CheckConstraint(condition=models.Q(hour__lte=23), name="report_schedule_hour_valid"),
            models.CheckConstraint(
                condition=~models.Q(recipients="", folder=""), name="report_schedule_goes_somewhere"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.report}, {self.format})"

    @property
    def recipient_list(self) -> list[str]:
        return [part.strip() for part in self.recipients.replace("\n", ",").split(",") if part.strip()]


class ScheduleRunStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed (tried again on the next beat)")


class ReportScheduleRun(models.Model):
    """One run of a schedule for one day it was due on: at most one per (schedule, due_on), so a
    beat that fires twice, or two beats, write and send once. A failed run is tried again."""

    schedule = models.ForeignKey(
        ReportSchedule, on_delete=models.CASCADE, related_name="runs", verbose_name=_("schedule")
    )
    due_on = models.DateField(
        help_text=_("The calendar day (casino time) the run was due on."), verbose_name=_("due on")
    )
    date_from = models.DateField(verbose_name=_("date from"))
    date_to = models.DateField(verbose_name=_("date to"))
    status = models.CharField(
        max_length=8, choices=ScheduleRunStatus.choices, default=ScheduleRunStatus.RUNNING, verbose_name=_("status")
    )
    started_at = models.DateTimeField(auto_now_add=True, verbose_name=_("started at"))
    finished_at = models.DateTimeField(null=True, blank=True, verbose_name=_("finished at"))
    file = models.CharField(
        max_length=300, blank=True, help_text=_("Where it was written, if to a folder."), verbose_name=_("file")
    )
    sent_to = models.TextField(blank=True, verbose_name=_("sent to"))
    error = models.TextField(blank=True, verbose_name=_("error"))

    class Meta:
        verbose_name = _("report schedule run")
        verbose_name_plural = _("report schedule runs")
        ordering = ["-due_on", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["schedule", "due_on"], name="report_schedule_run_once_a_day"),
            models.CheckConstraint(
                condition=models.Q(status__in=ScheduleRunStatus.values), name="report_schedule_run_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.schedule.name} on {self.due_on}"
