"""Benchmark: report exports over one million wagers on PostgreSQL, against PostgreSQL's own COPY.

Creates the database `pit_bench_reports` (dropped first if it exists), migrates it, and fills it
with INSERT ... SELECT generate_series: 20 big tables, 1,000 closed and reconciled shoes over 10
gaming days, 100 coups a shoe, 10 wagers a coup (1,000,000 wagers), their commission accruals,
box counts (2% of seats short), reconciliations and shuffle collections. Then, each in a fresh
forked process so that memory figures do not mix:

- the commission report (one row per shoe and seat) covering all 1M wagers, as CSV and as XLSX;
- the commission ledger detail (one row per ledger entry) over the same range, as CSV and XLSX;
- table results (1M wagers aggregated per gaming day and table), as CSV;
- PostgreSQL `COPY (SELECT ...) TO STDOUT` of the same detail rows and per-seat rows (psycopg 3
  `cursor.copy`), the rate a report cannot beat.

Figures: rows, seconds, rows per second, peak RSS growth of the exporting process (ru_maxrss
delta) and, in a separate run, the Python heap peak under tracemalloc.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_reports.py
"""
from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from queue import Empty

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = "pit_bench_reports"
TABLES, SHOES_PER_TABLE, SHOES_PER_DAY, COUPS_PER_SHOE = 20, 50, 5, 100
FIRST_DAY = dt.date(2026, 10, 1)
DAYS = SHOES_PER_TABLE // SHOES_PER_DAY  # 10 gaming days
# Seat and bet of the ten wagers on every coup: 6 Banker, 3 Player, 1 Tie.
WAGERS = [(1, "banker"), (2, "banker"), (3, "player"), (5, "banker"), (6, "player"), (7, "banker"),
          (8, "banker"), (9, "player"), (10, "banker"), (11, "tie")]


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def database_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django() -> None:
    os.environ["DATABASE_URL"] = database_url(BENCH_DB)
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


