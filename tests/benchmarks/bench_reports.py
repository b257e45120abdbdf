"""Benchmark: report exports on PostgreSQL, against PostgreSQL's own COPY of the same rows.

Creates the database `pit_bench_reports` (PIT_BENCH_REPORTS_DB; dropped first if it exists), migrates it, and fills it
with INSERT ... SELECT generate_series, dealt the way `manage.py simulate` deals: 20 big tables,
shoes of 80 coups, 7 occupied seats, each seat a main bet (Banker or Player, its player's side) and
side bets (Tie 10%, each pair 7%), 8% of seat-coups sat out: about 8 wagers a coup. Every winning
Banker wager accrues commission; 1 accrual in 300 is reversed (with a note), one seat in 7 sees its
player leave at coup 40 (collected, a note, some of them formula-like), the rest is collected at the
shuffle; box counts (2% of seats short), reconciliations. Size: `--wagers N` (or
PIT_BENCH_REPORTS_WAGERS), 300,000 by default: the issue's 1,000,000 (282k ledger rows) takes too
long to generate on the shared 2-core machine; rows/s and the ratio do not depend on it much.

Then, each in a fresh forked process so that memory figures do not mix:

- `commission_csv`: the commission ledger detail as CSV exactly as the product writes it
  (`pit.reports.renderers.csv_write`, what the export task runs, into a file), against
  `COPY (<the export's own SELECT>) TO STDOUT` of the same rows (`csv_copy.commission_detail_sql`:
  the same shoes, joins and order, raw values, no formatting or subtotals), interleaved,
  `--repeat` times (3 by default), medians: `commission_csv.figure`, `.anchor` (detail rows/s),
  `.ratio` (figure / anchor) and `.rss_growth` (MiB, the export's largest);
- the commission report (one row per shoe and seat), as CSV and as XLSX, and a COPY of its rows;
- the ledger detail CSV through the Python renderer (SQLite's path, and PostgreSQL's before COPY),
  and as XLSX; table results as CSV; the detail CSV again under tracemalloc.

Figures: rows, seconds, rows per second, peak RSS growth of the exporting process (ru_maxrss
delta) and, in a separate run, the Python heap peak under tracemalloc.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_reports.py [--wagers 300000] [--repeat 3] [--reuse]
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from queue import Empty

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_REPORTS_DB", "pit_bench_reports")  # its own, dropped and made again
TABLES, SHOES_PER_DAY, COUPS_PER_SHOE = 20, 5, 80
WAGERS_PER_COUP = 8.0  # 7 seats x 0.92 seated x (1 main + 0.24 side bets), as simulate deals
FIRST_DAY = dt.date(2026, 10, 1)
SEATS = (1, 2, 3, 5, 6, 7, 8)
# A main bet (the seat's player's side) and the side bets simulate offers at a commission table.
BETS = [("main", 1.0), ("tie", 0.10), ("player_pair", 0.07), ("banker_pair", 0.07)]
# Notes of players who left, formula-like ones among them (made inert in the export).
NOTES = ["", "left for dinner", '=HYPERLINK("http://x","y")', 'said "back soon", left', "-cashed out", ""]


def _arguments() -> tuple[int, int, bool]:
    import argparse

    parser = argparse.ArgumentParser(description="Report exports against PostgreSQL's COPY.")
    parser.add_argument("--wagers", type=int, default=int(os.environ.get("PIT_BENCH_REPORTS_WAGERS", 300_000)))
    parser.add_argument("--repeat", type=int, default=3, help="interleaved repetitions of commission_csv (>= 3)")
    parser.add_argument("--reuse", action="store_true", help="keep an earlier run's database (not for figures)")
    options = parser.parse_args()
    return options.wagers, max(options.repeat, 3), options.reuse


WAGERS_WANTED, REPEAT, REUSE = _arguments() if __name__ == "__main__" else (300_000, 3, False)
SHOES_PER_TABLE = max(SHOES_PER_DAY, round(WAGERS_WANTED / WAGERS_PER_COUP / COUPS_PER_SHOE / TABLES))
DAYS = -(-SHOES_PER_TABLE // SHOES_PER_DAY)


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
SELECT c.id, c.gaming_day, s.seat, b.bet, 'USD', a.amount,
       CASE WHEN b.bet = c.winner THEN 'win' WHEN c.winner = 'tie' AND b.bet IN ('banker', 'player') THEN 'push'
            ELSE 'lose' END,
       CASE WHEN b.bet = c.winner THEN (CASE b.bet WHEN 'tie' THEN 8 * a.amount ELSE a.amount END) ELSE 0 END,
       CASE WHEN b.bet = 'banker' AND c.winner = 'banker' THEN a.amount / 20 ELSE 0 END
FROM shoes_coup c
CROSS JOIN (VALUES {seats}) AS s(seat)
CROSS JOIN (VALUES {bets}) AS o(kind, chance)
CROSS JOIN LATERAL (
  SELECT CASE WHEN o.kind <> 'main' THEN o.kind WHEN (c.shoe_id + s.seat) %% 3 = 0 THEN 'player' ELSE 'banker' END
         AS bet,
         random() + c.id * 0 + s.seat * 0 + o.chance * 0 AS r,
         ((c.id * 7919 + s.seat * 104729) %% 100) >= 8 AS seated
) b
CROSS JOIN LATERAL (
  SELECT CASE WHEN o.kind = 'main' THEN 2500 * (1 + (c.shoe_id * 31 + s.seat) %% 8) ELSE 500 END::bigint AS amount
) a
WHERE b.seated AND (o.kind = 'main' OR b.r < o.chance);

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, wager_id,
                                    collection_reason, note, recorded_at)
SELECT c.shoe_id, c.gaming_day, w.seat, 'accrued', 'USD', w.commission_minor, w.id, '', '',
       c.dealt_at + interval '0.25 seconds' * (w.id %% 4)
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE w.commission_minor > 0;

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, reverses_id,
                                    collection_reason, note, recorded_at)
SELECT e.shoe_id, e.gaming_day, e.seat, 'reversal', 'USD', -e.amount_minor, e.id, '', 'comped, entry ' || e.id,
       e.recorded_at + interval '90 seconds'
FROM ledger_commissionentry e WHERE e.kind = 'accrued' AND e.id %% 300 = 0;

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, collection_reason,
                                    note, recorded_at)
SELECT e.shoe_id, min(e.gaming_day), e.seat, 'collected', 'USD', -sum(e.amount_minor), 'player_left',
       (%(notes)s::text[])[1 + (e.shoe_id + e.seat) %% cardinality(%(notes)s::text[])],
       max(e.recorded_at) + interval '30 seconds'
FROM ledger_commissionentry e JOIN shoes_wager w ON w.id = e.wager_id JOIN shoes_coup c ON c.id = w.coup_id
WHERE e.kind = 'accrued' AND c.number <= 40 AND (e.shoe_id * 3 + e.seat) %% 7 = 0
GROUP BY e.shoe_id, e.seat;

CREATE TEMP TABLE bench_seat AS
SELECT e.shoe_id, e.seat, min(e.gaming_day) AS gaming_day, sum(e.amount_minor) AS accrued,
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

INSERT INTO ledger_commissionentry (shoe_id, gaming_day, seat, kind, currency, amount_minor, collection_reason,
                                    note, recorded_at)
SELECT s.shoe_id, s.gaming_day, s.seat, 'collected', 'USD', -s.accrued, 'shuffle', '', sh.closed_at
FROM bench_seat s JOIN shoes_shoe sh ON sh.id = s.shoe_id;
"""


