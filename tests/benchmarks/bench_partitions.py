"""Benchmark: what partitioning by month costs on writes. The same realistic coups, wagers and
commission entries written through the services into the partitioned tables, and into plain
(unpartitioned) copies of them, on PostgreSQL.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres PIT_BENCH_PARTITIONS_DB=pit_bench_partitions \
        .venv/bin/python tests/benchmarks/bench_partitions.py

Creates the database `pit_bench_partitions` (PIT_BENCH_PARTITIONS_DB; dropped first and at the
end) and migrates it: coups, wagers and commission entries are partitioned by month of gaming day
(pit.core.partitions). Beside each of the three it makes a plain table with `CREATE TABLE ...
(LIKE ... INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES INCLUDING IDENTITY)`, with what
the schema had before partitioning: the insert-only triggers, the foreign keys (wager -> coup,
entry -> wager, which the partitioned tables check per statement, and to the shoe, paytable, user,
device), the check that a reversal reverses an
entry of its day, and a coup's number unique in its shoe as a unique index (the partitioned table
needs a trigger for it). The keys are the partitioned tables' own, (id, gaming_day), so what
differs is the partitioning alone: rows routed to their month's partition and the checks the
partitioned schema does by trigger.

The floor simulator's dealer (`pit.floor.simulator.Dealer`, as bench_batch.py deals a table's day)
deals PIT_BENCH_PARTITIONS_COUPS coups (default 1,600) at a 7-seat commission-box table, shoe
after shoe, into memory: shoes, coups in batches of 25 (several bets a seat, side bets, players
coming and going), commission collections, shoe closes with the box counts. Then the same play once
into each, not timed (a warm-up: caches, plans, the tables not empty), and, interleaved,
PIT_BENCH_PARTITIONS_ROUNDS times (default 5, median of each; both sets ANALYZEd before each
round), the same play is written at a fresh
table through the services the API calls (`pit.floor.clients.ServicesFloorClient`: `shoe_start`,
`coups_record`, `commission_collect`, `shoe_close`), once into the partitioned tables and once
into the plain ones (swapped in under the same names by renaming, in one transaction, between
rounds). Prints `partitions.partitioned` and `partitions.plain` (s, median), `partitions.ratio`
(partitioned / plain) and `partitions.paired_ratio` (the median of each round's ratio, its two
plays back to back), and the rows written. Asserts nothing about time; it checks that both wrote
the same rows. Skips with a message when PostgreSQL cannot be reached.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_PARTITIONS_DB", "pit_bench_partitions")
COUPS = int(os.environ.get("PIT_BENCH_PARTITIONS_COUPS", 1600))
ROUNDS = max(1, int(os.environ.get("PIT_BENCH_PARTITIONS_ROUNDS", 5)))
SEATS = (1, 2, 3, 5, 6, 7, 8)
LIMITS = {"player": (25, 10000), "banker": (25, 10000), "tie": (5, 1000)}
TABLES = ("shoes_coup", "shoes_wager", "ledger_commissionentry")


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def database_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def recreate_database(drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{BENCH_DB}"')


def setup_django(scratch: str) -> None:
    os.environ["DATABASE_URL"] = database_url(BENCH_DB)
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_BROKER_URL"] = "filesystem://"  # the checks queued, not run: the worker's time
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "False"
    os.environ["PIT_VAR_DIR"] = scratch
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, check=True)
    import django

    django.setup()


# ------------------------------------------------------------------------------------ the play
class Recorder:
    """A FloorClient that keeps what the dealer does, to be played again through the services."""

    def __init__(self):
        self.calls: list[tuple] = []
        self.shoes = 0

    def shoe_start(self, code, **kwargs):
        self.shoes += 1
        self.calls.append(("shoe_start", self.shoes, kwargs))
        return self.shoes, self.shoes

    def coups_record(self, shoe_id, coups):
        self.calls.append(("coups_record", shoe_id, list(coups)))
        return [0] * len(coups)

    def commission_collect(self, shoe_id, seat):
        self.calls.append(("commission_collect", shoe_id, seat))

    def shoe_close(self, shoe_id, counts, closed_at):
        self.calls.append(("shoe_close", shoe_id, counts, closed_at))


def dealt(day: dt.date) -> list[tuple]:
    """COUPS coups of one table's day as the simulator deals them: the calls a floor would make."""
    from pit import game
    from pit.floor.simulator import FAULT_KINDS, Clock, Dealer, SimulationResult, TableSetup

    limits = {bet: (Decimal(low), Decimal(high)) for bet, (low, high) in LIMITS.items()}
    setup = TableSetup("DAY", SEATS, "USD", game.PRESETS["commission_box"], limits)
    recorder = Recorder()
    dealer = Dealer(
        recorder,
        setup,
        rng=random.Random("bench-partitions"),
        faults=dict.fromkeys(FAULT_KINDS, 0.0),
        result=SimulationResult(),
        seats_occupied=len(SEATS),
    )
    start = dt.datetime.combine(day, dt.time(6, 30), dt.UTC)
    clock = Clock(start, dt.timedelta(hours=23) / COUPS, start + dt.timedelta(hours=23))
    while sum(len(call[2]) for call in recorder.calls if call[0] == "coups_record") < COUPS:
        dealer.play_shoe(clock)
    return recorder.calls