GENERATE = """
INSERT INTO shoes_shoe (table_id, sequence, decks, shuffled_at, cut_card_position, burn_cards, status,
                        closed_at, cards_seen, cards_dealt, coups_recorded, recorded_at)
SELECT t.id, s, 8, shuffled, 380, '[]', 'closed', shuffled + interval '170 minutes', '{}', 0, %(coups)s, now()
FROM tables_table t CROSS JOIN generate_series(1, %(shoes)s) s
CROSS JOIN LATERAL (SELECT %(start)s::timestamptz + ((s - 1) / %(per_day)s) * interval '1 day'
                           + ((s - 1) %% %(per_day)s) * interval '3 hours' AS shuffled) moment;

INSERT INTO shoes_coup (shoe_id, number, dealt_at, gaming_day, player_cards, banker_cards,
                        player_total, banker_total, winner, "natural", player_pair, banker_pair,
                        reported_winner, paytable_id, recorded_at)
SELECT sh.id, n, sh.shuffled_at + n * interval '1 minute', (sh.shuffled_at AT TIME ZONE 'UTC')::date,
       CASE w WHEN 'banker' THEN '["2H","KD"]' WHEN 'player' THEN '["9H","KD"]' ELSE '["8H","KD"]' END::jsonb,
       CASE w WHEN 'banker' THEN '["8C","KS"]' WHEN 'player' THEN '["5C","2S"]' ELSE '["8C","KS"]' END::jsonb,
       CASE w WHEN 'banker' THEN 2 WHEN 'player' THEN 9 ELSE 8 END,
       CASE w WHEN 'banker' THEN 8 WHEN 'player' THEN 7 ELSE 8 END,
       w, true, false, false, '', %(paytable)s, now()
FROM shoes_shoe sh CROSS JOIN generate_series(1, %(coups)s) n
CROSS JOIN LATERAL (
  SELECT CASE WHEN r < 0.4586 THEN 'banker' WHEN r < 0.9048 THEN 'player' ELSE 'tie' END AS w
  FROM (SELECT random() + n * 0 + sh.id * 0 AS r) x
) outcome;

INSERT INTO shoes_wager (coup_id, gaming_day, seat, bet, currency, amount_minor, result, payout_minor,
                         commission_minor)
SELECT c.id, c.gaming_day, b.seat, b.bet, 'USD', a.amount,
       CASE WHEN b.bet = c.winner THEN 'win' WHEN c.winner = 'tie' THEN 'push' ELSE 'lose' END,
       CASE WHEN b.bet = c.winner THEN (CASE b.bet WHEN 'tie' THEN 8 * a.amount ELSE a.amount END) ELSE 0 END,
       CASE WHEN b.bet = 'banker' AND c.winner = 'banker' THEN a.amount / 20 ELSE 0 END
FROM shoes_coup c
CROSS JOIN (VALUES {wagers}) AS b(seat, bet)
CROSS JOIN LATERAL (SELECT 2500 * (1 + floor(random() * 40 + c.id * 0 + b.seat * 0))::bigint AS amount) a;

INSERT INTO ledger_commissionentry (shoe_id, seat, kind, currency, amount_minor, wager_id, gaming_day,
                                    collection_reason, note, recorded_at)
SELECT c.shoe_id, w.seat, 'accrued', 'USD', w.commission_minor, w.id, w.gaming_day, '', '', c.dealt_at
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE w.commission_minor > 0;

CREATE TEMP TABLE bench_seat AS
SELECT e.shoe_id, e.seat, sum(e.amount_minor) AS accrued,
       CASE WHEN random() < 0.02 THEN greatest(sum(e.amount_minor) - 500, 0)
            ELSE sum(e.amount_minor) END AS counted
FROM ledger_commissionentry e GROUP BY e.shoe_id, e.seat;

INSERT INTO ledger_boxcount (shoe_id, seat, currency, counted_minor, recorded_at)
SELECT shoe_id, seat, 'USD', counted, now() FROM bench_seat;

INSERT INTO ledger_reconciliation (shoe_id, currency, accrued_minor, collected_earlier_minor, expected_minor,
                                   counted_minor, variance_minor, status, reconciled_at, explanation)
SELECT shoe_id, 'USD', sum(accrued), 0, sum(accrued), sum(counted), sum(counted) - sum(accrued),
       CASE WHEN bool_or(counted <> accrued) THEN 'variance' ELSE 'balanced' END, now(), ''
FROM bench_seat GROUP BY shoe_id;

INSERT INTO ledger_reconciliationseat (reconciliation_id, seat, accrued_minor, collected_earlier_minor,
                                       expected_minor, counted_minor, variance_minor)
SELECT r.id, s.seat, s.accrued, 0, s.accrued, s.counted, s.counted - s.accrued
FROM bench_seat s JOIN ledger_reconciliation r ON r.shoe_id = s.shoe_id;

INSERT INTO ledger_commissionentry (shoe_id, seat, kind, currency, amount_minor, collection_reason, note,
                                    recorded_at)
SELECT s.shoe_id, s.seat, 'collected', 'USD', -s.accrued, 'shuffle', '', sh.closed_at
FROM bench_seat s JOIN shoes_shoe sh ON sh.id = s.shoe_id;
"""


def generate() -> dict[str, int]:
    from decimal import Decimal

    from django.db import connection, transaction

    from pit.core.partitions import partitions_ensure_sql
    from pit.paytables.services import paytable_create_from_preset
    from pit.tables.services import table_create

    paytable = paytable_create_from_preset(preset="commission_box")
    for number in range(1, TABLES + 1):
        limits = {bet: (Decimal("25"), Decimal("10000")) for bet in ("banker", "player", "tie")}
        table_create(
            code=f"BB{number:02d}", name=f"Big {number}", game="big", paytable=paytable, limits=limits
        )
    values = ", ".join(f"({seat}, '{bet}')" for seat, bet in WAGERS)
    start = dt.datetime.combine(FIRST_DAY, dt.time(7), tzinfo=dt.UTC)
    params = {"start": start, "per_day": SHOES_PER_DAY, "coups": COUPS_PER_SHOE, "shoes": SHOES_PER_TABLE,
              "paytable": paytable.pk}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        partitions_ensure_sql(cursor, FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS))  # the months' partitions
        for statement in GENERATE.replace("{wagers}", values).split(";\n"):
            if statement.strip():
                cursor.execute(statement, params)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        counts = {}
        for name, table in (("wagers", "shoes_wager"), ("coups", "shoes_coup"), ("shoes", "shoes_shoe"),
                            ("ledger_entries", "ledger_commissionentry"), ("box_counts", "ledger_boxcount")):
            cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - fixed names
            counts[name] = cursor.fetchone()[0]
    return counts


