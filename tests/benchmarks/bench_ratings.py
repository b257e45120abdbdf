"""Benchmark: the ratings on PostgreSQL.

Creates the database `pit_bench_ratings` (PIT_BENCH_RATINGS_DB; dropped first) and migrates it. Then:

1. The rating refresh per coup checked, against the check itself, in the same run: a table with
   PIT_BENCH_RATINGS_SEATS players seated (rated patrons), coups posted one at a time through
   `coup_record` (two to four wagers a seat: a main bet and side bets), and for each coup, timed
   apart, `coups_check([coup])` (what the urgent task runs per coup) and `ratings_refresh` of the
   table-day (what the ratings' task runs per coup). PIT_BENCH_RATINGS_COUPS coups (median of each;
   the first 10 warm up). Target: the refresh costs at most 10% of the check.
2. A gaming day's patron-day report for a pit of PIT_BENCH_RATINGS_TABLES tables (200) and
   PIT_BENCH_RATINGS_SESSIONS sessions (5,000) of 2,000 patrons, with their ratings, a buy-in each
   and a comp each (rows written with bulk inserts), against one aggregate SQL query over the same
   rows (ratings, buy-ins and comps grouped by patron), median of PIT_BENCH_RATINGS_REPEATS runs.
   Target: the report in at most 2 s and at most twice the query.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_ratings.py
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_RATINGS_DB", "pit_bench_ratings")
COUPS = int(os.environ.get("PIT_BENCH_RATINGS_COUPS", "70"))
SEATS = int(os.environ.get("PIT_BENCH_RATINGS_SEATS", "7"))
TABLES = int(os.environ.get("PIT_BENCH_RATINGS_TABLES", "200"))
SESSIONS = int(os.environ.get("PIT_BENCH_RATINGS_SESSIONS", "5000"))
REPEATS = max(3, int(os.environ.get("PIT_BENCH_RATINGS_REPEATS", "5")))
WARM_UP = 10


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django() -> None:
    os.environ["DATABASE_URL"] = ADMIN_URL.rsplit("/", 1)[0] + "/" + BENCH_DB
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "False"  # the tasks are timed here, not run at commit
    os.environ.setdefault("CELERY_BROKER_URL", "memory://")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def timed(function, *args, **kwargs) -> float:
    started = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - started


def per_coup() -> None:
    from pit.compliance.checks import coups_check
    from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
    from pit.game.shoe import new_shoe
    from pit.ratings.services import ratings_refresh
    from pit.shoes.services import CoupInput, WagerInput, coup_record
    from tests import factories
    from tests.ratings.players import floor_seat, patron

    rng = random.Random(20261202)
    day = current_gaming_day()
    start = gaming_day_bounds(day)[0] + dt.timedelta(hours=1)
    table = factories.table("RT1", limits={"player": ("25", "10000"), "banker": ("25", "10000"), "tie": ("5", "1000")})
    seats = [seat for seat in range(1, 17) if seat not in (4, 13)][:SEATS]  # no seat 4 or 13 at a big table
    for seat in seats:
        floor_seat(table=table, seat=seat, at=start, patron=patron(f"B-{seat:04d}"))
    shoe = factories.shoe(table, shuffled_at=start)
    dealing = new_shoe(8, rng)
    checks, refreshes = [], []
    for number in range(1, COUPS + 1):
        dealt = dealing.deal_coup()
        player, banker = [card.code for card in dealt.player], [card.code for card in dealt.banker]
        wagers = []
        for seat in seats:
            wagers.append(
                WagerInput(seat=seat, bet=rng.choice(("banker", "player")), amount=Decimal(rng.choice((25, 100, 500))))
            )
            if rng.random() < 0.3:
                wagers.append(WagerInput(seat=seat, bet="tie", amount=Decimal(25)))
        coup = coup_record(
            shoe=shoe,
            coup=CoupInput(
                number=number,
                player=player,
                banker=banker,
                wagers=tuple(wagers),
                dealt_at=start + dt.timedelta(seconds=50 * number),
            ),
        ).coup
        check = timed(coups_check, coup_ids=[coup.pk])
        refresh = timed(ratings_refresh, table_id=table.pk, gaming_day=coup.gaming_day)
        if number > WARM_UP:
            checks.append(check)
            refreshes.append(refresh)
    check, refresh = statistics.median(checks), statistics.median(refreshes)
    figure("check of one coup (coups_check), per coup", f"{check * 1000:.1f}", "ms")
    figure(f"rating refresh per coup ({SEATS} seated sessions)", f"{refresh * 1000:.1f}", "ms")
    figure("rating refresh / check per coup (target <= 10%)", f"{refresh / check * 100:.1f}", "%")


def patron_day() -> None:
    from django.db import connection

    from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
    from pit.players.models import BuyIn, Patron, PatronVersion, SeatSession
    from pit.ratings.models import CompEntry, SessionRating
    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import ReportFilters, report_lines
    from tests import factories
    from tests.ratings.players import tier

    rng = random.Random(5000)
    day = current_gaming_day() - dt.timedelta(days=1)
    start = gaming_day_bounds(day)[0]
    tables = [factories.table(f"P{number:03d}", open_=False) for number in range(1, TABLES + 1)]
    gold = tier()
    patrons = Patron.objects.bulk_create([Patron(card_number=f"D-{n:06d}") for n in range(2000)])
    PatronVersion.objects.bulk_create(
        [
            PatronVersion(patron=p, name=f"P {p.pk}", tier=gold, nationality=rng.choice(("CN", "HK", "MO")))
            for p in patrons
        ]
    )
    sessions = SeatSession.objects.bulk_create(
        [
            SeatSession(
                table=tables[n % TABLES],
                seat=1 + (n // TABLES) % 7,
                patron=patrons[n % len(patrons)],
                started_at=start + dt.timedelta(minutes=n % 900, seconds=n),
                gaming_day=day,
            )
            for n in range(SESSIONS)
        ]
    )
    SessionRating.objects.bulk_create(
        [
            SessionRating(
                session=s,
                patron_id=s.patron_id,
                table_id=s.table_id,
                gaming_day=day,
                currency="USD",
                seconds_played=rng.randint(600, 7200),
                coups_played=(coups := rng.randint(10, 150)),
                table_coups=coups + 5,
                wagers=coups * 2,
                handle_minor=(handle := coups * rng.choice((2500, 10000, 50000))),
                largest_bet_minor=50000,
                won_minor=rng.randint(-handle // 10, handle // 10),
                theo_minor=Decimal(handle) * Decimal("0.0123"),
                standard_theo_minor=Decimal(handle) * Decimal("0.0106"),
                as_of=s.started_at,
            )
            for s in sessions
        ]
    )
    BuyIn.objects.bulk_create(
        [BuyIn(session=s, kind="cash", currency="USD", amount_minor=500000, at=s.started_at) for s in sessions]
    )
    CompEntry.objects.bulk_create(
        [
            CompEntry(patron_id=s.patron_id, kind="earned", session=s, currency="USD", amount_minor=1000)
            for s in sessions
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    filters = ReportFilters(date_from=day, date_to=day)
    definition = REPORTS["patron-day"]
    query = """
        SELECT r.gaming_day, r.currency, p.card_number, count(*), sum(r.seconds_played), sum(r.coups_played),
               sum(r.handle_minor), sum(r.theo_minor), sum(r.standard_theo_minor), sum(r.won_minor),
               sum(b.amount), sum(c.amount)
        FROM ratings_sessionrating r
        JOIN players_patron p ON p.id = r.patron_id
        LEFT JOIN (SELECT session_id, sum(amount_minor) AS amount FROM players_buyin GROUP BY session_id) b
               ON b.session_id = r.session_id
        LEFT JOIN (SELECT session_id, sum(amount_minor) AS amount FROM ratings_compentry GROUP BY session_id) c
               ON c.session_id = r.session_id
        WHERE r.gaming_day = %s AND r.patron_id IS NOT NULL
        GROUP BY r.gaming_day, r.currency, p.card_number ORDER BY 1, 2, 3
    """

    def anchor():
        with connection.cursor() as cursor:
            cursor.execute(query, [day])
            return cursor.fetchall()

    rows = len(anchor())
    reports, anchors = [], []
    for _ in range(REPEATS):
        reports.append(timed(lambda: list(report_lines(definition, filters))))
        anchors.append(timed(anchor))
    report, raw = statistics.median(reports), statistics.median(anchors)
    figure(f"patron-day report, {TABLES} tables, {SESSIONS:,} sessions ({rows:,} patron rows)", f"{report:.3f}", "s")
    figure("one aggregate SQL query over the same rows", f"{raw:.3f}", "s")
    figure("patron-day report / aggregate query (target <= 2x)", f"{report / raw:.2f}", "x")


def main() -> None:
    create_database()
    setup_django()
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.1f}s", flush=True)
    per_coup()
    patron_day()


if __name__ == "__main__":
    main()