def new_tables(codes: list[str]) -> None:
    from pit.paytables.services import paytable_create_from_preset
    from pit.tables.services import table_create, table_open

    limits = {bet: (Decimal(low), Decimal(high)) for bet, (low, high) in LIMITS.items()}
    paytable = paytable_create_from_preset(preset="commission_box")
    for code in codes:
        table_open(
            table=table_create(
                code=code, name=f"Mini {code}", game="mini", limits=limits, seats=list(SEATS), paytable=paytable
            )
        )


def play(calls: list[tuple], code: str) -> float:
    """The recorded play at table `code`, through the services; seconds."""
    from pit.floor.clients import ServicesFloorClient

    client = ServicesFloorClient()
    shoes: dict[int, int] = {}
    started = time.perf_counter()
    for call in calls:
        if call[0] == "shoe_start":
            shoes[call[1]] = client.shoe_start(code, **call[2])[0]
        elif call[0] == "coups_record":
            client.coups_record(shoes[call[1]], call[2])
        elif call[0] == "commission_collect":
            client.commission_collect(shoes[call[1]], call[2])
        else:
            client.shoe_close(shoes[call[1]], call[2], call[3])
    return time.perf_counter() - started


def written(code: str) -> tuple[int, int, int, int, int]:
    """Coups, wagers, commission entries, and the sums of the wagers and entries, of table `code`."""
    from django.db.models import Sum

    from pit.ledger.models import CommissionEntry
    from pit.shoes.models import Coup, Wager

    coups = Coup.objects.filter(shoe__table__code=code)
    wagers = Wager.objects.filter(coup__shoe__table__code=code)
    entries = CommissionEntry.objects.filter(shoe__table__code=code)
    return (
        coups.count(),
        wagers.count(),
        entries.count(),
        wagers.aggregate(s=Sum("amount_minor"))["s"],
        entries.aggregate(s=Sum("amount_minor"))["s"],
    )


# ------------------------------------------------------------------------------------ plain tables
def make_plain_tables() -> None:
    """Beside each partitioned table, `<table>__plain`: unpartitioned, as the schema was before."""
    from django.db import connection, transaction

    from pit.core.immutable import protect_sql
    from pit.core.partitions import CHECKED_REFERENCES, COMPOSITE_KEYS, reference_check_sql

    with transaction.atomic(), connection.cursor() as cursor:
        for table in TABLES:
            plain = f"{table}__plain"
            cursor.execute(
                f'CREATE TABLE "{plain}" (LIKE "{table}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS '
                f"INCLUDING INDEXES INCLUDING IDENTITY)"
            )
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, 'id'), nextval(pg_get_serial_sequence(%s, 'id')))",
                [plain, table],
            )
            cursor.execute(
                "SELECT conname, pg_get_constraintdef(oid), confrelid::regclass::text FROM pg_constraint "
                "WHERE conrelid = %s::regclass AND contype = 'f' AND conparentid = 0 ORDER BY conname",
                [table],
            )
            for name, definition, target in cursor.fetchall():
                if target in TABLES:
                    definition = definition.replace(f"REFERENCES {target}(", f'REFERENCES "{target}__plain"(')
                cursor.execute(f'ALTER TABLE "{plain}" ADD CONSTRAINT "{name}" {definition}')
            for (source, column), target in COMPOSITE_KEYS.items():
                if source == table:  # checked per statement when partitioned; a foreign key before
                    cursor.execute(
                        "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass "
                        "AND tgnewtable IS NOT NULL AND NOT tgisinternal",
                        [table],
                    )
                    (name,) = cursor.fetchone()
                    cursor.execute(
                        f'ALTER TABLE "{plain}" ADD CONSTRAINT "{name}" FOREIGN KEY ({column}, gaming_day) '
                        f'REFERENCES "{target}__plain" (id, gaming_day) DEFERRABLE INITIALLY DEFERRED'
                    )
            for (source, column), (target, same_day) in CHECKED_REFERENCES.items():
                if source == table:  # the trigger names the table: the plain one once swapped in
                    cursor.execute(
                        "SELECT t.tgname FROM pg_trigger t JOIN pg_constraint c ON c.oid = t.tgconstraint "
                        "WHERE t.tgrelid = %s::regclass AND c.contype = 't' AND %s = ANY (SELECT attname FROM "
                        "pg_attribute WHERE attrelid = t.tgrelid AND attnum = ANY (t.tgattr))",
                        [table, column],
                    )
                    for (name,) in cursor.fetchall():
                        for statement in reference_check_sql(plain, column, target, same_day, name):
                            cursor.execute(statement)
            if table == "shoes_coup":
                cursor.execute(f'CREATE UNIQUE INDEX "{plain}_number" ON "{plain}" (shoe_id, number)')
            cursor.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped "
                "ORDER BY attnum",
                [plain],
            )
            columns = [row[0] for row in cursor.fetchall()]
            for statement in protect_sql("postgresql", table=plain, columns=columns, pk="id"):
                cursor.execute(statement)


