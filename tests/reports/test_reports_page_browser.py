"""The reports page in headless Chromium: a background export's progress is polled and its
download link appears without a reload; the file comes through the permission-checked view."""

import datetime as dt
from pathlib import Path

import pytest

from pit.accounts.services import user_create_with_role
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportExport
from pit.reports.services import report_export_run
from tests.browser.conftest import admin_login, browser_page  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def test_a_background_export_turns_ready_on_the_page(browser_page, admin_login, role_groups, settings, tmp_path):  # noqa: F811
    settings.MEDIA_ROOT = str(tmp_path / "media")
    accountant = user_create_with_role(username="counting", password="a-counting-password-1", role="accountant")
    export = ReportExport.objects.create(
        report="violations",
        format="csv",
        requested_by=accountant,
        rows_estimated=0,
        filters=ReportFilters(dt.date(2026, 11, 1), dt.date(2026, 12, 31)).to_dict(),
    )
    page = browser_page
    admin_login(page, "counting", "a-counting-password-1")
    page.goto("/admin/pit/reports/")
    row = page.locator(f"#export-{export.pk}")
    assert row.locator(".export-status").inner_text() == "Queued"
    assert row.locator(".export-download a").count() == 0

    report_export_run(export_id=export.pk)  # what the Celery worker does
    row.locator(".export-download a").wait_for()
    assert row.locator(".export-status").inner_text() == "Ready"
    with page.expect_download() as download:
        row.locator(".export-download a").click()
    path = download.value.path()
    assert download.value.suggested_filename == "violations_2026-11-01_2026-12-31.csv"
    assert Path(path).read_text(encoding="utf-8-sig").startswith("Line,Gaming day,Table,Game,Code")
