"""Month partitions made ahead, and a month past the retention window archived and detached.

PostgreSQL only (pit.core.partitions); on SQLite there is nothing to partition or detach.
"""

import csv
import datetime as dt
import hashlib
import json
import logging
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction

from pit.archive.models import ArchiveAction, MonthArchive
from pit.core.db import is_postgresql
from pit.core.gaming_day import current_gaming_day
from pit.core.immutable import protect_sql
from pit.core.partitions import (
    KEY,
    PARTITIONED,
    Ensured,
    default_partition,
    month_partitions,
    month_start,
    months_after,
    next_month,
    partitions_ensure_sql,
)
from pit.records.anchors import AnchorError, export_sign, signature_path, signing_key
from pit.records.models import ChainHead
from pit.records.selectors import chains_verify
from pit.shoes.models import Coup, Shoe, ShoeStatus

logger = logging.getLogger(__name__)


class ArchiveRefused(Exception):
    """The month cannot be archived (or dropped) as asked; nothing was written or detached."""


def _require_postgres() -> None:
    if not is_postgresql():
        raise ArchiveRefused("partitions are PostgreSQL's; the embedded SQLite database keeps plain tables")


# ---------------------------------------------------------------------------------------- ahead


def default_months(cursor) -> dict[str, list[str]]:
    held = {}
    for table in PARTITIONED:
        cursor.execute(
            f"SELECT DISTINCT to_char({KEY}, 'YYYY-MM') FROM \"{default_partition(table)}\" ORDER BY 1"  # noqa: S608
        )
        months = [row[0] for row in cursor.fetchall()]
        if months:
            held[table] = months
    return held


def partitions_ensure(*, months_ahead: int | None = None, today: dt.date | None = None) -> Ensured:
    """The partitions of this month and `months_ahead` (PIT_PARTITION_MONTHS_AHEAD) months after it,
    made where missing (safe to run again: it makes none the second time). Rows a DEFAULT partition
    holds (a coup dealt in a month that had no partition: beat down for months, a replay far in the
    past or future) are moved into partitions of their months, made for them, in the same
    transaction (the ensure function: pit/archive/migrations/0002_partitioned_by_month.postgresql.sql);
    logged at WARNING. A month that cannot have its
    partition (an archived month whose detached table is still there) stays in the DEFAULT
    partition and is reported at ERROR."""
    if not is_postgresql():
        return Ensured([], {}, {})
    ahead = settings.PIT_PARTITION_MONTHS_AHEAD if months_ahead is None else months_ahead
    first = month_start(today or current_gaming_day())
    last = months_after(first, ahead)
    with transaction.atomic(), connection.cursor() as cursor:
        ensured = partitions_ensure_sql(cursor, first, last)
    if ensured.moved:
        logger.warning(
            "rows moved out of the DEFAULT partitions into their months' %s: %s", ensured.created, ensured.moved
        )
    if ensured.held_by_default:
        logger.error(
            "rows held by the DEFAULT partition (their month's partition name is taken): %s", ensured.held_by_default
        )
    return ensured


# ---------------------------------------------------------------------------------------- archive


def _copy_out(cursor, table: str, path: Path) -> tuple[int, str]:
    """COPY the table's rows (by id) to a CSV file with a header: its rows and SHA-256."""
    digest = hashlib.sha256()
    with (
        path.open("wb") as out,
        cursor.cursor.copy(
            f'COPY (SELECT * FROM "{table}" ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)'  # noqa: S608
        ) as copy,
    ):
        for chunk in copy:
            data = bytes(chunk)
            out.write(data)
            digest.update(data)
    cursor.execute(f'SELECT count(*) FROM "{table}"')  # noqa: S608
    return cursor.fetchone()[0], digest.hexdigest()


def _file_rows_and_digest(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    with path.open(encoding="utf-8", newline="") as source:
        rows = sum(1 for _ in csv.reader(source)) - 1  # the header
    return rows, digest.hexdigest()


def _verify(directory: Path, manifest: dict) -> None:
    for table, entry in manifest["tables"].items():
        path = directory / entry["file"]
        if not path.exists():
            raise ArchiveRefused(f"{path} is missing: the archive of {table} cannot be verified")
        rows, digest = _file_rows_and_digest(path)
        if (rows, digest) != (entry["rows"], entry["sha256"]):
            raise ArchiveRefused(
                f"{path} does not match its manifest ({rows} rows, sha256 {digest}; "
                f"recorded {entry['rows']} rows, sha256 {entry['sha256']})"
            )


def _detach(cursor, table: str, partition: str, columns: list[str]) -> None:
    """Detach a partition; it stays a table of its own, insert-only, with no foreign key into the
    partitioned tables (which would hold the next detach back) and no check of a key into them."""
    cursor.execute(f'ALTER TABLE "{table}" DETACH PARTITION "{partition}"')
    cursor.execute(
        "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'f' "
        "AND confrelid::regclass::text = ANY(%s)",
        [partition, list(PARTITIONED)],
    )
    for (name,) in cursor.fetchall():
        cursor.execute(f'ALTER TABLE "{partition}" DROP CONSTRAINT "{name}"')
    cursor.execute(
        "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND tgnewtable IS NOT NULL AND NOT tgisinternal",
        [partition],
    )
    for (name,) in cursor.fetchall():
        cursor.execute(f'DROP TRIGGER "{name}" ON "{partition}"')
    for statement in protect_sql("postgresql", table=partition, columns=columns, pk="id"):
        cursor.execute(statement)


def _columns(cursor, table: str) -> list[str]:
    cursor.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped "
        "ORDER BY attnum",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]


