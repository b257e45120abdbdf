"""Scheduled report exports: which schedules are due, the gaming days a run covers, and the run
itself (the file written to a folder under PIT_REPORT_SCHEDULE_DIR and/or e-mailed with Django's
e-mail). Beat calls `report_schedules_run` every few minutes (pit.reports.tasks); each schedule
runs at most once per day it is due (`ReportScheduleRun`'s unique key), a failed run is tried
again on the next beat. Writes only the reports app's own rows and files."""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import tempfile
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import EmailMessage
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from pit.core.gaming_day import gaming_day_for
from pit.tables.models import Game, Table

from .catalog import REPORTS
from .definitions import ReportDefinition, ReportFilters
from .models import (
    DeliveryVia,
    ExportFormat,
    ReportSchedule,
    ReportScheduleRun,
    ScheduleFrequency,
    SchedulePeriod,
    ScheduleRunStatus,
)
from .pdf import pdf_write
from .permissions import report_allowed
from .renderers import csv_write, xlsx_write

logger = logging.getLogger(__name__)

FOLDER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
CONTENT_TYPES: dict[str, str] = {
    ExportFormat.CSV: "text/csv",
    ExportFormat.XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ExportFormat.PDF: "application/pdf",
}
# A run still "running" this long after it started belongs to a worker that died: it is tried again.
STALE_RUN = dt.timedelta(hours=1)


def schedule_problems(schedule: ReportSchedule) -> dict[str, str]:
    """What is wrong with a schedule, by field (empty when it can run): the admin's form shows them."""
    problems: dict[str, str] = {}
    definition = REPORTS.get(schedule.report)
    if definition is None:
        problems["report"] = _("No report %(report)s; one of: %(reports)s.") % {
            "report": repr(schedule.report),
            "reports": ", ".join(sorted(REPORTS)),
        }
    elif schedule.format == ExportFormat.PDF and not definition.pdf_columns:
        printable = ", ".join(slug for slug, report in REPORTS.items() if report.pdf_columns)
        problems["format"] = _("%(report)s has no PDF; PDFs are of: %(printable)s.") % {
            "report": definition.title,
            "printable": printable,
        }
    elif schedule.owner_id is not None and not report_allowed(schedule.owner, definition):
        problems["owner"] = _("%(owner)s may not run %(report)s: the schedule runs as its owner.") % {
            "owner": schedule.owner,
            "report": definition.title,
        }
    if schedule.frequency == ScheduleFrequency.WEEKLY and (schedule.weekday is None or schedule.weekday > 6):
        problems["weekday"] = _("A weekly schedule needs a weekday, 0 (Monday) to 6 (Sunday).")
    if schedule.frequency == ScheduleFrequency.MONTHLY and not 1 <= (schedule.day_of_month or 0) <= 28:
        problems["day_of_month"] = _("A monthly schedule needs a day of the month, 1 to 28 (every month has it).")
    if schedule.hour is None or schedule.hour > 23:
        problems["hour"] = _("The hour is 0 to 23 (casino time).")
    for address in schedule.recipient_list:
        try:
            validate_email(address)
        except ValidationError:
            problems["recipients"] = _("%(address)s is not an e-mail address.") % {"address": repr(address)}
            break
    if schedule.folder:
        parts = PurePosixPath(schedule.folder).parts
        if schedule.folder.startswith("/") or not parts or not all(FOLDER.fullmatch(part) for part in parts):
            problems["folder"] = _(
                "A folder inside PIT_REPORT_SCHEDULE_DIR: names of letters, digits, '_', '.', '-' joined by '/', "
                "none starting with a dot (no '..')."
            )
    if not schedule.recipient_list and not schedule.folder:
        problems["recipients"] = _("Name the recipients, a folder, or both: the export must go somewhere.")
    unknown = set(schedule.tables or ()) - set(_table_codes())
    if unknown:
        problems["tables"] = _("No table %(tables)s.") % {"tables": ", ".join(sorted(unknown))}
    if schedule.game and schedule.game not in Game.values:
        problems["game"] = _("The game is one of %(games)s, or blank for every game.") % {
            "games": ", ".join(Game.values)
        }
    return problems


def _table_codes() -> list[str]:
    return list(Table.objects.values_list("code", flat=True))


def schedule_due(schedule: ReportSchedule, local: dt.datetime) -> bool:
    """Whether the schedule is due at this casino-time moment: its hour has come on a day it runs."""
    if not schedule.active or local.hour < schedule.hour:
        return False
    day = local.date()
    if schedule.frequency == ScheduleFrequency.WEEKLY:
        return day.weekday() == schedule.weekday
    if schedule.frequency == ScheduleFrequency.MONTHLY:
        return day.day == schedule.day_of_month
    return True


def schedule_period(period: str, now: dt.datetime) -> tuple[dt.date, dt.date]:
    """The gaming days a run at `now` covers, ending with the last complete gaming day."""
    last = gaming_day_for(now) - dt.timedelta(days=1)
    if period == SchedulePeriod.PREVIOUS_7_DAYS:
        return last - dt.timedelta(days=6), last
    if period == SchedulePeriod.MONTH_TO_DATE:
        return last.replace(day=1), last
    if period == SchedulePeriod.PREVIOUS_MONTH:
        end = last.replace(day=1) - dt.timedelta(days=1)
        return end.replace(day=1), end
    return last, last


