"""A background export is queued without counting its rows (over a year the count takes longer
than a request may last); the task counts them first, and progress runs against that count."""

import dataclasses
from pathlib import Path

import pytest

from pit.reports import services
from pit.reports.catalog import COMMISSION, REPORTS
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportExport
from tests.reports.conftest import DAY_1, DAY_2

PAGE = "/admin/pit/reports/"


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


def test_the_request_queues_without_estimating_and_the_task_counts_first(
    client, pit, media, monkeypatch, django_capture_on_commit_callbacks
):
    estimated = []
    estimate = COMMISSION.estimate

    def counting_estimate(filters):
        estimated.append(filters)
        return estimate(filters)

    monkeypatch.setitem(REPORTS, "commission", dataclasses.replace(COMMISSION, estimate=counting_estimate))
    client.force_login(pit.accountant)
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(
            f"{PAGE}export/", {"report": "commission", "from": "2026-11-02", "to": "2026-11-03", "format": "csv"}
        )
    export = ReportExport.objects.get()
    assert response.status_code == 302 and len(callbacks) == 1
    assert (export.status, export.rows_estimated, export.progress_percent, estimated) == ("queued", 0, 0, [])
    status = client.get(f"{PAGE}exports/{export.pk}/").json()
    assert (status["percent"], status["rows_estimated"]) == (0, 0)
    assert b"counting rows" in client.get(PAGE).content

    # The task: the estimate is stored before the first row is written, and the progress saved is
    # counted against it (each save here; the renderer reports at the end of so small a report),
    # 100% once done.
    monkeypatch.setattr(services, "PROGRESS_EVERY", 1)
    seen = []
    write = services.csv_write

    def watched_write(report, filters, out, progress, **options):
        def watching(rows):
            progress(rows)
            row = ReportExport.objects.get(pk=export.pk)
            seen.append((row.rows_written, row.rows_estimated, row.progress_percent))

        assert ReportExport.objects.get(pk=export.pk).rows_estimated == 5
        write(report, filters, out, progress=watching, **options)

    monkeypatch.setattr(services, "csv_write", watched_write)
    for callback in callbacks:
        callback()
    assert estimated == [ReportFilters(DAY_1, DAY_2)]
    assert seen == [(5, 5, 99)]
    done = ReportExport.objects.get(pk=export.pk)
    assert (done.status, done.rows_written, done.rows_estimated, done.progress_percent) == ("done", 5, 5, 100)
