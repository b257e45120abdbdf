"""Benchmark: a year of the commission report on PostgreSQL, against one aggregate SQL query.

Creates the database `pit_bench_year` (PIT_BENCH_YEAR_DB; dropped first), migrates it and
generates a year in SQL (tests/reports/generated_year.py): by default the issue's year, 7 big tables
x 365 gaming days x 2 shoes x 76 coups x 5 wagers (388,360 coups, 1,941,800 wagers, 5,110 shoes; the
generation takes 1-2 minutes on this 2-core machine); `--tables 2` is 2/7 of it. Then, interleaved,
median of `--repeat` (3) runs each:

- year_report.figure: the commission report for the year written as a background export does it
  (`pit.reports.services.report_export_run`: the row count, then the CSV file);
- year_report.anchor: the same totals (per section and currency: accrued, collected at departure,
  expected, counted, variance, collected at the shuffle) by one aggregate SQL query;
- year_report.request: the POST that queues that export (the reports page's background export,
  through Django's test client, the task sent to a filesystem broker and not run).

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_year.py [--tables N] [--days N] [--repeat N]
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
BENCH_DB = os.environ.get("PIT_BENCH_YEAR_DB", "pit_bench_year")


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django(scratch: str) -> None:
    os.environ["DATABASE_URL"] = ADMIN_URL.rsplit("/", 1)[0] + "/" + BENCH_DB
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"  # the request queues the export, a worker would run it
    os.environ["CELERY_BROKER_URL"] = "filesystem://localhost/"  # the embedded default
    os.environ["PIT_VAR_DIR"] = scratch
    os.environ["DJANGO_MEDIA_ROOT"] = str(Path(scratch) / "media")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


# The commission report's totals in one statement: the shoes whose last coup falls in the range,
# their ledger per seat and their box counts, summed per section (closed or dealing) and currency.
ANCHOR_SQL = """
WITH last AS (
  SELECT DISTINCT ON (shoe_id) shoe_id, gaming_day FROM shoes_coup
  WHERE shoe_id IN (SELECT shoe_id FROM shoes_coup WHERE gaming_day BETWEEN %(first)s AND %(last)s)
  ORDER BY shoe_id, number DESC
), shoes AS (
  SELECT sh.id, sh.status = 'dealing' AS dealing, t.currency
  FROM last JOIN shoes_shoe sh ON sh.id = last.shoe_id JOIN tables_table t ON t.id = sh.table_id
  WHERE last.gaming_day BETWEEN %(first)s AND %(last)s
), ledger AS (
  SELECT s.dealing, s.currency,
         sum(e.amount_minor) FILTER (WHERE e.kind = 'accrued' OR r.kind = 'accrued') AS accrued,
         sum(e.amount_minor) FILTER (WHERE coalesce(r.collection_reason, e.collection_reason) = 'player_left')
           AS departed,
         sum(e.amount_minor) FILTER (WHERE coalesce(r.collection_reason, e.collection_reason)
                                     IN ('shuffle', 'supplement')) AS shuffle
  FROM ledger_commissionentry e JOIN shoes s ON s.id = e.shoe_id
  LEFT JOIN ledger_commissionentry r ON r.id = e.reverses_id
  GROUP BY s.dealing, s.currency
), counted AS (
  SELECT s.dealing, s.currency, sum(b.counted_minor) AS counted
  FROM ledger_boxcount b JOIN shoes s ON s.id = b.shoe_id WHERE NOT s.dealing
  GROUP BY s.dealing, s.currency
)
SELECT l.dealing, l.currency, l.accrued, -coalesce(l.departed, 0), coalesce(l.accrued, 0) + coalesce(l.departed, 0),
       c.counted, c.counted - coalesce(l.accrued, 0) - coalesce(l.departed, 0), -coalesce(l.shuffle, 0)
FROM ledger l LEFT JOIN counted c USING (dealing, currency)
ORDER BY l.dealing, l.currency
"""


def anchor(first, last) -> list[tuple]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(ANCHOR_SQL, {"first": first, "last": last})
        return [tuple(row) for row in cursor.fetchall()]


def report_totals(export) -> list[tuple]:
    """The total lines of the export's file, as the anchor's columns (minor units)."""
    import csv

    from django.conf import settings

    totals = []
    with open(Path(settings.MEDIA_ROOT) / export.file, encoding="utf-8-sig") as handle:
        for row in csv.DictReader(handle):
            if row["Line"] != "total":
                continue
            money = [
                round(float(row[name] or 0) * 100) if row[name] != "" else None
                for name in (
                    "Accrued",
                    "Collected at departure",
                    "Expected in box",
                    "Counted",
                    "Variance (counted - expected)",
                    "Collected at shuffle",
                )
            ]
            totals.append((row["Section"] == "Still dealing", row["Currency"], *money))
    return sorted(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tables", type=int, default=7)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--shoes-per-day", type=int, default=2)
    parser.add_argument("--coups-per-shoe", type=int, default=76)
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    try:
        create_database()
    except Exception as exc:  # no server to measure on: say so, fail
        print(f"bench_year needs PostgreSQL at {ADMIN_URL} (PIT_BENCH_POSTGRES): {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    scratch = tempfile.mkdtemp(prefix="pit-bench-year-")
    setup_django(scratch)
    from django.core.management import call_command
    from django.test import Client

    from pit.accounts.services import user_create_with_role
    from pit.reports.models import ReportExport
    from pit.reports.services import report_export_run
    from tests.reports.generated_year import FIRST_DAY, YearSize, generate_year

    size = YearSize(options.tables, options.days, options.shoes_per_day, options.coups_per_shoe, options.seats)
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    counts = generate_year(size)
    figure("year_report.generate", f"{time.perf_counter() - started:.1f}", "s")
    for name, count in counts.items():
        figure(f"year_report.data_{name}", count, "rows")

    user_create_with_role(username="bench_accountant", password="bench-accountant-pw-1", role="accountant")
    client = Client()
    client.login(username="bench_accountant", password="bench-accountant-pw-1")
    form = {"report": "commission", "from": FIRST_DAY.isoformat(), "to": size.last_day.isoformat(), "format": "csv"}

    client.get("/admin/pit/reports/")  # a served process has its URLconf and templates loaded
    timings = {"figure": [], "anchor": [], "request": []}
    expected = None
    for _ in range(options.repeat):
        started = time.perf_counter()
        expected = anchor(FIRST_DAY, size.last_day)
        timings["anchor"].append(time.perf_counter() - started)

        started = time.perf_counter()
        response = client.post("/admin/pit/reports/export/", form)
        timings["request"].append(time.perf_counter() - started)
        assert response.status_code == 302, response.status_code
        export = ReportExport.objects.latest("id")
        assert export.status == "queued", export.status

        started = time.perf_counter()
        export = report_export_run(export_id=export.pk)
        timings["figure"].append(time.perf_counter() - started)
        assert export.status == "done" and export.rows_written == export.rows_estimated > 0, export
        totals = report_totals(export)
        assert totals == expected, (totals, expected)  # the report's totals are the anchor's

    report, base, request = (statistics.median(timings[key]) for key in ("figure", "anchor", "request"))
    figure("year_report.rows", export.rows_written, "rows")
    figure("year_report.figure", f"{report:.2f}", "s")
    figure("year_report.anchor", f"{base:.3f}", "s")
    figure("year_report.ratio", f"{report / base:.1f}", "x")
    figure("year_report.request", f"{request:.3f}", "s")


if __name__ == "__main__":
    main()
