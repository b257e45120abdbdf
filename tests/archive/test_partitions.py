"""Coups, wagers and commission entries partitioned by month of gaming day on PostgreSQL
(pit.core.partitions), made ahead by beat and archived past retention (pit.archive); SQLite keeps
plain tables, with the same gaming day on every wager and entry."""

import csv
import datetime as dt
import hashlib
import json
from contextlib import contextmanager
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Sum

from pit.archive.models import ArchiveAction, MonthArchive
from pit.archive.services import ArchiveRefused, month_archive, month_archive_drop, partitions_ensure
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds, gaming_day_for
from pit.core.partitions import (
    PARTITIONED,
    month_partitions,
    month_start,
    months_after,
    next_month,
    partition_name,
    partitions_ensure_sql,
)
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_collect
from pit.records.selectors import chains_verify
from pit.shoes.models import Coup, CoupCorrection, Shoe, Wager
from pit.shoes.services import coup_correct, shoe_close
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db
postgres = pytest.mark.postgres


def months_back(count: int) -> dt.date:
    return months_after(current_gaming_day(), -count)


def dealt_in(month: dt.date, day: int = 10) -> dt.datetime:
    return gaming_day_bounds(month.replace(day=day))[0] + dt.timedelta(hours=2)


def played_shoe(month: dt.date, *, number: int = 1, table_code: str = "BB1"):
    """A shoe with a coup dealt in `month`: a Banker win at seat 1 (commission accrued), a Player bet at seat 2."""
    shoe = factories.shoe(factories.table(table_code))
    coup = factories.coup(
        shoe,
        number,
        *hands.BANKER_NATURAL,
        dealt_at=dealt_in(month),
        wagers=[
            factories.wager(1, "banker", "100"),
            factories.wager(2, "player", "50"),
        ],
    )
    return shoe, coup


def located(model, **filters) -> set[str]:
    """The partitions holding the rows."""
    table = model._meta.db_table
    with connection.cursor() as cursor:
        ids = list(model.objects.filter(**filters).values_list("pk", flat=True))
        cursor.execute(f'SELECT DISTINCT tableoid::regclass::text FROM "{table}" WHERE id = ANY(%s)', [ids])  # noqa: S608
        return {row[0] for row in cursor.fetchall()}


# ---------------------------------------------------------------------------------------- both databases


def test_wagers_and_entries_carry_the_gaming_day_of_their_coup_reversal_and_shoe():
    month = months_back(1)
    shoe, coup = played_shoe(month)
    assert coup.gaming_day == month.replace(day=10)
    assert sorted(Wager.objects.filter(coup=coup).values_list("seat", "gaming_day")) == [
        (1, month.replace(day=10)),
        (2, month.replace(day=10)),
    ]
    accrual = CommissionEntry.objects.get(kind=EntryKind.ACCRUED)
    assert accrual.gaming_day == month.replace(day=10)
    coup_correct(coup=coup, wagers=(factories.wager(1, "banker", "200"),), reason="misread stake")
    reversal = CommissionEntry.objects.get(kind=EntryKind.REVERSAL)
    assert (reversal.reverses_id, reversal.gaming_day) == (accrual.pk, month.replace(day=10))
    collection = commission_collect(shoe=shoe, seat=1)
    assert collection.gaming_day == gaming_day_for(shoe.shuffled_at)


def test_archive_month_on_sqlite_says_partitions_are_postgresql_s(tmp_path, settings):
    if connection.vendor == "postgresql":
        pytest.skip("the SQLite answer; PostgreSQL's archive is tested below")
    settings.PIT_ARCHIVE_DIR = str(tmp_path)
    with pytest.raises(CommandError, match="partitions are PostgreSQL's"):
        call_command("archive_month", "2019-01")
    assert not MonthArchive.objects.exists() and not any(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------- PostgreSQL


@postgres
def test_coups_wagers_and_entries_are_partitioned_by_gaming_day_with_the_key_in_the_primary_key():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, p.partstrat, a.attname FROM pg_partitioned_table p "
            "JOIN pg_class c ON c.oid = p.partrelid "
            "JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0] ORDER BY c.relname"
        )
        assert cursor.fetchall() == [
            ("ledger_commissionentry", "r", "gaming_day"),
            ("shoes_coup", "r", "gaming_day"),
            ("shoes_wager", "r", "gaming_day"),
        ]
        for table in PARTITIONED:
            cursor.execute(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'p'",
                [table],
            )
            assert cursor.fetchone() == ("PRIMARY KEY (id, gaming_day)",)
            months = month_partitions(cursor, table)
            this_month = month_start(current_gaming_day())
            assert this_month in months and next_month(this_month) in months, months


