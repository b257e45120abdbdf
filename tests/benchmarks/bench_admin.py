"""Benchmark: every admin list with 100,000 violations and a year of coups on PostgreSQL, each
against a plain COUNT(*) and a plain page SELECT of its table in the same run.

Creates the database `pit_bench_admin` (PIT_BENCH_ADMIN_DB; dropped first), migrates it, generates
a year in SQL (tests/reports/generated_year.py; `--tables 7` is the issue's year of 388,360 coups)
and `--violations` (100,000) rule violations over its wagers and coups (a tenth open), then for
every model the admin lists, median of `--repeat` (3) runs each, as a superuser through Django's
test client (the first page, the admin's defaults):

- admin_list.<model>: the list's answer time (s) and its number of queries;
- admin_list.<model>.count and .page: SELECT count(*) and SELECT * ... ORDER BY pk DESC LIMIT 100
  of the model's table;
- admin_list.figure, .anchor, .ratio: the slowest list, against its table's COUNT and page SELECT
  (the target: every list under 1 s).

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \\
        .venv/bin/python tests/benchmarks/bench_admin.py [--tables N] [--days N] [--violations N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_ADMIN_DB", "pit_bench_admin")

# The violations, in SQL over the generated wagers: every wager-level kind on its wager, every
# fourth a coup-level finding on its coup; a tenth still open, the others reviewed with a note.
VIOLATIONS_SQL = """
INSERT INTO compliance_ruleviolation (code, message, severity, fingerprint, table_id, shoe_id, coup_id, wager_id,
    seat, gaming_day, found_at, found_by, status, status_note, status_changed_at)
SELECT CASE WHEN n %% 4 = 0 THEN 'banker_missing_card' WHEN n %% 4 = 1 THEN 'payout_mismatch'
            WHEN n %% 4 = 2 THEN 'wager_under_minimum' ELSE 'stale_feed' END,
       'generated finding ' || n, CASE WHEN n %% 3 = 0 THEN 'high' WHEN n %% 3 = 1 THEN 'medium' ELSE 'low' END,
       'bench:' || n, sh.table_id, c.shoe_id, CASE WHEN n %% 4 = 3 THEN NULL ELSE c.id END,
       CASE WHEN n %% 4 IN (1, 2) THEN w.id END, CASE WHEN n %% 4 IN (1, 2) THEN w.seat END,
       c.gaming_day, c.dealt_at, 'bench',
       CASE WHEN n %% 10 = 0 THEN 'open' ELSE 'acknowledged' END,
       CASE WHEN n %% 10 = 0 THEN '' ELSE 'Reviewed.' END,
       CASE WHEN n %% 10 = 0 THEN NULL ELSE c.dealt_at END
FROM (SELECT w.*, row_number() OVER (ORDER BY w.id) AS n FROM shoes_wager w) w
JOIN shoes_coup c ON c.id = w.coup_id JOIN shoes_shoe sh ON sh.id = c.shoe_id
WHERE w.n <= %(violations)s
"""


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django(scratch: str) -> None:
    os.environ["DATABASE_URL"] = ADMIN_URL.rsplit("/", 1)[0] + "/" + BENCH_DB
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["CELERY_BROKER_URL"] = "filesystem://localhost/"
    os.environ["PIT_VAR_DIR"] = scratch
    os.environ["DJANGO_MEDIA_ROOT"] = str(Path(scratch) / "media")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def timed(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tables", type=int, default=7)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--violations", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    try:
        create_database()
    except Exception as exc:  # no server to measure on: say so, fail
        print(f"bench_admin needs PostgreSQL at {ADMIN_URL} (PIT_BENCH_POSTGRES): {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    scratch = tempfile.mkdtemp(prefix="pit-bench-admin-")
    setup_django(scratch)
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from tests.reports.generated_year import YearSize, generate_year

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    counts = generate_year(YearSize(options.tables, options.days))
    with connection.cursor() as cursor:
        cursor.execute(VIOLATIONS_SQL, {"violations": options.violations})
        counts["violations"] = cursor.rowcount
        cursor.execute("ANALYZE")
    figure("admin_list.generate", f"{time.perf_counter() - started:.1f}", "s")
    for name, count in counts.items():
        figure(f"admin_list.data_{name}", count, "rows")

    get_user_model().objects.create_superuser("bench_admin", "", "bench-admin-pw-1")
    client = Client()
    client.login(username="bench_admin", password="bench-admin-pw-1")
    client.get(reverse("admin:index"))  # a served process has its URLconf and templates loaded
    slowest = ("", 0.0, 0.0)
    for model in sorted(admin.site._registry, key=lambda model: model._meta.label):  # noqa: SLF001
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        name = opts.label_lower
        queries: list[str] = []  # counted as they run (a request resets Django's query log)

        def counted(execute, sql, params, many, context, queries=queries):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(counted):
            response = client.get(url)
        if response.status_code != 200:
            print(f"{name}: {response.status_code}", flush=True)
            continue
        answer = timed(lambda url=url: client.get(url), options.repeat)
        table, pk = opts.db_table, opts.pk.column

        def count(table=table):
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 (our table names)
                cursor.fetchall()

        def page(table=table, pk=pk):
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT * FROM {table} ORDER BY {pk} DESC LIMIT 100")  # noqa: S608
                cursor.fetchall()

        figure(f"admin_list.{name}", f"{answer:.3f}", "s")
        figure(f"admin_list.{name}.queries", len(queries), "queries")
        # An unmanaged model (a query, not a table) has no plain COUNT to hold it to.
        plain = (timed(count, options.repeat), timed(page, options.repeat)) if opts.managed else (0.0, 0.0)
        figure(f"admin_list.{name}.count", f"{plain[0]:.3f}", "s")
        figure(f"admin_list.{name}.page", f"{plain[1]:.3f}", "s")
        if answer > slowest[1] and opts.managed:  # a list of a table, held to that table's plain reads
            slowest = (name, answer, sum(plain))
    # run_all's speed table: the slowest list against its table's plain COUNT and page SELECT.
    figure("admin_list.figure", f"{slowest[1]:.3f}", f"s ({slowest[0]})")
    figure("admin_list.anchor", f"{slowest[2]:.3f}", "s (COUNT + page SELECT)")
    figure("admin_list.ratio", f"{slowest[1] / max(slowest[2], 1e-6):.1f}", "x")


if __name__ == "__main__":
    main()
