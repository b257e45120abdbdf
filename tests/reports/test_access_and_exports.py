"""The reports page, downloads, background exports and the JSON API: who may run what, and how."""

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from django.contrib.auth import get_user_model

from pit.accounts.services import device_create
from pit.reports.catalog import COMMISSION
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportExport
from pit.reports.renderers import csv_chunks
from pit.reports.tasks import report_export_run
from tests.reports.conftest import DAY_1, DAY_2

PAGE = "/admin/pit/reports/"
EXPORT = "/admin/pit/reports/export/"
RANGE = {"from": "2026-11-02", "to": "2026-11-03"}


def streamed(response) -> bytes:
    return b"".join(response.streaming_content)


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


# ------------------------------------------------------------------------------------ the page


def test_anonymous_users_are_sent_to_the_admin_login(client, db):
    response = client.get(PAGE)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=/admin/pit/reports/")
    response = client.post(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    assert response.status_code == 302 and not ReportExport.objects.exists()


def test_staff_without_a_reporting_role_get_403(client, db):
    clerk = get_user_model().objects.create_user("clerk", password="pw", is_staff=True)
    client.force_login(clerk)
    assert client.get(PAGE).status_code == 403


def test_accountants_see_the_totals_inside_the_admin(client, pit):
    client.force_login(pit.accountant)
    response = client.get(PAGE, {"report": "commission", **RANGE})
    assert response.status_code == 200
    assert "admin/base_site.html" in [template.name for template in response.templates]
    assert response.context["site_header"]  # admin.site.each_context
    summary = response.context["summary"]
    (total,) = summary["totals"]
    labels = [column.label for column in summary["columns"]]
    assert total["rows"] == 5
    assert dict(zip(labels, total["cells"], strict=True))["Accrued"] == "$102.00"
    assert dict(zip(labels, total["cells"], strict=True))["Variance (counted - expected)"] == "-$5.00"
    assert b"$102.00" in response.content and b"Download XLSX" in response.content


def test_pit_bosses_may_run_table_results_but_not_commission(client, pit, users):
    client.force_login(users["pit boss"])
    page = client.get(PAGE)
    assert [slug for slug, _ in page.context["form"].fields["report"].choices] == [
        "table-results",
        "violations",
        "patron-day",
        "top-patrons",
        "rating-accuracy",
        "play-by-nationality",
        "card-reconciliation",
        "key-log",
        "limit-changes",
        "surveillance-notifications",
    ]
    assert client.get(PAGE, {"report": "table-results", **RANGE}).status_code == 200
    assert client.get(PAGE, {"report": "commission", **RANGE}).status_code == 200  # not offered: form error
    assert client.get(EXPORT, {"report": "table-results", **RANGE, "format": "csv"}).status_code == 200
    response = client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    assert response.status_code == 403
    response = client.post(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    assert response.status_code == 403 and not ReportExport.objects.exists()


def test_no_totals_on_screen_for_too_many_rows(client, pit, monkeypatch):
    from pit.reports import views

    monkeypatch.setattr(views, "SUMMARY_MAX_ROWS", 4)
    client.force_login(pit.accountant)
    page = client.get(PAGE, {"report": "commission", **RANGE})  # 5 seats counted
    assert page.context["too_many"] and page.context["summary"] is None
    assert b"too many to total on screen" in page.content


def test_auditors_may_run_commission(client, pit, users):
    client.force_login(users["auditor"])
    assert client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"}).status_code == 200


def test_short_ranges_download_at_once_as_csv_and_xlsx(client, pit):
    client.force_login(pit.accountant)
    response = client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv", "tables": ["BB1"]})
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="commission_2026-11-02_2026-11-03.csv"'
    rows = list(csv.DictReader(io.StringIO(streamed(response).decode().removeprefix("\ufeff"))))
    assert rows[-1]["Accrued"] == "102.00"
    response = client.get(EXPORT, {"report": "commission", **RANGE, "format": "xlsx"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = openpyxl.load_workbook(io.BytesIO(streamed(response))).worksheets[0]
    assert sheet.cell(sheet.max_row, 1).value == "total"
    assert not ReportExport.objects.exists()


def test_a_bad_request_writes_nothing_and_queues_nothing(client, pit, django_capture_on_commit_callbacks):
    client.force_login(pit.accountant)
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(
            EXPORT, {"report": "commission", "from": "2026-11-03", "to": "2026-11-02", "format": "csv"}
        )
    assert response.status_code == 302 and callbacks == [] and not ReportExport.objects.exists()


# ------------------------------------------------------------------------------------ background exports


def test_long_ranges_are_exported_in_the_background(client, pit, media, settings, django_capture_on_commit_callbacks):
    settings.PIT_REPORT_INLINE_MAX_DAYS = 1
    client.force_login(pit.accountant)
    # Downloading two gaming days at once is refused: the page offers the background export.
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv", "tables": ["BB1"]})
    assert callbacks == [] and not ReportExport.objects.exists()
    assert response.status_code == 302
    assert response["Location"] == f"{PAGE}?report=commission&from=2026-11-02&to=2026-11-03&tables=BB1"
    page = client.get(response["Location"])
    assert page.context["background_fields"] == [
        ("report", "commission"),
        ("from", "2026-11-02"),
        ("to", "2026-11-03"),
        ("game", ""),
        ("tables", "BB1"),
    ]
    assert b'id="background-export"' in page.content
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    assert len(callbacks) == 1
    export = ReportExport.objects.get()
    assert response.status_code == 302 and response["Location"] == f"{PAGE}#export-{export.pk}"
    assert (export.status, export.rows_written, export.rows_estimated, export.file) == (
        "done",
        5,
        5,
        f"reports/export-{export.pk}.csv",
    )
    written = (media / export.file).read_bytes()
    assert written == b"".join(csv_chunks(COMMISSION, ReportFilters(DAY_1, DAY_2)))
    status = client.get(f"{PAGE}exports/{export.pk}/").json()
    assert status["status"] == "done" and status["percent"] == 100
    assert status["download_url"] == f"{PAGE}exports/{export.pk}/download/"
    download = client.get(status["download_url"])
    assert download.status_code == 200 and b"".join(download.streaming_content) == written
    assert download["Content-Disposition"] == 'attachment; filename="commission_2026-11-02_2026-11-03.csv"'
    # The page lists it; a summary is not computed on screen for so long a range.
    page = client.get(PAGE, {"report": "commission", **RANGE})
    assert page.context["too_long"] and page.context["summary"] is None
    assert b"csrfmiddlewaretoken" in page.content  # only in the background (POST) form
    assert f'id="export-{export.pk}"'.encode() in page.content
    # Running the task again changes nothing.
    before = (media / export.file).stat().st_mtime_ns
    assert report_export_run(export.pk) == export.pk
    assert (media / export.file).stat().st_mtime_ns == before
    assert sorted(path.name for path in (media / "reports").iterdir()) == [f"export-{export.pk}.csv"]


def test_an_export_is_rewritten_when_its_file_is_gone(pit, media, users):
    export = ReportExport.objects.create(
        report="table-results",
        format="xlsx",
        filters=ReportFilters(DAY_1, DAY_2).to_dict(),
        requested_by=users["pit boss"],
        status="done",
        file="reports/export-missing.xlsx",
    )
    report_export_run(export.pk)
    export.refresh_from_db()
    assert export.status == "done" and export.rows_written == 3
    sheet = openpyxl.load_workbook(media / export.file).worksheets[0]
    kinds = [sheet.cell(row, 1).value for row in range(2, sheet.max_row + 1)]
    assert kinds[-7:] == ["total"] + ["bridge"] * 6  # the bridge to the commission report: MB1 deducts


def test_downloads_are_only_for_who_asked(client, pit, media, users, settings):
    export = ReportExport.objects.create(
        report="commission",
        format="csv",
        filters=ReportFilters(DAY_1, DAY_2).to_dict(),
        requested_by=pit.accountant,
    )
    report_export_run(export.pk)
    client.force_login(users["auditor"])
    assert client.get(f"{PAGE}exports/{export.pk}/download/").status_code == 404
    assert client.get(f"{PAGE}exports/{export.pk}/").status_code == 404
    client.logout()
    assert client.get(f"{PAGE}exports/{export.pk}/download/").status_code == 302
    # Not served as media either: MEDIA_URL is not routed.
    assert client.get(f"/media/{export.file}").status_code in (302, 404)


def test_old_export_files_are_purged_and_the_rows_kept(client, pit, media, settings):
    import datetime as dt

    from django.utils import timezone

    from pit.reports.tasks import report_exports_purge

    settings.PIT_REPORT_EXPORT_KEEP_DAYS = 7
    old, recent = (
        ReportExport.objects.create(
            report="commission",
            format="csv",
            filters=ReportFilters(DAY_1, DAY_2).to_dict(),
            requested_by=pit.accountant,
        )
        for _ in range(2)
    )
    for export in (old, recent):
        report_export_run(export.pk)
        export.refresh_from_db()
    ReportExport.objects.filter(pk=old.pk).update(finished_at=timezone.now() - dt.timedelta(days=8))

    assert report_exports_purge() == 1
    assert report_exports_purge() == 0  # twice: nothing more

    old.refresh_from_db()
    assert (old.status, old.file) == ("expired", "")
    assert sorted(path.name for path in (media / "reports").iterdir()) == [f"export-{recent.pk}.csv"]
    client.force_login(pit.accountant)
    assert client.get(f"{PAGE}exports/{old.pk}/download/").status_code == 404
    assert client.get(f"{PAGE}exports/{recent.pk}/download/").status_code == 200


# ------------------------------------------------------------------------------------ the JSON API

API = "/api/v1/reports/"


def test_api_returns_the_commission_report_with_money_as_strings(client, pit):
    client.force_login(pit.accountant)
    response = client.get(f"{API}commission/", {**RANGE, "tables": "BB1,MB1"})
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = json.loads(streamed(response))
    assert body["filters"]["tables"] == ["BB1", "MB1"]
    assert [row["line"] for row in body["rows"]].count("detail") == 5
    assert body["totals"][0]["accrued"] == "102.00"
    assert Decimal(body["totals"][0]["variance"]) == Decimal("-5.00")


def test_api_table_results_and_violations(client, pit, users):
    client.force_login(users["pit boss"])
    body = json.loads(streamed(client.get(f"{API}table-results/", RANGE)))
    assert body["totals"][0]["house_win"] == "-2003.00"  # the 5.00 reversal is commission not owed
    assert body["totals"][0]["hold"] == "-71.9210"
    body = json.loads(streamed(client.get(f"{API}violations/", {**RANGE, "game": "mini"})))
    assert [row["code"] for row in body["rows"] if row["line"] == "detail"] == ["payout_mismatch"]
    assert client.get(f"{API}commission/", RANGE).status_code == 403


def test_api_refuses_bad_filters_and_long_ranges(client, pit, settings):
    client.force_login(pit.accountant)
    response = client.get(f"{API}commission/", {"from": "2026-11-02", "to": "yesterday"})
    # (The error body's shape is the API's error handler's; the field and the message are in it.)
    assert response.status_code == 400 and "Enter a valid date." in response.content.decode()
    assert client.get(f"{API}commission/", {**RANGE, "tables": "NOPE"}).status_code == 400
    settings.PIT_REPORT_INLINE_MAX_DAYS = 1
    response = client.get(f"{API}commission/", RANGE)
    assert response.status_code == 400 and "at most 1 gaming days" in json.dumps(response.json())


def test_api_refuses_anonymous_callers_and_floor_devices(client, pit):
    assert client.get(f"{API}commission/", RANGE).status_code == 401
    _, key = device_create(table=pit.bb1, name="shoe reader")
    for report in ("commission", "table-results", "violations"):
        response = client.get(f"{API}{report}/", RANGE, HTTP_AUTHORIZATION=f"Api-Key {key}")
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"


def test_api_refuses_staff_without_a_reporting_role(client, db):
    clerk = get_user_model().objects.create_user("clerk", password="pw", is_staff=True)
    client.force_login(clerk)
    response = client.get(f"{API}violations/", RANGE)
    assert response.status_code == 403 and "may not run the Violations report" in response.content.decode()


def test_running_a_report_only_reads(pit):
    """Reports never write: every statement a report sends is a read."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import report_lines

    with CaptureQueriesContext(connection) as queries:
        for report in REPORTS.values():
            list(report_lines(report, ReportFilters(DAY_1, DAY_2)))
    statements = [query["sql"].lstrip().split(None, 1)[0].upper() for query in queries.captured_queries]
    assert statements and set(statements) <= {"SELECT", "DECLARE", "FETCH", "CLOSE", "WITH"}


def test_api_refuses_days_outside_the_calendar_it_can_bound(client, pit):
    client.force_login(pit.accountant)
    response = client.get(f"{API}commission/", {"from": "9999-12-30", "to": "9999-12-31"})
    assert response.status_code == 400 and "Gaming days run from 1900-01-01 to 9998-12-31" in response.content.decode()


def test_inline_or_background_is_decided_by_estimated_rows(client, pit, settings, django_capture_on_commit_callbacks):
    """Two gaming days are well within the days allowed, but more rows than allowed at once."""
    settings.PIT_REPORT_INLINE_MAX_ROWS = 4
    client.force_login(pit.accountant)
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    assert response.status_code == 302 and callbacks == [] and not ReportExport.objects.exists()
    page = client.get(response["Location"])
    assert page.context["too_long"] and page.context["summary"] is None
    assert "holds about 5 rows, more than the 4 written at once" in page.context["background_reason"]
    settings.PIT_REPORT_INLINE_MAX_ROWS = 5
    assert client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"}).status_code == 200


def test_the_page_shows_the_rows_paginated_with_links(client, pit, monkeypatch):
    """The rows on screen, not only the totals: a commission row leads to its reconciliation, a
    table-day to the shoes dealt that day at that table."""
    from pit.reports import views

    monkeypatch.setattr(views, "ROWS_PER_PAGE", 2)
    client.force_login(pit.accountant)
    first = client.get(PAGE, {"report": "commission", **RANGE}).context["rows"]
    assert (first["page"], first["pages"], first["rows"]) == (1, 3, 5)
    assert [line["kind"] for line in first["lines"]] == ["detail", "detail"]
    reconciliation = pit.shoe_a.reconciliation
    assert first["lines"][0]["link"] == f"/admin/ledger/reconciliation/{reconciliation.pk}/change/"
    second = client.get(PAGE, {"report": "commission", **RANGE, "page": "2"})
    assert [line["kind"] for line in second.context["rows"]["lines"]] == ["detail", "detail", "shoe subtotal"]
    assert b"page 2 of 3" in second.content and b"&amp;page=3" in second.content
    html = second.content.decode()
    subtotal = second.context["rows"]["lines"][-1]["cells"]
    assert 'id="report-rows"' in html and f'<td class="number">{subtotal[-9]["text"]}</td>' in html

    results = client.get(PAGE, {"report": "table-results", **RANGE}).context["rows"]
    link = results["lines"][0]["link"]
    assert link == f"/admin/shoes/shoe/?table__id__exact={pit.bb1.pk}&dealt_on=2026-11-02"
    shoes = client.get(link).context["cl"].result_list
    assert [shoe.pk for shoe in shoes] == [pit.shoe_a.pk]