@postgres
def test_rows_land_in_the_partition_of_their_month():
    month = months_back(1)
    shoe, coup = played_shoe(month)
    assert located(Coup, pk=coup.pk) == {partition_name("shoes_coup", month)}
    assert located(Wager, coup=coup) == {partition_name("shoes_wager", month)}
    assert located(CommissionEntry, shoe=shoe) == {partition_name("ledger_commissionentry", month)}
    # The ORM reads them through the parent as before.
    assert list(Wager.objects.filter(coup=coup).order_by("seat").values_list("seat", "amount_minor")) == [
        (1, 10000),
        (2, 5000),
    ]


def facts() -> dict[str, list[dict]]:
    """Every coup, wager and commission entry, as stored (the partition key and hashes included)."""
    return {
        model._meta.db_table: list(model.objects.order_by("pk").values()) for model in (Coup, Wager, CommissionEntry)
    }


def default_rows() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in PARTITIONED:
            cursor.execute(f'SELECT count(*) FROM "{table}_default"')  # noqa: S608
            counts[table] = cursor.fetchone()[0]
        return counts


def in_the_default(far: dt.date) -> tuple[Shoe, Coup]:
    """A shoe dealt in `far` (no partition): a Banker win accrued, corrected (its accrual reversed,
    a new one); every row in the DEFAULT partitions."""
    shoe, coup = played_shoe(far, table_code="FAR")
    coup_correct(coup=coup, wagers=(factories.wager(1, "banker", "200"),), reason="misread stake")
    assert located(Coup, pk=coup.pk) == {"shoes_coup_default"}
    assert located(Wager, coup__shoe=shoe) == {"shoes_wager_default"}
    assert located(CommissionEntry, shoe=shoe) == {"ledger_commissionentry_default"}
    return shoe, coup


