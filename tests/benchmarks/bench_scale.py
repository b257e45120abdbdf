"""Benchmark: a scaled year of a pit on PostgreSQL, and what reading it costs with and without the
daily rollups (pit.rollups).

Creates the database `pit_bench_scale` (PIT_BENCH_SCALE_DB; dropped first), migrates it, and
generates a year: PIT_BENCH_SCALE_TABLES (20) tables x PIT_BENCH_SCALE_DAYS (365) gaming days x
PIT_BENCH_SCALE_COUPS (40) coups per table-day (a real busy table deals ~1,600; scaled down so the
run finishes in minutes on a shared 2-core machine), 7 wagers a coup, their commission accruals.
Real shoes are dealt and settled by the engine once (a pool of shoes); the year is then written by
INSERT ... SELECT over generate_series, cycling the pool, never by the ORM row by row.

Then, interleaved, median of PIT_BENCH_SCALE_REPEAT (3) runs each:
- `scale.table_results`: a year's table results with rollups (figure), against one aggregate SQL
  query over the same year's standing wagers (anchor); `scale.table_results_detail`: the same
  report from the detail only (PIT_ROLLUPS_READ=False), and the speed-up;
- `scale.master_game`: the master game report over the year, with and without rollups;
- `scale.commission`: the commission report (per shoe and seat: detail by nature, no rollups) over
  PIT_BENCH_SCALE_COMMISSION_DAYS (31), against the aggregate query of its ledger lines;
- `scale.sweep`: the rule-check sweep over PIT_BENCH_SCALE_SWEEP_DAYS (7) days, against PostgreSQL
  reading the same coups and wagers through a server-side cursor;
- `scale.rollups_rebuild`: rolling up the whole year; and the storage per coup (heap and indexes of
  coups, wagers and the ledger), the figures docs/design/rollups.md extrapolates from.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python tests/benchmarks/bench_scale.py
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_SCALE_DB", "pit_bench_scale")
TABLES = int(os.environ.get("PIT_BENCH_SCALE_TABLES", "20"))
DAYS = int(os.environ.get("PIT_BENCH_SCALE_DAYS", "365"))
COUPS_PER_DAY = int(os.environ.get("PIT_BENCH_SCALE_COUPS", "40"))
REPEAT = int(os.environ.get("PIT_BENCH_SCALE_REPEAT", "3"))
SWEEP_DAYS = int(os.environ.get("PIT_BENCH_SCALE_SWEEP_DAYS", "7"))
COMMISSION_DAYS = int(os.environ.get("PIT_BENCH_SCALE_COMMISSION_DAYS", "31"))
# More pool shoes than the tables deal within game protection's repeat window (a day either side), so no
# shoe is a replay of another the sweep compares it with.
POOL_SHOES = max(200, TABLES * 4)
SEATS = [1, 2, 3, 5, 6, 7, 8]
AMOUNTS = [25, 50, 100, 100, 200, 500, 1000]
# The year ends well before today: every day is complete, so the rollups cover all of it.
FIRST_DAY = dt.date(2025, 1, 1)


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
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "True"
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def generate() -> tuple[int, int]:
    """A pool of real shoes dealt and settled by the engine, then the year by SQL. Returns (coups, wagers)."""
    from decimal import Decimal

    from django.db import connection
    from psycopg.types.json import Jsonb

    from pit import game
    from pit.core.money import to_minor
    from pit.paytables.services import paytable_create_from_preset
    from tests import factories

    rng = random.Random(20261130)
    paytable_config = paytable_create_from_preset(preset="commission_box")
    paytable = game.PRESETS["commission_box"]
    for number in range(1, TABLES + 1):
        factories.table(
            f"BB{number:03d}", limits={"player": ("25", "10000"), "banker": ("25", "10000"), "tie": ("5", "1000")}
        )
    pool_coups, pool_wagers = [], []
    for pool_shoe in range(POOL_SHOES):
        dealer = game.new_shoe(8, rng)
        dealer.burn()
        for number in range(1, COUPS_PER_DAY + 1):
            dealt = dealer.deal_coup()
            evaluation = game.evaluate(dealt)
            pool_coups.append(
                (
                    pool_shoe,
                    number,
                    Jsonb([card.code for card in dealt.player]),
                    Jsonb([card.code for card in dealt.banker]),
                    evaluation.player_total,
                    evaluation.banker_total,
                    str(evaluation.winner),
                    evaluation.natural,
                    evaluation.player_pair,
                    evaluation.banker_pair,
                )
            )
            for seat in SEATS:
                bet = rng.choice(["banker", "banker", "player", "player", "tie"])
                amount = Decimal(rng.choice(AMOUNTS))
                settlement = game.settle(paytable, bet, amount, evaluation)
                pool_wagers.append(
                    (
                        pool_shoe,
                        number,
                        seat,
                        bet,
                        to_minor(amount, "USD"),
                        str(settlement.result),
                        to_minor(settlement.payout, "USD"),
                        to_minor(settlement.commission, "USD"),
                    )
                )
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE UNLOGGED TABLE bench_pool_coup (pool_shoe int, number int, player_cards jsonb, banker_cards jsonb,"
            " player_total int, banker_total int, winner text, nat bool, player_pair bool, banker_pair bool);"
            "CREATE UNLOGGED TABLE bench_pool_wager (pool_shoe int, number int, seat int, bet text, amount bigint,"
            " result text, payout bigint, commission bigint)"
        )
        raw = cursor.cursor
        for name, rows in (("bench_pool_coup", pool_coups), ("bench_pool_wager", pool_wagers)):
            with raw.copy(f"COPY {name} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        # One shoe per table-day, dealt from 10:00 casino time, a coup every 90 s; the table's
        # currency and the paytable are the generated tables'.
        params = {
            "first": FIRST_DAY,
            "days": DAYS,
            "coups": COUPS_PER_DAY,
            "pool": POOL_SHOES,
            "paytable": paytable_config.pk,
        }
        cursor.execute(
            """
            INSERT INTO shoes_shoe (id, recorded_at, table_id, sequence, decks, shuffled_at, cut_card_position,
                burn_cards, status, closed_at, cards_seen, cards_dealt, coups_recorded)
            SELECT row_number() OVER (ORDER BY d, t.id), day_start, t.id, d + 1, 8, day_start, 380, '[]'::jsonb,
                   'closed', day_start + interval '2 hours', '{}'::jsonb, 0, %(coups)s
            FROM tables_table t, generate_series(0, %(days)s - 1) d,
                 LATERAL (SELECT ((%(first)s::date + d) + time '10:00') AT TIME ZONE current_setting('TIMEZONE')
                          AS day_start) s;
            INSERT INTO shoes_coup (id, recorded_at, shoe_id, number, dealt_at, gaming_day, player_cards,
                banker_cards, player_total, banker_total, winner, "natural", player_pair, banker_pair,
                reported_winner, paytable_id)
            SELECT (s.id - 1) * %(coups)s + p.number, s.shuffled_at + p.number * interval '90 seconds', s.id,
                   p.number, s.shuffled_at + p.number * interval '90 seconds', %(first)s::date + (s.sequence - 1),
                   p.player_cards, p.banker_cards, p.player_total, p.banker_total, p.winner, p.nat, p.player_pair,
                   p.banker_pair, p.winner, %(paytable)s
            FROM shoes_shoe s JOIN bench_pool_coup p ON p.pool_shoe = s.id %% %(pool)s;
            INSERT INTO shoes_wager (coup_id, gaming_day, seat, bet, currency, amount_minor, result, payout_minor,
                commission_minor, paid_minor)
            SELECT c.id, c.gaming_day, w.seat, w.bet, 'USD', w.amount, w.result, w.payout, w.commission, w.payout
            FROM shoes_coup c JOIN bench_pool_wager w ON w.pool_shoe = c.shoe_id %% %(pool)s AND w.number = c.number
            ORDER BY c.id, w.seat;
            INSERT INTO ledger_commissionentry (recorded_at, shoe_id, gaming_day, seat, kind, currency, amount_minor,
                wager_id, collection_reason, note)
            SELECT c.recorded_at, c.shoe_id, c.gaming_day, w.seat, 'accrued', 'USD', w.commission_minor, w.id, '', ''
            FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE w.commission_minor > 0;
            DROP TABLE bench_pool_coup; DROP TABLE bench_pool_wager;
            """,
            params,
        )
        for table_name in ("shoes_shoe", "shoes_coup"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table_name}', 'id'), (SELECT max(id) FROM {table_name}))"
            )
        cursor.execute("ANALYZE")
        cursor.execute("SELECT (SELECT count(*) FROM shoes_coup), (SELECT count(*) FROM shoes_wager)")
        return cursor.fetchone()


def storage_per_coup(coups: int) -> float:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_total_relation_size(name::regclass)) FROM unnest(%s::text[]) name",
            [["shoes_coup", "shoes_wager", "ledger_commissionentry", "shoes_shoe"]],
        )
        return cursor.fetchone()[0] / coups


ANCHOR_TABLE_RESULTS_SQL = """
SELECT c.gaming_day, s.table_id, w.bet, count(*), sum(w.amount_minor), sum(w.payout_minor), sum(w.commission_minor),
       sum(w.amount_minor) FILTER (WHERE w.result = 'lose'), sum(w.amount_minor::numeric * w.amount_minor)
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id JOIN shoes_shoe s ON s.id = c.shoe_id
WHERE c.gaming_day BETWEEN %s AND %s AND NOT EXISTS (SELECT 1 FROM shoes_coupcorrection k WHERE k.coup_id = w.coup_id)
GROUP BY 1, 2, 3
"""
ANCHOR_COMMISSION_SQL = """
SELECT e.shoe_id, e.seat, sum(e.amount_minor), count(*) FILTER (WHERE e.kind = 'accrued')
FROM ledger_commissionentry e JOIN shoes_shoe s ON s.id = e.shoe_id
WHERE s.id IN (SELECT shoe_id FROM shoes_coup WHERE gaming_day BETWEEN %s AND %s)
GROUP BY 1, 2
"""
READ_SQL = """
SELECT c.id, c.shoe_id, c.number, c.dealt_at, c.recorded_at, c.gaming_day, c.player_cards, c.banker_cards,
       c.reported_winner, c.paytable_id, w.id, w.seat, w.bet, w.currency, w.amount_minor, w.paid_minor
