"""Scheduled report exports: due by frequency and hour (casino time), covering the gaming days
they name, written to a folder and/or e-mailed (Django's locmem backend here), once per day they
are due whoever calls beat how often, tried again after a failure; refused when they could not run;
kept in the admin by accountants, read by auditors; beat runs them."""

import datetime as dt
from pathlib import Path

import openpyxl
import pytest
from django.conf import settings
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse

from pit.accounts.models import Role
from pit.reports.catalog import REPORTS
from pit.reports.definitions import TOTAL, ReportFilters, report_lines
from pit.reports.models import ReportSchedule, ReportScheduleRun, ScheduleRunStatus
from pit.reports.schedules import report_schedules_run, schedule_due, schedule_period, schedule_problems
from pit.reports.services import report_schedule_save
from tests.reports.conftest import DAY_1, DAY_2

# 3 Nov 2026, 09:00 UTC (the test casino's time): gaming day 3 Nov, so the last complete day is 2 Nov.
MORNING = dt.datetime(2026, 11, 3, 9, 0, tzinfo=dt.UTC)


@pytest.fixture
def folder(tmp_path, settings):
    settings.PIT_REPORT_SCHEDULE_DIR = str(tmp_path / "scheduled")
    return Path(settings.PIT_REPORT_SCHEDULE_DIR)


def _schedule(owner, **fields):
    values = {
        "name": "Daily commission",
        "report": "commission",
        "format": "xlsx",
        "period": "previous_day",
        "frequency": "daily",
        "hour": 8,
        "recipients": "",
        "folder": "",
        "owner": owner,
    }
    values.update(fields)
    return report_schedule_save(schedule=ReportSchedule(**values), user=owner)


def test_due_and_period():
    schedule = ReportSchedule(frequency="weekly", weekday=1, hour=8, active=True)  # Tuesdays
    assert schedule_due(schedule, MORNING)  # 3 Nov 2026 is a Tuesday
    assert not schedule_due(schedule, MORNING.replace(hour=7))
    assert not schedule_due(schedule, MORNING + dt.timedelta(days=1))
    monthly = ReportSchedule(frequency="monthly", day_of_month=3, hour=0, active=True)
    assert schedule_due(monthly, MORNING) and not schedule_due(monthly, MORNING + dt.timedelta(days=1))
    assert schedule_period("previous_day", MORNING) == (DAY_1, DAY_1)
    assert schedule_period("previous_7_days", MORNING) == (dt.date(2026, 10, 27), DAY_1)
    assert schedule_period("month_to_date", MORNING) == (dt.date(2026, 11, 1), DAY_1)
    assert schedule_period("previous_month", MORNING) == (dt.date(2026, 10, 1), dt.date(2026, 10, 31))
    # Before the gaming day starts (06:00), the last complete day is the one before.
    assert schedule_period("previous_day", MORNING.replace(hour=5)) == (DAY_1 - dt.timedelta(days=1),) * 2


def test_a_run_writes_the_folder_and_mails_once(pit, users, folder):
    schedule = _schedule(
        users[Role.ACCOUNTANT], folder="accounting/daily", recipients="controller@casino.example, cfo@casino.example"
    )
    runs = report_schedules_run(now=MORNING)
    assert [(run.status, run.date_from, run.date_to) for run in runs] == [(ScheduleRunStatus.DONE, DAY_1, DAY_1)]
    path = folder / "accounting" / "daily" / "commission_2026-11-02_2026-11-02.xlsx"
    assert runs[0].file == str(path) and path.is_file()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no part file left behind
    sheet = openpyxl.load_workbook(path).worksheets[0]
    header = [cell.value for cell in sheet[1]]
    total = next(row for row in sheet.iter_rows(min_row=2, values_only=True) if row[0] == "total")
    expected = next(
        line.values for line in report_lines(REPORTS["commission"], ReportFilters(DAY_1, DAY_1)) if line.kind == TOTAL
    )
    assert total[header.index("Accrued")] == float(expected["accrued"])
    (message,) = mail.outbox
    assert message.to == ["controller@casino.example", "cfo@casino.example"]
    assert message.subject == "Commission, 2026-11-02"
    assert message.from_email == settings.DEFAULT_FROM_EMAIL
    ((name, content, mimetype),) = message.attachments
    assert name == path.name and content == path.read_bytes()
    assert mimetype == "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    # Beat again, the same day, later: nothing more is written or sent.
    assert report_schedules_run(now=MORNING + dt.timedelta(hours=3)) == []
    assert len(mail.outbox) == 1 and ReportScheduleRun.objects.filter(schedule=schedule).count() == 1
    # The next day it runs again, for the next gaming day.
    (tomorrow,) = report_schedules_run(now=MORNING + dt.timedelta(days=1))
    assert (tomorrow.date_from, tomorrow.status) == (DAY_2, ScheduleRunStatus.DONE)