@postgres
def test_rows_held_by_the_default_are_moved_into_their_month_partition_every_fact_kept():
    far = months_after(current_gaming_day(), 36)
    near_shoe, _ = played_shoe(months_back(1))
    shoe, coup = in_the_default(far)
    before = facts()
    held = default_rows()
    assert held == {"shoes_coup": 1, "shoes_wager": 3, "ledger_commissionentry": 3}
    sums = (
        Wager.objects.aggregate(total=Sum("amount_minor"))["total"],
        CommissionEntry.objects.aggregate(total=Sum("amount_minor"))["total"],
    )

    result = partitions_ensure(months_ahead=0)

    assert result.moved == held and result.held_by_default == {}
    # The DEFAULT partitions made anew check the keys into the partitioned tables as the old ones did.
    assert {"shoes_wager_default", "ledger_commissionentry_default"} <= {relation for relation, _ in _key_checks()}
    assert [name for name in result.created if name.endswith(f"{far:%Y_%m}")] == [
        partition_name(table, far) for table in PARTITIONED
    ]
    assert default_rows() == dict.fromkeys(PARTITIONED, 0)
    assert located(Coup, pk=coup.pk) == {partition_name("shoes_coup", far)}
    assert located(Wager, coup__shoe=shoe) == {partition_name("shoes_wager", far)}
    assert located(CommissionEntry, shoe=shoe) == {partition_name("ledger_commissionentry", far)}
    assert located(Coup, shoe=near_shoe) == {partition_name("shoes_coup", months_back(1))}
    # Every fact as it was: ids, gaming days, amounts, chain positions and hashes.
    assert facts() == before
    assert (
        Wager.objects.aggregate(total=Sum("amount_minor"))["total"],
        CommissionEntry.objects.aggregate(total=Sum("amount_minor"))["total"],
    ) == sums
    verification = chains_verify(shoe_ids=[near_shoe.pk, shoe.pk])
    assert (verification.ok, verification.shoes, verification.rows) == (True, 2, 11)
    # The moved month is a partition like the others: insert-only, its keys and checks in force.
    with pytest.raises(IntegrityError, match="DELETE refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'DELETE FROM "{partition_name("shoes_wager", far)}"')  # noqa: S608
    with pytest.raises(IntegrityError, match="TRUNCATE refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute('TRUNCATE "ledger_commissionentry_default"')
    accrual = CommissionEntry.objects.filter(shoe=shoe, kind=EntryKind.ACCRUED).order_by("-pk").first()
    with pytest.raises(IntegrityError, match="violates foreign key constraint"), transaction.atomic():
        CommissionEntry.objects.create(
            shoe=shoe,
            seat=1,
            kind=EntryKind.REVERSAL,
            currency="USD",
            amount_minor=-accrual.amount_minor,
            reverses=accrual,
            gaming_day=months_back(1),
        )
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    coup_correct(coup=coup, wagers=(factories.wager(1, "banker", "300"),), reason="misread again")
    assert located(CommissionEntry, shoe=shoe) == {partition_name("ledger_commissionentry", far)}
    again = partitions_ensure(months_ahead=0)
    assert (again.created, again.moved, again.held_by_default) == ([], {}, {})
    assert chains_verify(shoe_ids=[shoe.pk]).ok


@postgres
def test_a_month_in_the_default_and_in_the_window_gets_its_partition_with_its_rows(settings):
    """Beat down for months: this month had no partition when its coups were dealt."""
    this_month = month_start(current_gaming_day())
    with connection.cursor() as cursor:
        for table in reversed(PARTITIONED):  # as if never made: detached, its name freed
            cursor.execute(f'ALTER TABLE "{table}" DETACH PARTITION "{partition_name(table, this_month)}"')
            cursor.execute(f'ALTER TABLE "{partition_name(table, this_month)}" RENAME TO "{table}_gone"')
            cursor.execute(
                "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f' "
                "AND confrelid::regclass::text = ANY(%s)",
                [f"{table}_gone", list(PARTITIONED)],
            )
            for (name,) in cursor.fetchall():
                cursor.execute(f'ALTER TABLE "{table}_gone" DROP CONSTRAINT "{name}"')
    shoe, coup = played_shoe(this_month, number=1)
    assert located(Coup, pk=coup.pk) == {"shoes_coup_default"}
    out = StringIO()
    call_command("partitions_ensure", "--months", "1", stdout=out)
    assert out.getvalue().splitlines() == [
        *(f"created {partition_name(table, this_month)}" for table in PARTITIONED),
        "moved 1 rows of shoes_coup out of its DEFAULT partition",
        "moved 2 rows of shoes_wager out of its DEFAULT partition",
        "moved 1 rows of ledger_commissionentry out of its DEFAULT partition",
    ]
    assert located(Wager, coup=coup) == {partition_name("shoes_wager", this_month)}
    assert default_rows() == dict.fromkeys(PARTITIONED, 0)


@postgres
def test_a_month_held_by_one_table_s_default_gets_its_partition_in_all_three():
    far = months_after(current_gaming_day(), 30)
    shoe = factories.shoe(factories.table("PW"))
    factories.coup(shoe, 1, *hands.PLAYER_NATURAL, dealt_at=dealt_in(far), wagers=[factories.wager(1, "player", "100")])
    assert default_rows() == {"shoes_coup": 1, "shoes_wager": 1, "ledger_commissionentry": 0}  # no commission
    result = partitions_ensure(months_ahead=0)
    assert result.moved == {"shoes_coup": 1, "shoes_wager": 1}
    with connection.cursor() as cursor:
        assert {table: month_partitions(cursor, table).get(far) for table in PARTITIONED} == {
            table: partition_name(table, far) for table in PARTITIONED
        }


@postgres
def test_rows_of_an_archived_month_stay_in_the_default_and_are_reported(archivable):
    month, shoe, _ = archivable
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    month_archive(month=month, operator="tester")
    late_shoe, late = played_shoe(month, table_code="LATE")  # a replay of an archived month
    far = months_after(current_gaming_day(), 40)
    _, far_coup = played_shoe(far, table_code="FAR")
    result = partitions_ensure(months_ahead=0)
    # The archived month's name is its detached table's: its rows stay in the DEFAULT, said;
    # the other month's are moved.
    assert result.held_by_default == dict.fromkeys(PARTITIONED, [f"{month:%Y-%m}"])
    assert result.moved == {"shoes_coup": 2, "shoes_wager": 4, "ledger_commissionentry": 2}
    assert located(Coup, pk=late.pk) == {"shoes_coup_default"}
    assert located(Coup, pk=far_coup.pk) == {partition_name("shoes_coup", far)}
    with pytest.raises(CommandError, match=f"held by the DEFAULT partition.*shoes_coup: {month:%Y-%m}"):
        call_command("partitions_ensure", "--months", "0")
    assert chains_verify(shoe_ids=[late_shoe.pk]).ok


@postgres
def test_the_beat_makes_months_ahead_once():
    this_month = month_start(current_gaming_day())
    with connection.cursor() as cursor:
        before = month_partitions(cursor, "shoes_coup")
    wanted = [months_after(this_month, count) for count in range(1, 7)]
    missing = [month for month in wanted if month not in before]
    first = partitions_ensure(months_ahead=6)
    assert first.created == [partition_name(table, month) for table in PARTITIONED for month in missing]
    assert missing  # the migration made 3 months ahead, so 4 to 6 are new
    second = partitions_ensure(months_ahead=6)
    assert (second.created, second.held_by_default) == ([], {})
    with connection.cursor() as cursor:
        for table in PARTITIONED:
            assert set(wanted) <= set(month_partitions(cursor, table))
    # A new partition is insert-only like the others, TRUNCATE included.
    with pytest.raises(IntegrityError, match="TRUNCATE refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'TRUNCATE "{partition_name("ledger_commissionentry", wanted[-1])}"')


@postgres
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE {partition} SET amount_minor = 1",
        "DELETE FROM {partition}",
        "TRUNCATE {partition}",
        "UPDATE shoes_wager SET paid_minor = 1",
        "TRUNCATE ledger_commissionentry_default",
        "TRUNCATE shoes_coup CASCADE",
    ],
)
def test_partitions_are_insert_only_too(statement):
    month = months_back(1)
    shoe, _ = played_shoe(month)
    partition = partition_name("ledger_commissionentry", month)
    rows = list(CommissionEntry.objects.order_by("pk").values())
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending checks: TRUNCATE would refuse for them
    with pytest.raises(IntegrityError, match="refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement.format(partition=partition))
    assert list(CommissionEntry.objects.order_by("pk").values()) == rows


@postgres
def test_a_coup_number_stays_unique_in_its_shoe_across_partitions():
    shoe, coup = played_shoe(months_back(1))
    fields = {
        field.attname: getattr(coup, field.attname)
        for field in Coup._meta.concrete_fields
        if field.attname not in ("id", "chain_seq", "chain_hash")
    }
    fields["gaming_day"] = months_back(0)
    fields["dealt_at"] = dealt_in(months_back(0))
    with pytest.raises(IntegrityError, match="coup_number_unique_per_shoe"), transaction.atomic():
        Coup.objects.create(**fields)
    assert Coup.objects.filter(shoe=shoe).count() == 1


@postgres
def test_references_into_partitioned_tables_are_still_checked_at_commit():
    shoe, coup = played_shoe(months_back(1))
    missing = Coup.objects.order_by("-pk").first().pk + 1000
    with pytest.raises(IntegrityError, match="violates foreign key constraint"), transaction.atomic():
        CoupCorrection.objects.create(coup_id=missing, sequence=1, kind="void", reason="no such coup")
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    accrual = CommissionEntry.objects.get(kind=EntryKind.ACCRUED)
    # A reversal lives in the month of the entry it reverses: another day is refused.
    with pytest.raises(IntegrityError, match="violates foreign key constraint"), transaction.atomic():
        CommissionEntry.objects.create(
            shoe=shoe,
            seat=1,
            kind=EntryKind.REVERSAL,
            currency="USD",
            amount_minor=-accrual.amount_minor,
            reverses=accrual,
            gaming_day=accrual.gaming_day + dt.timedelta(days=40),
        )
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    assert not CoupCorrection.objects.exists()
    assert CommissionEntry.objects.filter(kind=EntryKind.REVERSAL).count() == 0


def _insert_wagers(relation: str, coup, rows: list[tuple[int, dt.date]]) -> None:
    """Wagers (coup id, gaming day) at seats 5, 6 ... of `coup`, the rest as its seat-1 wager, in
    one INSERT into `relation`, past the model (as an operator's SQL would come)."""
    template = Wager.objects.filter(coup=coup).order_by("pk").values()[0]
    columns = [name for name in template if name not in ("id", "coup_id", "seat", "gaming_day")]
    values = [
        [coup_id, 5 + index, day, *(template[name] for name in columns)] for index, (coup_id, day) in enumerate(rows)
    ]
    names = ", ".join(f'"{name}"' for name in ["id", "coup_id", "seat", "gaming_day", *columns])
    row_sql = "(nextval(pg_get_serial_sequence('shoes_wager', 'id')), " + ", ".join(["%s"] * (3 + len(columns))) + ")"
    placeholders = ", ".join([row_sql] * len(values))
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{relation}" ({names}) VALUES {placeholders}',  # noqa: S608
            [value for row in values for value in row],
        )


def _key_checks() -> set[tuple[str, str]]:
    """(relation, trigger) of every check of a key into a partitioned table (statement triggers)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE tgnewtable IS NOT NULL AND NOT tgisinternal"
        )
        return set(cursor.fetchall())


@postgres
@pytest.mark.parametrize("through_partition", [False, True])
def test_a_wager_s_coup_must_exist_on_its_day_checked_at_the_statement_s_end(through_partition):
    """Wager -> coup on (id, gaming_day): refused as the foreign key was (SQLSTATE 23503, under its
    name), whether the rows go through the partitioned table or straight into a partition; one
    bad row refuses the statement's every row."""
    month = months_back(1)
    shoe, coup = played_shoe(month)
    relation = partition_name("shoes_wager", month) if through_partition else "shoes_wager"
    before = list(Wager.objects.order_by("pk").values_list("pk", flat=True))
    missing = Coup.objects.order_by("-pk").first().pk + 1000
    day = coup.gaming_day
    for bad in ((missing, day), (coup.pk, day + dt.timedelta(days=1))):  # no such coup; its coup, another day
        with (
            pytest.raises(
                IntegrityError, match=r'violates foreign key constraint "shoes_wager_coup_id_\w+_fk_'
            ) as raised,
            transaction.atomic(),
        ):
            _insert_wagers(relation, coup, [(coup.pk, day), bad])
        assert raised.value.__cause__.sqlstate == "23503"
        assert raised.value.__cause__.diag.message_detail == (
            f'Key (coup_id, gaming_day)=({bad[0]}, {bad[1]}) is not present in table "shoes_coup".'
        )
    assert list(Wager.objects.order_by("pk").values_list("pk", flat=True)) == before
    _insert_wagers(relation, coup, [(coup.pk, day), (coup.pk, day)])
    assert Wager.objects.filter(coup=coup).count() == 4


@postgres
def test_an_entry_s_wager_must_exist_on_its_day():
    month = months_back(1)
    shoe, coup = played_shoe(month)
    accrual = CommissionEntry.objects.get(kind=EntryKind.ACCRUED)
    row = {
        field.column: getattr(accrual, field.attname)
        for field in CommissionEntry._meta.concrete_fields
        if field.column != "id"
    }
    names = ", ".join(f'"{name}"' for name in row)
    for wager_id, day in (
        (accrual.wager_id + 1000, accrual.gaming_day),
        (accrual.wager_id, accrual.gaming_day - dt.timedelta(days=1)),
    ):
        values = {**row, "wager_id": wager_id, "gaming_day": day, "kind": EntryKind.ACCRUED, "seat": 7}
        with (
            pytest.raises(IntegrityError, match=r'foreign key constraint "ledger_commissionentry_wager_id_\w+_fk_'),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(
                f"INSERT INTO ledger_commissionentry ({names}) VALUES ({', '.join(['%s'] * len(row))})",  # noqa: S608
                list(values.values()),
            )
    assert CommissionEntry.objects.count() == 1


@postgres
def test_every_partition_has_the_key_checks_new_ones_too_and_a_detached_one_none(archivable):
    month, shoe, coup = archivable
    entry_check, wager_check = sorted({name for relation, name in _key_checks()})
    assert entry_check.startswith("ledger_commissionentry_wager_id_") and wager_check.startswith("shoes_wager_coup_id_")
    with connection.cursor() as cursor:
        partitions = {table: [*month_partitions(cursor, table).values(), f"{table}_default"] for table in PARTITIONED}
    expected = {(relation, wager_check) for relation in ["shoes_wager", *partitions["shoes_wager"]]} | {
        (relation, entry_check) for relation in ["ledger_commissionentry", *partitions["ledger_commissionentry"]]
    }
    assert _key_checks() == expected
    far = months_after(current_gaming_day(), 9)
    created = partitions_ensure(months_ahead=9).created
    assert partition_name("shoes_wager", far) in created
    assert {
        (partition_name("shoes_wager", far), wager_check),
        (partition_name("ledger_commissionentry", far), entry_check),
    } <= _key_checks()
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    month_archive(month=month, operator="tester")
    assert not {relation for relation, _ in _key_checks()} & {
        partition_name("shoes_wager", month),
        partition_name("ledger_commissionentry", month),
    }


@pytest.fixture
def archivable(settings, tmp_path):
    """A closed shoe with a coup five months back, partitions of that month, retention two months."""
    settings.PIT_RETENTION_MONTHS = 2
    settings.PIT_ARCHIVE_DIR = str(tmp_path)
    month = months_back(5)
    with connection.cursor() as cursor:
        partitions_ensure_sql(cursor, month, month)
    shoe, coup = played_shoe(month)
    return month, shoe, coup


def _attached(month) -> dict[str, str | None]:
    with connection.cursor() as cursor:
        return {table: month_partitions(cursor, table).get(month) for table in PARTITIONED}


@postgres
def test_archive_month_refuses_the_retention_window_and_open_shoes(archivable, tmp_path, settings):
    month, shoe, _ = archivable
    with pytest.raises(ArchiveRefused, match="has shoes still dealing"):
        month_archive(month=month, operator="test")
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    inside = months_back(2)
    with pytest.raises(CommandError, match=f"{inside:%Y-%m} is within the retention window"):
        call_command("archive_month", f"{inside:%Y-%m}")
    with pytest.raises(CommandError, match="is not a month"):
        call_command("archive_month", "2026-13")
    assert not MonthArchive.objects.exists()
    assert not any(tmp_path.iterdir())
    assert all(_attached(month).values())


@postgres
def test_archive_month_copies_verifies_detaches_and_records_then_drops_only_when_asked(archivable, tmp_path):
    month, shoe, coup = archivable
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # the test's own transaction: no pending checks
    wager_ids = sorted(Wager.objects.filter(coup=coup).values_list("pk", flat=True))
    archive = month_archive(month=month, operator="tester")
    directory = tmp_path / f"{month:%Y-%m}"
    assert archive.action == ArchiveAction.DETACHED and archive.directory == str(directory)
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest == archive.manifest
    assert {table: entry["rows"] for table, entry in manifest["tables"].items()} == {
        "shoes_coup": 1,
        "shoes_wager": 2,
        "ledger_commissionentry": 1,
    }
    for entry in manifest["tables"].values():
        data = (directory / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    with (directory / manifest["tables"]["shoes_wager"]["file"]).open(newline="") as source:
        rows = list(csv.DictReader(source))
    assert sorted(int(row["id"]) for row in rows) == wager_ids
    # Detached: the month is out of the tables the pit reads, kept as tables of their own.
    assert _attached(month) == dict.fromkeys(PARTITIONED)
    assert not Coup.objects.filter(pk=coup.pk).exists() and not Wager.objects.filter(pk__in=wager_ids).exists()
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{partition_name("shoes_wager", month)}"')  # noqa: S608
        assert cursor.fetchone() == (2,)
    with pytest.raises(IntegrityError, match="refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f'DELETE FROM "{partition_name("shoes_coup", month)}"')  # noqa: S608
    with pytest.raises(ArchiveRefused, match="archived already"):
        month_archive(month=month, operator="tester")
    # Dropped only when asked, and only after the files check out again.
    (directory / manifest["tables"]["shoes_coup"]["file"]).write_bytes(b"id\n")
    with pytest.raises(ArchiveRefused, match="does not match its manifest"):
        month_archive_drop(month=month, operator="tester")
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [partition_name("shoes_coup", month)])
        assert cursor.fetchone() == (True,)
    (directory / manifest["tables"]["shoes_coup"]["file"]).unlink()
    assert MonthArchive.objects.count() == 1


@postgres
def test_archive_month_command_drops_the_verified_detached_tables(archivable, tmp_path):
    month, shoe, _ = archivable
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with pytest.raises(CommandError, match="was not archived"):
        call_command("archive_month", f"{month:%Y-%m}", "--drop")
    call_command("archive_month", f"{month:%Y-%m}")
    call_command("archive_month", f"{month:%Y-%m}", "--drop")
    assert list(MonthArchive.objects.values_list("action", flat=True)) == ["detached", "dropped"]
    with connection.cursor() as cursor:
        for table in PARTITIONED:
            cursor.execute("SELECT to_regclass(%s)", [partition_name(table, month)])
            assert cursor.fetchone() == (None,)
    assert (tmp_path / f"{month:%Y-%m}" / "manifest.json").exists()
    assert Shoe.objects.filter(pk=shoe.pk).exists()


@pytest.fixture
def runtime_role():
    """The runtime role of a deployment (owns nothing), granted as `manage.py migrate` grants it;
    created in the test's transaction, so it is gone afterwards."""
    from pit.core.immutable import runtime_privileges_sql

    role = f"{connection.settings_dict['NAME']}_runtime"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
        for statement in runtime_privileges_sql(connection, role):
            cursor.execute(statement)
    return role


@contextmanager
def as_role(role):
    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{role}"')
        try:
            yield
        finally:
            cursor.execute("RESET ROLE")


@postgres
def test_the_runtime_role_makes_partitions_only_through_the_owner_s_function(runtime_role):
    month = months_after(current_gaming_day(), 5)
    name = partition_name("shoes_coup", month)
    with as_role(runtime_role):
        with (
            pytest.raises(DatabaseError, match="permission denied|must be owner"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(
                f"CREATE TABLE {name} PARTITION OF shoes_coup FOR VALUES FROM (%s) TO (%s)", [month, next_month(month)]
            )
        result = partitions_ensure(months_ahead=5)
    assert partition_name("shoes_coup", month) in result.created


@postgres
def test_the_runtime_role_moves_rows_out_of_the_default_and_no_other_role_may(runtime_role):
    far = months_after(current_gaming_day(), 36)
    shoe, _ = in_the_default(far)
    before = facts()
    stranger = f"{connection.settings_dict['NAME']}_stranger"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{stranger}" NOLOGIN')
        cursor.execute(f'GRANT USAGE ON SCHEMA public TO "{stranger}"')
        cursor.execute(
            "SELECT has_function_privilege(%s, 'pit_partitions_ensure(date, date)', 'EXECUTE'), "
            "has_function_privilege(%s, 'pit_partitions_ensure(date, date)', 'EXECUTE')",
            [runtime_role, stranger],
        )
        assert cursor.fetchone() == (True, False)
    with as_role(stranger), pytest.raises(DatabaseError, match="permission denied for function"), transaction.atomic():
        partitions_ensure(months_ahead=0)
    with as_role(runtime_role):
        result = partitions_ensure(months_ahead=0)
    assert result.moved == {"shoes_coup": 1, "shoes_wager": 3, "ledger_commissionentry": 3}
    assert facts() == before and default_rows() == dict.fromkeys(PARTITIONED, 0)
    assert chains_verify(shoe_ids=[shoe.pk]).ok


@postgres
def test_the_runtime_role_cannot_archive_a_month(archivable, runtime_role):
    month, shoe, _ = archivable
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("0.00"))])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with as_role(runtime_role), pytest.raises(CommandError, match="must be owner|permission denied"):
        call_command("archive_month", f"{month:%Y-%m}")
    assert all(_attached(month).values())
    assert not MonthArchive.objects.exists()