# How many of a refused month's broken chains the refusal names (verify_records names them all).
BREAKS_NAMED = 5


def _month_chains(cursor, partitions: dict[str, str]) -> dict[str, dict]:
    """Per shoe with rows in the month's partitions: the runs of consecutive chain positions they
    hold, each with the stored hash of its last row (what the next row still in the database chains
    from), the gaming day of its last archived coup, and its chain head as it stood. What verification
    and the reports read for the month once it is detached (pit.records.selectors.archived_runs)."""
    coups, wagers, entries = (partitions[table] for table in PARTITIONED)
    cursor.execute(
        f"""SELECT shoe_id, chain_seq, chain_hash FROM "{coups}" WHERE chain_seq IS NOT NULL
            UNION ALL SELECT c.shoe_id, w.chain_seq, w.chain_hash FROM "{wagers}" w JOIN "{coups}" c
                ON c.id = w.coup_id WHERE w.chain_seq IS NOT NULL
            UNION ALL SELECT shoe_id, chain_seq, chain_hash FROM "{entries}" WHERE chain_seq IS NOT NULL
            ORDER BY 1, 2"""  # noqa: S608 - partition names from the catalog
    )
    positions: dict[int, list[tuple[int, str]]] = {}
    for shoe_id, seq, chain_hash in cursor.fetchall():
        positions.setdefault(shoe_id, []).append((seq, chain_hash))
    cursor.execute(f'SELECT shoe_id, max({KEY}) FROM "{coups}" GROUP BY shoe_id')  # noqa: S608
    days = dict(cursor.fetchall())
    cursor.execute(f'SELECT DISTINCT shoe_id, {KEY} FROM "{entries}"')  # noqa: S608 - a shoe of entries alone
    for shoe_id, day in cursor.fetchall():
        days[shoe_id] = max(days.get(shoe_id, day), day)
    heads = {
        shoe_id: (length, head)
        for shoe_id, length, head in ChainHead.objects.filter(shoe_id__in=list(positions)).values_list(
            "shoe_id", "length", "head"
        )
    }
    chains = {}
    for shoe_id, rows in positions.items():
        runs: list[list] = []
        for seq, chain_hash in rows:
            if runs and runs[-1][1] == seq - 1:
                runs[-1][1:] = [seq, chain_hash]
            else:
                runs.append([seq, seq, chain_hash])
        length, head = heads.get(shoe_id, (None, None))
        chains[str(shoe_id)] = {"runs": runs, "day": days[shoe_id].isoformat(), "length": length, "head": head}
    return chains


def _chains_hold(cursor, partitions: dict[str, str], month: dt.date) -> None:
    """Refuse the month if a chain of its shoes is broken: an archive seals what it holds, so it
    must not seal a tampered record."""
    cursor.execute(
        f'SELECT shoe_id FROM "{partitions["shoes_coup"]}" UNION '  # noqa: S608 - names from the catalog
        f'SELECT shoe_id FROM "{partitions["ledger_commissionentry"]}" ORDER BY 1'
    )
    shoe_ids = [row[0] for row in cursor.fetchall()]
    result = chains_verify(shoe_ids=shoe_ids)
    if not result.ok:
        named = "; ".join(str(found) for found in result.breaks[:BREAKS_NAMED])
        more = f" (and {len(result.breaks) - BREAKS_NAMED} more)" if len(result.breaks) > BREAKS_NAMED else ""
        raise ArchiveRefused(
            f"the hash chains of {len(result.breaks)} of its {result.shoes} shoes are broken, and an archive would "
            f"seal them: {named}{more}. Nothing was archived; `verify_records --from {month} --to "
            f"{next_month(month) - dt.timedelta(days=1)}` names each"
        )


def _sign_manifest(path: Path) -> None:
    """manifest.json.sig beside the manifest, signed as an export is (pit.records.anchors), when the
    signing key is set. The signature of an earlier attempt that did not complete is replaced."""
    try:
        signing_key()
    except AnchorError:
        logger.warning("PIT_RECORDS_SIGNING_KEY is not set: %s is not signed", path)
        return
    signature_path(path).unlink(missing_ok=True)
    export_sign(path)


