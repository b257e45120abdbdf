"""A background export run by a real `celery -A pit worker` on Redis and PostgreSQL: requested
through the service (enqueued after commit), written under MEDIA_ROOT/reports/, marked ready."""

import csv
import io
from pathlib import Path

import pytest

from pit.accounts.services import user_create_with_role
from pit.reports.catalog import TABLE_RESULTS
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportExport
from pit.reports.services import report_export_request
from tests import factories
from tests.factories import wager
from tests.jobs.test_worker import broker, not_eager, wait_for, workers  # noqa: F401 - fixtures
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, at

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_worker_writes_the_export_and_marks_it_ready(workers, settings, monkeypatch, tmp_path):  # noqa: F811
    media = tmp_path / "media"
    settings.MEDIA_ROOT = str(media)
    monkeypatch.setenv("DJANGO_MEDIA_ROOT", str(media))  # the worker reads its settings from the environment
    # No commission box here: the ledger is append-only, and the flush after this test must not meet it.
    table = factories.table("NC1", game="mini", preset="no_commission")
    shoe = factories.shoe(table, shuffled_at=at(DAY_1, 9))
    factories.coup(
        shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100"), wager(2, "player", "40")], dealt_at=at(DAY_1, 9, 5)
    )
    accountant = user_create_with_role(username="worker_acc", password="pw-worker-acc-1", role="accountant")
    workers()
    export = report_export_request(
        report=TABLE_RESULTS, filters=ReportFilters(DAY_1, DAY_2), format="csv", user=accountant
    )
    done = wait_for(
        lambda: ReportExport.objects.filter(pk=export.pk, status="done").first(), timeout=60, what="the export"
    )
    assert (done.rows_written, done.rows_estimated, done.file) == (1, 1, f"reports/export-{export.pk}.csv")
    rows = list(csv.DictReader(io.StringIO(Path(media / done.file).read_text(encoding="utf-8-sig"))))
    assert [(row["Line"], row["Table"], row["Handle"], row["House win"]) for row in rows] == [
        ("detail", "NC1", "140.00", "-60.00"),
        ("day subtotal", "", "140.00", "-60.00"),
        ("total", "", "140.00", "-60.00"),
    ]