def test_a_pdf_and_a_csv_by_mail_only(pit, users, folder):
    _schedule(
        users[Role.ACCOUNTANT], name="Sign-off", report="master-game", format="pdf", recipients="a@casino.example"
    )
    _schedule(
        users[Role.ACCOUNTANT], name="Violations", report="violations", format="csv", recipients="b@casino.example"
    )
    runs = report_schedules_run(now=MORNING)
    assert [run.status for run in runs] == [ScheduleRunStatus.DONE] * 2
    assert not folder.exists()  # mail only
    by_subject = {message.subject: message for message in mail.outbox}
    pdf = by_subject["Master game report, 2026-11-02"].attachments[0]
    assert pdf[0] == "master-game_2026-11-02_2026-11-02.pdf" and pdf[1].startswith(b"%PDF-")
    csv_file = by_subject["Violations, 2026-11-02"].attachments[0]
    assert csv_file[2] == "text/csv" and csv_file[1].startswith("\ufeffLine,")  # text: Django decodes it


def test_a_failed_run_is_recorded_and_tried_again(pit, users, folder, monkeypatch):
    schedule = _schedule(users[Role.ACCOUNTANT], recipients="a@casino.example")

    def refuse(self, fail_silently=False):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr("django.core.mail.EmailMessage.send", refuse)
    (run,) = report_schedules_run(now=MORNING)
    assert (run.status, run.error) == (ScheduleRunStatus.FAILED, "ConnectionRefusedError: mail server down")
    assert mail.outbox == []
    monkeypatch.undo()
    (again,) = report_schedules_run(now=MORNING + dt.timedelta(minutes=5))
    assert (again.pk, again.status, again.error) == (run.pk, ScheduleRunStatus.DONE, "")
    assert len(mail.outbox) == 1
    assert ReportScheduleRun.objects.filter(schedule=schedule).count() == 1


def test_schedules_that_could_not_run_are_refused(pit, users, folder):
    accountant, boss = users[Role.ACCOUNTANT], users[Role.PIT_BOSS]
    cases = [
        ({"recipients": "", "folder": ""}, "recipients"),
        ({"folder": "../etc"}, "folder"),
        ({"folder": "/srv/x"}, "folder"),
        ({"recipients": "not an address"}, "recipients"),
        ({"report": "violations", "format": "pdf", "folder": "x"}, "format"),
        ({"report": "nope", "folder": "x"}, "report"),
        ({"frequency": "weekly", "folder": "x"}, "weekday"),
        ({"frequency": "monthly", "day_of_month": 31, "folder": "x"}, "day_of_month"),
        ({"tables": ["ZZ9"], "folder": "x"}, "tables"),
        ({"owner": boss, "folder": "x"}, "owner"),  # a pit boss may not run the commission report
    ]
    for fields, field in cases:
        values = {"owner": accountant, **fields}
        with pytest.raises(ValidationError) as refused:
            _schedule(**values)
        assert field in refused.value.message_dict, (fields, refused.value.message_dict)
    assert ReportSchedule.objects.count() == 0
    assert schedule_problems(ReportSchedule(report="commission", folder="ok/fine", owner=accountant, hour=8)) == {}


def test_beat_runs_the_schedules_on_the_bulk_queue():
    from pit.celery import app
    from pit.reports.tasks import report_schedules_run as task

    entry = settings.CELERY_BEAT_SCHEDULE["reports.report_schedules_run"]
    assert (entry["task"], entry["schedule"]) == ("reports.report_schedules_run", 300)
    assert task.name in app.tasks
    assert next(
        route["reports.report_schedules_run"] for route in settings.CELERY_TASK_ROUTES if isinstance(route, dict)
    ) == {"queue": "bulk"}


def test_the_task_runs_what_is_due(pit, users, folder):
    from pit.reports.tasks import report_schedules_run as task

    _schedule(users[Role.ACCOUNTANT], folder="daily", hour=0)
    assert task.run() == 1  # now: some day after 2 Nov, at or after 00:00
    assert task.run() == 0
    assert len(list((folder / "daily").iterdir())) == 1


def test_the_admin_for_accountants_and_auditors(client, pit, users, folder):
    accountant, auditor = users[Role.ACCOUNTANT], users[Role.AUDITOR]
    client.force_login(accountant)
    add = reverse("admin:reports_reportschedule_add")
    assert client.get(add).status_code == 200
    data = {
        "name": "Daily master game",
        "report": "master-game",
        "format": "pdf",
        "tables": "[]",
        "game": "",
        "period": "previous_day",
        "frequency": "daily",
        "hour": "8",
        "recipients": "controller@casino.example",
        "folder": "",
        "active": "on",
        "runs-TOTAL_FORMS": "0",
        "runs-INITIAL_FORMS": "0",
    }
    refused = client.post(add, {**data, "recipients": "", "folder": ""})
    assert refused.status_code == 200 and ReportSchedule.objects.count() == 0
    assert "the export must go somewhere" in refused.content.decode()
    assert client.post(add, data).status_code == 302
    schedule = ReportSchedule.objects.get()
    assert (schedule.owner, schedule.format, schedule.recipient_list) == (
        accountant,
        "pdf",
        ["controller@casino.example"],
    )
    (run,) = report_schedules_run(now=MORNING)
    assert run.status == ScheduleRunStatus.DONE, run.error
    page = client.get(reverse("admin:reports_reportschedule_change", args=[schedule.pk])).content.decode()
    assert "controller@casino.example" in page and "2026-11-02" in page
    client.force_login(auditor)
    assert client.get(reverse("admin:reports_reportschedule_changelist")).status_code == 200
    assert client.get(add).status_code == 403
    assert (
        client.post(reverse("admin:reports_reportschedule_delete", args=[schedule.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert ReportSchedule.objects.count() == 1
    assert schedule.tables == []