# ------------------------------------------------------------------------------------ the measured work

def _maxrss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _export(slug: str, file_format: str, trace: bool, queue) -> None:
    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import ReportFilters
    from pit.reports.renderers import csv_write, xlsx_write

    report = REPORTS[slug]
    filters = ReportFilters(FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS - 1))
    rows = {"detail": 0}

    def progress(count: int) -> None:
        rows["detail"] = count

    if trace:
        tracemalloc.start()
    baseline = _maxrss_kib()
    started = time.perf_counter()
    with tempfile.NamedTemporaryFile(suffix=f".{file_format}") as out:
        if file_format == "xlsx":
            xlsx_write(report, filters, out, progress=progress)
        else:
            csv_write(report, filters, out, progress=progress)
        out.flush()
        size = os.path.getsize(out.name)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    queue.put({"rows": rows["detail"], "seconds": seconds, "rss_delta_kib": _maxrss_kib() - baseline,
               "bytes": size, "python_peak": peak})


DETAIL_SQL = """
SELECT d.last_day AS gaming_day, t.code AS table_code, sh.sequence AS shoe, e.seat, e.currency, e.id AS entry,
       e.kind, e.collection_reason, e.reverses_id, c.number AS coup, w.bet, w.amount_minor / 100.0 AS stake,
       e.amount_minor / 100.0 AS amount, e.recorded_at, e.note
FROM ledger_commissionentry e
JOIN shoes_shoe sh ON sh.id = e.shoe_id
JOIN tables_table t ON t.id = sh.table_id
JOIN LATERAL (
  SELECT gaming_day AS last_day FROM shoes_coup WHERE shoe_id = sh.id ORDER BY number DESC LIMIT 1
) d ON true
LEFT JOIN shoes_wager w ON w.id = e.wager_id
LEFT JOIN shoes_coup c ON c.id = w.coup_id
WHERE d.last_day BETWEEN {first} AND {last}
ORDER BY t.code, sh.sequence, e.seat, e.id
"""

SEATS_SQL = """
SELECT d.last_day AS gaming_day, t.code AS table_code, sh.sequence AS shoe, lb.seat,
       coalesce(lb.accrued, 0) / 100.0 AS accrued,
       -coalesce(lb.departed, 0) / 100.0 AS collected_at_departure,
       (coalesce(lb.accrued, 0) + coalesce(lb.departed, 0)) / 100.0 AS expected,
       coalesce(lb.counted_minor, 0) / 100.0 AS counted,
       (coalesce(lb.counted_minor, 0) - coalesce(lb.accrued, 0) - coalesce(lb.departed, 0)) / 100.0
         AS variance,
       r.status, r.explanation
FROM shoes_shoe sh
JOIN tables_table t ON t.id = sh.table_id
JOIN LATERAL (
  SELECT gaming_day AS last_day FROM shoes_coup WHERE shoe_id = sh.id ORDER BY number DESC LIMIT 1
) d ON true
LEFT JOIN ledger_reconciliation r ON r.shoe_id = sh.id
JOIN LATERAL (
  SELECT coalesce(l.seat, b.seat) AS seat, l.accrued, l.departed, b.counted_minor
  FROM (SELECT seat, sum(amount_minor) FILTER (WHERE kind = 'accrued') AS accrued,
               sum(amount_minor) FILTER (WHERE kind = 'collected' AND collection_reason = 'player_left')
                 AS departed
        FROM ledger_commissionentry WHERE shoe_id = sh.id GROUP BY seat) l
  FULL JOIN (SELECT seat, counted_minor FROM ledger_boxcount WHERE shoe_id = sh.id) b ON b.seat = l.seat
) lb ON true
WHERE d.last_day BETWEEN {first} AND {last}
ORDER BY t.code, sh.sequence, lb.seat
"""