def month_archive(*, month: dt.date, operator: str, directory: Path | None = None) -> MonthArchive:
    """Archive a month of gaming days past the retention window: its coups, wagers and commission
    entries COPied to CSV files (a manifest with rows and SHA-256), the files read back and checked,
    then its partitions detached (kept as tables, insert-only) and the step recorded, in one
    transaction. Refused (ArchiveRefused, nothing done) within PIT_RETENTION_MONTHS, with a shoe of
    the month still dealing, with rows of the month in the DEFAULT partition, or archived already."""
    _require_postgres()
    month = month_start(month)
    window_starts = months_after(current_gaming_day(), -settings.PIT_RETENTION_MONTHS)
    if next_month(month) > window_starts:
        raise ArchiveRefused(
            f"{month:%Y-%m} is within the retention window ({settings.PIT_RETENTION_MONTHS} months: "
            f"months before {window_starts:%Y-%m} can be archived)"
        )
    if MonthArchive.objects.filter(month=month, action=ArchiveAction.DETACHED).exists():
        raise ArchiveRefused(f"{month:%Y-%m} was archived already")
    open_shoes = list(
        Shoe.objects.filter(
            status=ShoeStatus.DEALING,
            pk__in=Coup.objects.filter(gaming_day__gte=month, gaming_day__lt=next_month(month)).values("shoe_id"),
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if open_shoes:
        raise ArchiveRefused(f"{month:%Y-%m} has shoes still dealing: {', '.join(map(str, open_shoes))}")
    directory = Path(directory or settings.PIT_ARCHIVE_DIR) / f"{month:%Y-%m}"
    with transaction.atomic(), connection.cursor() as cursor:
        partitions = {}
        for table in PARTITIONED:
            found = month_partitions(cursor, table).get(month)
            if found is None:
                raise ArchiveRefused(f"{table} has no partition for {month:%Y-%m}")
            partitions[table] = found
        held = {table: months for table, months in default_months(cursor).items() if f"{month:%Y-%m}" in months}
        if held:
            raise ArchiveRefused(
                f"rows of {month:%Y-%m} are in the DEFAULT partition of {', '.join(held)}: move them first"
            )
        # No row of the month may be added while it is verified, copied and detached.
        for table in PARTITIONED:
            cursor.execute(f'LOCK TABLE "{partitions[table]}" IN SHARE MODE')
        _chains_hold(cursor, partitions, month)
        directory.mkdir(parents=True, exist_ok=True)
        tables: dict[str, dict[str, str | int]] = {}
        for table in PARTITIONED:
            file = f"{partitions[table]}.csv"
            rows, digest = _copy_out(cursor, partitions[table], directory / file)
            tables[table] = {"partition": partitions[table], "file": file, "rows": rows, "sha256": digest}
        manifest = {
            "month": f"{month:%Y-%m}",
            "format": "csv with header, rows by id",
            "tables": tables,
            "chains": _month_chains(cursor, partitions),
        }
        _verify(directory, manifest)
        (directory / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        _sign_manifest(directory / "manifest.json")
        for table in reversed(PARTITIONED):  # referencing before referenced
            _detach(cursor, table, partitions[table], _columns(cursor, partitions[table]))
        return MonthArchive.objects.create(
            month=month,
            action=ArchiveAction.DETACHED,
            directory=str(directory),
            manifest=manifest,
            operator=operator,
        )


def month_archive_drop(*, month: dt.date, operator: str) -> MonthArchive:
    """Drop the detached tables of an archived month, after reading its files back against the
    manifest and counting the detached tables' rows against it again. Refused if it was not archived."""
    _require_postgres()
    month = month_start(month)
    archived = MonthArchive.objects.filter(month=month, action=ArchiveAction.DETACHED).first()
    if archived is None:
        raise ArchiveRefused(f"{month:%Y-%m} was not archived: archive it first (without --drop)")
    if MonthArchive.objects.filter(month=month, action=ArchiveAction.DROPPED).exists():
        raise ArchiveRefused(f"the detached tables of {month:%Y-%m} were dropped already")
    directory = Path(archived.directory)
    _verify(directory, archived.manifest)
    with transaction.atomic(), connection.cursor() as cursor:
        for entry in archived.manifest["tables"].values():
            cursor.execute(f'SELECT count(*) FROM "{entry["partition"]}"')  # noqa: S608
            (rows,) = cursor.fetchone()
            if rows != entry["rows"]:
                raise ArchiveRefused(f"{entry['partition']} holds {rows} rows; its archive {entry['rows']}")
        for table in reversed(PARTITIONED):
            cursor.execute(f'DROP TABLE "{archived.manifest["tables"][table]["partition"]}"')
        return MonthArchive.objects.create(
            month=month,
            action=ArchiveAction.DROPPED,
            directory=str(directory),
            manifest=archived.manifest,
            operator=operator,
        )


def month_archive_summary(archive: MonthArchive) -> str:
    return "".join(
        f"{table}: {entry['partition']} {entry['rows']} rows, sha256 {entry['sha256']}\n"
        for table, entry in archive.manifest["tables"].items()
    )
