"""Archiving seals only a record that holds: `archive_month` verifies the month's hash chains first,
and afterwards verification and the reports read the heads its archive kept (PostgreSQL)."""

import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from pit.archive.models import MonthArchive
from pit.archive.services import ArchiveRefused, month_archive
from pit.core.partitions import PARTITIONED, month_partitions, partitions_ensure_sql
from pit.ledger.models import BoxCount
from pit.records.anchors import heads_anchor, heads_path
from pit.records.models import ChainHead
from pit.records.selectors import chains_verify, record_heads
from pit.shoes.models import Coup, Wager
from pit.shoes.services import shoe_close
from tests.archive.test_partitions import months_back, played_shoe
from tests.records.test_chain import tamper

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]
KEY = "an-hmac-key-of-the-casino-never-in-the-database"


@pytest.fixture
def closed_month(settings, tmp_path):
    """A closed shoe whose coup was dealt five months back, retention two months, heads signed."""
    settings.PIT_RETENTION_MONTHS = 2
    settings.PIT_ARCHIVE_DIR = str(tmp_path / "archive")
    settings.PIT_RECORDS_SIGNING_KEY = KEY
    settings.PIT_RECORDS_ANCHOR_DIR = str(tmp_path / "anchors")
    month = months_back(5)
    with connection.cursor() as cursor:
        partitions_ensure_sql(cursor, month, month)
    shoe, coup = played_shoe(month)
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("10.00")), (2, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the test's own transaction: no pending checks
    return month, shoe, coup


def _attached(month) -> dict:
    with connection.cursor() as cursor:
        return {table: month_partitions(cursor, table).get(month) for table in PARTITIONED}


def test_a_month_with_a_broken_chain_is_refused_and_nothing_archived(closed_month, tmp_path):
    month, shoe, coup = closed_month
    wager = Wager.objects.filter(coup=coup).order_by("chain_seq").first()
    tamper(f"UPDATE {Wager._meta.db_table} SET amount_minor = 1 WHERE id = %s", [wager.pk])
    with pytest.raises(ArchiveRefused) as refused:
        month_archive(month=month, operator="tester")
    assert str(refused.value).startswith(
        f"the hash chains of 1 of its 1 shoes are broken, and an archive would seal them: shoe {shoe.pk}, "
        f"wager {wager.pk} at position {wager.chain_seq}: its stored hash"
    )
    assert "Nothing was archived; `verify_records --from " in str(refused.value)
    with pytest.raises(CommandError, match=f"{month:%Y-%m} not archived: the hash chains of 1 of its 1 shoes"):
        call_command("archive_month", f"{month:%Y-%m}")
    assert not MonthArchive.objects.exists()
    assert not (tmp_path / "archive").exists()
    assert all(_attached(month).values())
    assert Coup.objects.filter(pk=coup.pk).exists()


def test_an_archived_month_verifies_from_the_heads_its_archive_kept_and_says_so(closed_month, tmp_path):
    month, shoe, coup = closed_month
    day = coup.gaming_day
    head = ChainHead.objects.get(shoe=shoe)
    (anchored,) = heads_anchor(days=[day])
    heads_before = record_heads(first_day=day, last_day=day)
    archive = month_archive(month=month, operator="tester")
    archived_positions = 1 + 2 + 1  # the coup, its two wagers, the banker wager's accrual
    assert archive.manifest["chains"] == {
        str(shoe.pk): {
            "runs": [[1, archived_positions, archive.manifest["chains"][str(shoe.pk)]["runs"][0][2]]],
            "day": day.isoformat(),
            "length": head.length,
            "head": head.head,
        }
    }
    assert not Coup.objects.filter(pk=coup.pk).exists()
    # Verification: the rows still in the database chain from the archive's kept hash.
    result = chains_verify(shoe_ids=[shoe.pk])
    in_database = head.length - archived_positions
    assert (result.ok, result.rows, result.archived) == (True, in_database, {shoe.pk: [f"{month:%Y-%m}"]})
    out = io.StringIO()
    call_command("verify_records", "--from", str(day), stdout=out)
    assert out.getvalue().startswith(f"OK {day} to {day}: 1 shoes, {head.length - archived_positions} rows verified")
    assert f"(1 shoes with rows archived in {month:%Y-%m}: read from the heads their archives kept" in out.getvalue()
    # The reports keep the day's heads, and say where its rows went.
    assert record_heads(first_day=day, last_day=day) == [{**heads_before[0], "archived": [f"{month:%Y-%m}"]}]
    # Anchors taken before the archive still hold, and so does the archive's own signed manifest.
    manifest = tmp_path / "archive" / f"{month:%Y-%m}" / "manifest.json"
    for against in (anchored.path, manifest):
        out = io.StringIO()
        call_command("verify_records", "--against", str(against), stdout=out)
        assert out.getvalue().startswith("OK anchored shoes: 1 shoes")
    assert json.loads(manifest.read_text()) == archive.manifest
    # A row still in the database edited after the archive is found as before.
    box = BoxCount.objects.filter(shoe=shoe).order_by("chain_seq").first()
    tamper(f"UPDATE {BoxCount._meta.db_table} SET counted_minor = 0 WHERE id = %s", [box.pk])
    (found,) = chains_verify(shoe_ids=[shoe.pk]).breaks
    assert (found.kind, found.row_id, found.seq) == ("box_count", box.pk, archived_positions + 1)
    assert heads_path(day).exists()