def _copy(sql_text: str, queue) -> None:
    import psycopg
    from psycopg import sql

    first, last = FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS - 1)
    query = sql.SQL("COPY ({}) TO STDOUT WITH (FORMAT csv, HEADER)").format(
        sql.SQL(sql_text).format(first=sql.Literal(first), last=sql.Literal(last))
    )
    baseline = _maxrss_kib()
    started = time.perf_counter()
    size = 0
    with psycopg.connect(database_url(BENCH_DB)) as connection, connection.cursor() as cursor:
        with cursor.copy(query) as copy:
            for block in copy:
                size += len(block)
        rows = cursor.rowcount
    seconds = time.perf_counter() - started
    queue.put({"rows": rows, "seconds": seconds, "rss_delta_kib": _maxrss_kib() - baseline, "bytes": size,
               "python_peak": None})


def in_child(target, *args) -> dict:
    """Run `target(*args, queue)` in a forked process (fresh connections, its own memory peak)."""
    from django.db import connections

    connections.close_all()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=target, args=(*args, queue))
    process.start()
    while True:
        try:
            result = queue.get(timeout=5)
            break
        except Empty:
            if not process.is_alive():
                failed = f"{target.__name__}{args} died with exit code {process.exitcode}"
                raise RuntimeError(failed) from None
    process.join()
    if process.exitcode != 0:
        raise RuntimeError(f"{target.__name__}{args} failed with exit code {process.exitcode}")
    return result


def report_figures(name: str, result: dict) -> None:
    figure(f"{name}_rows", result["rows"], "rows")
    figure(f"{name}_seconds", f"{result['seconds']:.2f}", "s")
    figure(f"{name}_rate", f"{result['rows'] / result['seconds']:.0f}", "rows/s")
    figure(f"{name}_rss_growth", f"{result['rss_delta_kib'] / 1024:.1f}", "MiB")
    figure(f"{name}_file", f"{result['bytes'] / 1024 / 1024:.1f}", "MiB")
    if result.get("python_peak") is not None:
        figure(f"{name}_python_heap_peak", f"{result['python_peak'] / 1024 / 1024:.1f}", "MiB")


def main() -> None:
    # --reuse: keep the database of an earlier run (for working on the exports, not for figures).
    reuse = "--reuse" in sys.argv[1:]
    if not reuse:
        try:
            create_database()
        except Exception as exc:  # no server to measure on: say so, fail
            print(f"bench_reports needs PostgreSQL at {ADMIN_URL} (PIT_BENCH_POSTGRES): {exc}", file=sys.stderr)
            raise SystemExit(2) from exc
    setup_django()
    from django.core.management import call_command

    if not reuse:
        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        figure("reports_migrate_seconds", f"{time.perf_counter() - started:.1f}", "s")
        started = time.perf_counter()
        counts = generate()
        figure("reports_generate_seconds", f"{time.perf_counter() - started:.1f}", "s")
        for name, count in counts.items():
            figure(f"reports_data_{name}", count, "rows")

    runs = [
        ("reports_commission_csv", _export, ("commission", "csv", False)),
        ("reports_commission_xlsx", _export, ("commission", "xlsx", False)),
        ("reports_copy_commission_seats", _copy, (SEATS_SQL,)),
        ("reports_detail_csv", _export, ("commission-detail", "csv", False)),
        ("reports_detail_xlsx", _export, ("commission-detail", "xlsx", False)),
        ("reports_copy_detail", _copy, (DETAIL_SQL,)),
        ("reports_table_results_csv", _export, ("table-results", "csv", False)),
        ("reports_detail_csv_traced", _export, ("commission-detail", "csv", True)),
    ]
    results = {}
    for name, target, args in runs:
        results[name] = in_child(target, *args)
        report_figures(name, results[name])
    figure(
        "reports_detail_csv_vs_copy",
        f"{results['reports_detail_csv']['seconds'] / results['reports_copy_detail']['seconds']:.1f}",
        "x slower",
    )


if __name__ == "__main__":
    main()
