"""Benchmark: `verify_records` (recomputing every shoe's hash chain) against PostgreSQL merely
reading the same rows.

Creates the database `pit_bench_records` (PIT_BENCH_RECORDS_DB; dropped first if it exists),
migrates it and plays the demo pit through the services (`demo_pit_play`, the same as `make run`:
5 tables, 2 shoes a table a day, wagers, players leaving, box counts, reconciliations, a few dealer
mistakes), for PIT_BENCH_RECORDS_DAYS gaming days: 5 by default, as dealing through the services
takes 10 to 18 s a gaming day on a busy 2-core machine (PIT_BENCH_RECORDS_DAYS=30, the 30-day demo
pit, takes 5 to 9 minutes). Then, in one run and over the same shoes:

- the read rate: every chained row of those shoes read with the very queries the verification
  makes (the fields of the canonical form, decoded into Python values), and nothing else;
- the verification rate: the same reads, each row serialized, hashed and compared, chains ordered
  and their heads compared (`pit.records.selectors.chains_verify`, what `verify_records` runs);
- the ratio of the two (the bar: at least 0.5), best of 5 alternating rounds of each; and, as a
  check on a shared machine where wall-clock time depends on the neighbours, the CPU time this
  process spent per row in each (the database server's time is not in it).

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_records.py
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_RECORDS_DB", "pit_bench_records")
DAYS = int(os.environ.get("PIT_BENCH_RECORDS_DAYS", "5"))
ROUNDS = 5


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def database_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")
        # Playing the pit commits thousands of small transactions; durability is not what is measured.
        connection.execute(f"ALTER DATABASE {BENCH_DB} SET synchronous_commit = off")


def drop_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


def setup_django() -> None:
    os.environ["DATABASE_URL"] = database_url(BENCH_DB)
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "True"
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def generate() -> tuple[int, float]:
    import logging

    from django.core.management import call_command

    from pit.floor.demo import demo_pit_play, demo_pit_setup

    call_command("migrate", verbosity=0)
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    started = time.perf_counter()
    demo_pit_setup()
    result = demo_pit_play(days=DAYS)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return result.coups, time.perf_counter() - started


def read_only(shoe_ids: list[int]) -> tuple[int, float, float]:
    """(rows, wall seconds, CPU seconds of this process)."""
    from pit.records.selectors import SHOES_PER_CHUNK, chain_queries

    started, cpu = time.perf_counter(), time.process_time()
    rows = 0
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        kept = [row for _, query in chain_queries(shoe_ids[start : start + SHOES_PER_CHUNK]) for row in query]
        rows += len(kept)
    return rows, time.perf_counter() - started, time.process_time() - cpu


def verify(shoe_ids: list[int]) -> tuple[int, float, float, int]:
    """(rows, wall seconds, CPU seconds of this process, broken chains)."""
    from pit.records.selectors import chains_verify

    started, cpu = time.perf_counter(), time.process_time()
    result = chains_verify(shoe_ids=shoe_ids)
    return result.rows, time.perf_counter() - started, time.process_time() - cpu, len(result.breaks)


def main() -> None:
    create_database()
    setup_django()
    try:
        from pit.core.gaming_day import current_gaming_day
        from pit.records.selectors import shoe_ids_for_days

        coups, seconds = generate()
        print(f"demo pit of {DAYS} gaming days: {coups} coups dealt through the services in {seconds:.0f} s")
        today = current_gaming_day()
        shoe_ids = shoe_ids_for_days(first_day=today - dt.timedelta(days=DAYS), last_day=today)
        best = {"read": (float("inf"), float("inf")), "verify": (float("inf"), float("inf"))}
        for _ in range(ROUNDS):  # alternate, best of each: the machine is shared
            rows, read_wall, read_cpu = read_only(shoe_ids)
            verified, verify_wall, verify_cpu, breaks = verify(shoe_ids)
            assert verified == rows and breaks == 0, (verified, rows, breaks)
            best["read"] = min(best["read"], (read_wall, read_cpu))
            best["verify"] = min(best["verify"], (verify_wall, verify_cpu))
        read_rate, verify_rate = rows / best["read"][0], rows / best["verify"][0]
        figure("chained rows", rows, "rows")
        figure("shoes", len(shoe_ids), "shoes")
        figure("PostgreSQL merely reading the rows (anchor)", f"{read_rate:,.0f}", "rows/s")
        figure("verify_records: chains recomputed", f"{verify_rate:,.0f}", "rows/s")
        figure("verify_records / read", f"{verify_rate / read_rate:.2f}", "ratio")
        figure("CPU of this process per row, reading", f"{best['read'][1] / rows * 1e6:.1f}", "us")
        figure("CPU of this process per row, verifying", f"{best['verify'][1] / rows * 1e6:.1f}", "us")
    finally:
        from django.db import connections

        connections.close_all()
        drop_database()


if __name__ == "__main__":
    main()