def swap(to: str) -> None:
    """Put the plain tables (`to` == "plain") or the partitioned ones under the tables' names."""
    from django.db import connection, transaction

    if partitioned_now() == (to == "partitioned"):
        return
    away, back = ("__part", "__plain") if to == "plain" else ("__plain", "__part")
    with transaction.atomic(), connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f'ALTER TABLE "{table}" RENAME TO "{table}{away}"')
            cursor.execute(f'ALTER TABLE "{table}{back}" RENAME TO "{table}"')


def analyze() -> None:
    """Fresh statistics on both sets (the partitions too), so that neither plays on a stale plan."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in TABLES:
            for name in (table, f"{table}__plain", f"{table}__part"):
                cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
                if cursor.fetchone()[0]:
                    cursor.execute(f'ANALYZE "{name}"')


def partitioned_now() -> bool:
    from django.db import connection

    from pit.core.partitions import is_partitioned

    with connection.cursor() as cursor:
        return is_partitioned(cursor, "shoes_coup")


# ------------------------------------------------------------------------------------ the run
def main() -> int:
    try:
        import psycopg

        with psycopg.connect(ADMIN_URL, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except Exception as exc:  # any failure: say why and skip
        print(f"bench_partitions skipped: PostgreSQL is not reachable at {ADMIN_URL} ({type(exc).__name__}: {exc})")
        return 0
    recreate_database()
    scratch = tempfile.mkdtemp(prefix="pit-bench-partitions-")
    try:
        setup_django(scratch)
        from django.db import connection

        from pit.core.gaming_day import current_gaming_day
        from pit.core.partitions import month_partitions, months_after

        day = months_after(current_gaming_day(), -1).replace(day=2)  # last month: it has its partitions
        with connection.cursor() as cursor:
            assert day.replace(day=1) in month_partitions(cursor, "shoes_coup"), "no partition for the day"
        make_plain_tables()
        calls = dealt(day)
        coups = sum(len(call[2]) for call in calls if call[0] == "coups_record")
        shoes = sum(1 for call in calls if call[0] == "shoe_start")
        print(
            f"PostgreSQL {BENCH_DB}; {os.cpu_count()} cores; load {open('/proc/loadavg').read().split()[0]}; "  # noqa: SIM115
            f"{coups} coups in {shoes} shoes dealt on {day}, through the services, {ROUNDS} rounds interleaved"
        )
        new_tables(["WP", "WQ", *(f"P{n}" for n in range(ROUNDS)), *(f"Q{n}" for n in range(ROUNDS))])
        for kind, code in (("partitioned", "WP"), ("plain", "WQ")):  # warm-up, not timed: a day into each
            swap(kind)
            print(f"warm-up {kind}: {play(calls, code):.3f} s", flush=True)
        times: dict[str, list[float]] = {"partitioned": [], "plain": []}
        rows = {}
        for n in range(ROUNDS):
            for kind, code in (
                (("partitioned", f"P{n}"), ("plain", f"Q{n}"))
                if n % 2 == 0
                else (("plain", f"Q{n}"), ("partitioned", f"P{n}"))
            ):
                analyze()
                swap(kind)
                assert partitioned_now() == (kind == "partitioned")
                seconds = play(calls, code)
                rows[kind] = written(code)
                times[kind].append(seconds)
                print(
                    f"round {n + 1} {kind}: {seconds:.3f} s ({rows[kind][0]} coups, {rows[kind][1]} wagers, "
                    f"{rows[kind][2]} commission entries)",
                    flush=True,
                )
            assert rows["partitioned"] == rows["plain"], rows
        swap("partitioned")
        with connection.cursor() as cursor:
            cursor.execute('SELECT count(*) FROM "shoes_coup_default"')
            assert cursor.fetchone() == (0,), "rows in the DEFAULT partition: the day has no partition"
        partitioned, plain = statistics.median(times["partitioned"]), statistics.median(times["plain"])
        figure("partitions.coups", rows["plain"][0], "coups")
        figure("partitions.wagers", rows["plain"][1], "wagers")
        figure("partitions.entries", rows["plain"][2], "entries")
        figure("partitions.partitioned", f"{partitioned:.3f}", "s")
        figure("partitions.plain", f"{plain:.3f}", "s")
        figure("partitions.ratio", f"{partitioned / plain:.3f}", "x")
        # Each round's pair ran back to back: their ratio is less at the mercy of a shared machine's drift.
        paired = statistics.median(p / q for p, q in zip(times["partitioned"], times["plain"], strict=True))
        figure("partitions.paired_ratio", f"{paired:.3f}", "x")
        figure("partitions.load", open("/proc/loadavg").read().split()[0], "load")  # noqa: SIM115
    finally:
        with contextlib.suppress(Exception):
            from django.db import connection

            connection.close()
        subprocess.run(["rm", "-rf", scratch], check=False)
        with contextlib.suppress(Exception):
            recreate_database(drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