def _claim(schedule: ReportSchedule, due_on: dt.date, first: dt.date, last: dt.date) -> ReportScheduleRun | None:
    """The run to do now, or None when it is done or under way: one row per (schedule, day)."""
    with transaction.atomic():
        run = ReportScheduleRun.objects.select_for_update().filter(schedule=schedule, due_on=due_on).first()
        if run is None:
            try:
                with transaction.atomic():
                    return ReportScheduleRun.objects.create(
                        schedule=schedule, due_on=due_on, date_from=first, date_to=last
                    )
            except IntegrityError:
                return None  # another beat claimed it between the read and the insert
        stale = run.status == ScheduleRunStatus.RUNNING and run.started_at < timezone.now() - STALE_RUN
        if run.status == ScheduleRunStatus.FAILED or stale:
            ReportScheduleRun.objects.filter(pk=run.pk).update(
                status=ScheduleRunStatus.RUNNING, error="", started_at=timezone.now()
            )
            run.refresh_from_db()
            return run
        return None


def _render(definition: ReportDefinition, filters: ReportFilters, file_format: str, out) -> None:
    if file_format == ExportFormat.PDF:
        pdf_write(definition, filters, out)
    elif file_format == ExportFormat.XLSX:
        xlsx_write(definition, filters, out)
    else:
        csv_write(definition, filters, out)


def _range_text(filters: ReportFilters) -> str:
    if filters.date_from == filters.date_to:
        return filters.date_from.isoformat()
    return f"{filters.date_from.isoformat()} to {filters.date_to.isoformat()}"


def _deliver(schedule, run, definition, filters, recipients) -> ReportDefinition:
    """The run's delivery, recorded before its file is written for the folder and the mail (an
    attempt that fails after is on record too), and the report as its owner gets it."""
    from .services import report_deliver  # function-local: services imports this module

    places = [f"folder {schedule.folder}"] if schedule.folder else []
    places += [f"mailed to {', '.join(recipients)}"] if recipients else []
    return report_deliver(
        report=definition,
        filters=filters,
        format=schedule.format,
        via=DeliveryVia.SCHEDULE,
        user=schedule.owner,
        detail=f"schedule {schedule.pk} ({schedule.name}), run of {run.due_on.isoformat()}: {'; '.join(places)}",
    )


def report_schedule_execute(*, run: ReportScheduleRun) -> ReportScheduleRun:
    """Write the run's file (to the folder, atomically renamed into place) and e-mail it; the run
    records where it went, or why it failed (then it is tried again on the next beat)."""
    schedule = run.schedule
    problems = schedule_problems(schedule)
    try:
        if problems:
            raise ValueError("; ".join(f"{field}: {text}" for field, text in problems.items()))
        definition = REPORTS[schedule.report]
        filters = ReportFilters(
            date_from=run.date_from,
            date_to=run.date_to,
            tables=tuple(sorted(schedule.tables or ())),
            game=schedule.game,
        )
        filename = f"{definition.slug}_{run.date_from.isoformat()}_{run.date_to.isoformat()}.{schedule.format}"
        with tempfile.TemporaryDirectory(prefix="pit-schedule-") as scratch:
            path = Path(scratch) / filename
            recipients = schedule.recipient_list
            with path.open("wb") as out:
                _render(_deliver(schedule, run, definition, filters, recipients), filters, schedule.format, out)
            written = ""
            if schedule.folder:
                folder = Path(settings.PIT_REPORT_SCHEDULE_DIR) / schedule.folder
                folder.mkdir(parents=True, exist_ok=True)
                part = folder / f".{filename}.part"
                part.write_bytes(path.read_bytes())
                os.replace(part, folder / filename)
                written = str(folder / filename)
            if recipients:
                message = EmailMessage(
                    subject=f"{definition.title}, {_range_text(filters)}",
                    body=(
                        f"{definition.title} for gaming days {_range_text(filters)}, as scheduled in pit "
                        f"({schedule.name}).\n\n{definition.description}\n"
                    ),
                    from_email=settings.DEFAULT_FROM_EMAIL,
                    to=recipients,
                )
                message.attach(filename, path.read_bytes(), CONTENT_TYPES[schedule.format])
                message.send(fail_silently=False)
    except Exception as exc:
        logger.exception("Report schedule %s failed for %s", schedule.pk, run.due_on)
        ReportScheduleRun.objects.filter(pk=run.pk).update(
            status=ScheduleRunStatus.FAILED, finished_at=timezone.now(), error=f"{type(exc).__name__}: {exc}"
        )
    else:
        ReportScheduleRun.objects.filter(pk=run.pk).update(
            status=ScheduleRunStatus.DONE,
            finished_at=timezone.now(),
            file=written,
            sent_to=", ".join(recipients),
        )
    run.refresh_from_db()
    return run


def report_schedules_run(*, now: dt.datetime | None = None) -> list[ReportScheduleRun]:
    """Run every active schedule due at `now` (casino time) that has not run for today: the runs done."""
    now = now or timezone.now()
    local = timezone.localtime(now)
    runs = []
    for schedule in ReportSchedule.objects.filter(active=True).select_related("owner").order_by("pk"):
        if not schedule_due(schedule, local):
            continue
        first, last = schedule_period(schedule.period, now)
        run = _claim(schedule, local.date(), first, last)
        if run is not None:
            runs.append(report_schedule_execute(run=run))
    return runs