FROM shoes_coup c LEFT JOIN shoes_wager w ON w.coup_id = c.id
WHERE c.gaming_day BETWEEN %s AND %s
"""


def timed(function) -> tuple[float, object]:
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def run_sql(sql: str, first: dt.date, last: dt.date) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, [first, last])
        return len(cursor.fetchall())


def stream_read(first: dt.date, last: dt.date) -> int:
    from django.db import connection, transaction

    coups = set()
    with transaction.atomic(), connection.cursor() as django_cursor:
        raw = django_cursor.cursor.connection.cursor(name="bench_scale_read")
        raw.itersize = 5000
        raw.execute(READ_SQL, [first, last])
        for row in raw:
            coups.add(row[0])
        raw.close()
    return len(coups)


def main() -> None:
    create_database()
    setup_django()
    from django.core.management import call_command
    from django.test import override_settings

    from pit.compliance.checks import coups_sweep
    from pit.reports.accounting import MASTER_GAME
    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import ReportFilters
    from pit.rollups.models import BetRollup, TableDayRollup
    from pit.rollups.services import rollups_rebuild

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.1f}s", flush=True)
    seconds, (coups, wagers) = timed(generate)
    print(
        f"generated {TABLES} tables x {DAYS} days x {COUPS_PER_DAY} coups: {coups:,} coups, {wagers:,} wagers "
        f"in {seconds:.1f}s",
        flush=True,
    )
    figure("scale.coups", coups, "coups")
    figure("scale.wagers", wagers, "wagers")
    figure("scale.generate_seconds", f"{seconds:.1f}", "s")
    figure("scale.storage_per_coup", f"{storage_per_coup(coups):.0f}", "bytes")

    first, last = FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS - 1)
    rebuild_seconds, counts = timed(lambda: rollups_rebuild(date_from=first, date_to=last))
    figure("scale.rollups_rebuild_seconds", f"{rebuild_seconds:.1f}", "s")
    figure("scale.rollups_rebuild_per_table_day", f"{rebuild_seconds / max(counts['table_days'], 1) * 1000:.1f}", "ms")
    figure("scale.rollup_rows", TableDayRollup.objects.count() + BetRollup.objects.count(), "rows")

    year = ReportFilters(date_from=first, date_to=last)
    table_results, commission = REPORTS["table-results"], REPORTS["commission"]
    month = ReportFilters(date_from=first, date_to=first + dt.timedelta(days=COMMISSION_DAYS - 1))

    def rows(definition, filters, rollups=True):
        with override_settings(PIT_ROLLUPS_READ=rollups):
            return sum(1 for _ in definition.rows(filters))

    samples: dict[str, list[float]] = {
        name: [] for name in ("tr", "tr_detail", "tr_anchor", "mg", "mg_detail", "com", "com_anchor")
    }
    for _ in range(REPEAT):  # interleaved: each figure beside its anchor in every round
        for name, job in (
            ("tr_anchor", lambda: run_sql(ANCHOR_TABLE_RESULTS_SQL, first, last)),
            ("tr", lambda: rows(table_results, year)),
            ("tr_detail", lambda: rows(table_results, year, rollups=False)),
            ("mg", lambda: rows(MASTER_GAME, year)),
            ("mg_detail", lambda: rows(MASTER_GAME, year, rollups=False)),
            ("com_anchor", lambda: run_sql(ANCHOR_COMMISSION_SQL, month.date_from, month.date_to)),
            ("com", lambda: rows(commission, month)),
        ):
            samples[name].append(timed(job)[0])
            print(f"  {name}: {samples[name][-1]:.2f}s", flush=True)
    median = {name: statistics.median(values) for name, values in samples.items()}
    figure("scale.table_results.figure", f"{median['tr']:.2f}", "s")
    figure("scale.table_results.anchor", f"{median['tr_anchor']:.2f}", "s")
    figure("scale.table_results.ratio", f"{median['tr'] / median['tr_anchor']:.3f}", "x")
    figure("scale.table_results_detail", f"{median['tr_detail']:.2f}", "s")
    figure("scale.table_results_rollup_speedup", f"{median['tr_detail'] / median['tr']:.1f}", "x")
    figure("scale.master_game.figure", f"{median['mg']:.2f}", "s")
    figure("scale.master_game.anchor", f"{median['tr_anchor']:.2f}", "s")
    figure("scale.master_game.ratio", f"{median['mg'] / median['tr_anchor']:.3f}", "x")
    figure("scale.master_game_detail", f"{median['mg_detail']:.2f}", "s")
    figure("scale.commission.figure", f"{median['com']:.2f}", "s")
    figure("scale.commission.anchor", f"{median['com_anchor']:.2f}", "s")
    figure("scale.commission.ratio", f"{median['com'] / median['com_anchor']:.3f}", "x")

    sweep_last = first + dt.timedelta(days=SWEEP_DAYS - 1)
    stream_read(first, sweep_last)  # warm the cache: both sides read from memory
    coups_sweep(first_day=first, last_day=sweep_last)  # the first pass writes the findings; then the nightly case
    sweep, read = [], []
    swept = 0
    for _ in range(REPEAT):
        read.append(timed(lambda: stream_read(first, sweep_last)))
        sweep.append(timed(lambda: coups_sweep(first_day=first, last_day=sweep_last)))
        swept = sweep[-1][1].coups
    sweep_rate = swept / statistics.median(seconds for seconds, _ in sweep)
    read_rate = read[0][1] / statistics.median(seconds for seconds, _ in read)
    figure("scale.sweep.figure", f"{sweep_rate:.0f}", "coups/s")
    figure("scale.sweep.anchor", f"{read_rate:.0f}", "coups/s")
    figure("scale.sweep.ratio", f"{sweep_rate / read_rate:.3f}", "x")
    figure("scale.sweep_year_minutes", f"{coups / sweep_rate / 60:.1f}", "minutes")


if __name__ == "__main__":
    main()