def generate() -> dict[str, int]:
    from decimal import Decimal

    from django.db import connection, transaction

    from pit.paytables.services import paytable_create_from_preset
    from pit.tables.services import table_create

    paytable = paytable_create_from_preset(preset="commission_box")
    for number in range(1, TABLES + 1):
        limits = {bet: (Decimal("25"), Decimal("10000")) for bet in ("banker", "player", "tie")}
        table_create(code=f"BB{number:02d}", name=f"Big {number}", game="big", paytable=paytable, limits=limits)
    seats = ", ".join(f"({seat})" for seat in SEATS)
    bets = ", ".join(f"('{bet}', {chance})" for bet, chance in BETS)
    start = dt.datetime.combine(FIRST_DAY, dt.time(7), tzinfo=dt.UTC)
    params = {
        "start": start,
        "per_day": SHOES_PER_DAY,
        "coups": COUPS_PER_SHOE,
        "shoes": SHOES_PER_TABLE,
        "paytable": paytable.pk,
        "notes": NOTES,
    }
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        for statement in GENERATE.replace("{seats}", seats).replace("{bets}", bets).split(";\n"):
            if statement.strip():
                cursor.execute(statement, params)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        counts = {}
        for name, table in (
            ("wagers", "shoes_wager"),
            ("coups", "shoes_coup"),
            ("shoes", "shoes_shoe"),
            ("ledger_entries", "ledger_commissionentry"),
            ("box_counts", "ledger_boxcount"),
        ):
            cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - fixed names
            counts[name] = cursor.fetchone()[0]
    return counts


# ------------------------------------------------------------------------------------ the measured work


def _maxrss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _export(slug: str, file_format: str, trace: bool, queue) -> None:
    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import ReportFilters
    from pit.reports.renderers import csv_write, python_csv_chunks, xlsx_write

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
        elif file_format == "csv-python":  # the Python renderer (SQLite's path; PostgreSQL's before COPY)
            for chunk in python_csv_chunks(report, filters, progress):
                out.write(chunk)
        else:
            csv_write(report, filters, out, progress=progress)
        out.flush()
        size = os.path.getsize(out.name)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    queue.put(
        {
            "rows": rows["detail"],
            "seconds": seconds,
            "rss_delta_kib": _maxrss_kib() - baseline,
            "bytes": size,
            "python_peak": peak,
        }
    )


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


def _copy(sql_text: str | None, queue) -> None:
    """COPY (a SELECT) TO STDOUT, the rows read as the export reads COPY's (block by block).
    None: the commission ledger detail export's own SELECT (`csv_copy.commission_detail_sql`)."""
    import psycopg
    from django.utils import timezone
    from psycopg import sql

    from pit.reports.csv_copy import commission_detail_sql
    from pit.reports.definitions import ReportFilters

    first, last = FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS - 1)
    zone = timezone.get_current_timezone().key
    if sql_text is None:
        select, params = commission_detail_sql(ReportFilters(first, last), zone, ["USD"])
        query, params = f"COPY ({select}) TO STDOUT (FORMAT csv)", params
    else:
        query = sql.SQL("COPY ({}) TO STDOUT WITH (FORMAT csv, HEADER)").format(
            sql.SQL(sql_text).format(first=sql.Literal(first), last=sql.Literal(last))
        )
        params = None
    baseline = _maxrss_kib()
    started = time.perf_counter()
    size = 0
    with psycopg.connect(database_url(BENCH_DB)) as connection, connection.cursor() as cursor:
        cursor.execute("SELECT set_config('TimeZone', %s, false)", [zone])
        with cursor.copy(query, params) as copy:
            for block in copy:
                size += len(block)
        rows = cursor.rowcount
    seconds = time.perf_counter() - started
    queue.put(
        {
            "rows": rows,
            "seconds": seconds,
            "rss_delta_kib": _maxrss_kib() - baseline,
            "bytes": size,
            "python_peak": None,
        }
    )


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


def commission_csv(repeat: int) -> None:
    """The commission ledger detail CSV as the export task writes it, against COPY of its own
    SELECT, interleaved, `repeat` times; medians (rows/s of detail rows both)."""
    exports, anchors = [], []
    for _ in range(repeat):
        exports.append(in_child(_export, "commission-detail", "csv", False))
        anchors.append(in_child(_copy, None))
    for name, results in (("commission_csv_export", exports), ("commission_csv_copy", anchors)):
        for number, result in enumerate(results, start=1):
            print(
                f"{name} run {number}: {result['rows']} rows in {result['seconds']:.2f} s, "
                f"{result['bytes'] / 1024 / 1024:.1f} MiB",
                flush=True,
            )
    if {result["rows"] for result in exports} != {result["rows"] for result in anchors}:
        raise RuntimeError(f"the export wrote {exports[0]['rows']} detail rows, COPY read {anchors[0]['rows']}")
    export_rate = statistics.median(result["rows"] / result["seconds"] for result in exports)
    anchor_rate = statistics.median(result["rows"] / result["seconds"] for result in anchors)
    figure("commission_csv.rows", exports[0]["rows"], "rows")
    figure("commission_csv.figure", f"{export_rate:.0f}", "rows/s")
    figure("commission_csv.anchor", f"{anchor_rate:.0f}", "rows/s")
    figure("commission_csv.ratio", f"{export_rate / anchor_rate:.2f}", "x")
    figure("commission_csv.rss_growth", f"{max(result['rss_delta_kib'] for result in exports) / 1024:.1f}", "MiB")


def main() -> None:
    reuse = REUSE
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

    commission_csv(REPEAT)
    runs = [
        ("reports_commission_csv", _export, ("commission", "csv", False)),
        ("reports_commission_xlsx", _export, ("commission", "xlsx", False)),
        ("reports_copy_commission_seats", _copy, (SEATS_SQL,)),
        ("reports_detail_csv_python", _export, ("commission-detail", "csv-python", False)),
        ("reports_detail_xlsx", _export, ("commission-detail", "xlsx", False)),
        ("reports_table_results_csv", _export, ("table-results", "csv", False)),
        ("reports_detail_csv_traced", _export, ("commission-detail", "csv", True)),
    ]
    for name, target, args in runs:
        report_figures(name, in_child(target, *args))


if __name__ == "__main__":
    main()
