"""Benchmark: a progressive meter over a bank of PIT_BENCH_PROGRESSIVE_TABLES tables (20) read as a floor
display reads it (`meter_figures`: every configuration's standing stakes, the corrected coups' carried
stakes, the payouts), against the raw baseline of one SQL SUM of the same wagers' stakes.

The bank's play is what the floor simulator deals (`pit.floor.simulator.simulate` through the services):
PIT_BENCH_PROGRESSIVE_SHOES shoes (3; a table's day is about 10) at each table, with Player Pair side
bets, on the meter's bet; a few coups voided. On PostgreSQL (DATABASE_URL=postgres://...) in a database
of its own, `pit_bench_progressives` (dropped first); else in a SQLite file of its own.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python tests/benchmarks/bench_progressives.py
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TABLES = int(os.environ.get("PIT_BENCH_PROGRESSIVE_TABLES", "20"))
SHOES = int(os.environ.get("PIT_BENCH_PROGRESSIVE_SHOES", "3"))
REPEATS = max(5, int(os.environ.get("PIT_BENCH_PROGRESSIVE_REPEATS", "15")))
BENCH_DB = "pit_bench_progressives"


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def setup_django() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{BENCH_DB}"')
        os.environ["DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + BENCH_DB
    else:
        os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='pit-bench-progressives-')}/pit.sqlite3"
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import connection

    return connection.vendor


def median_ms(run) -> float:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    vendor = setup_django()
    from django.db import connection

    from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
    from pit.floor.clients import ServicesFloorClient
    from pit.floor.simulator import simulate
    from pit.paytables.services import paytable_create_from_preset
    from pit.progressives.selectors import meter_figures
    from pit.progressives.services import meter_file
    from pit.shoes.models import Coup
    from pit.shoes.services import coup_void
    from pit.tables.models import Table
    from pit.tables.services import table_create

    paytable = paytable_create_from_preset(preset="commission_box")
    codes = [f"T{number:02d}" for number in range(1, TABLES + 1)]
    limits = {"player": (Decimal(25), Decimal(10000)), "banker": (Decimal(25), Decimal(10000))}
    for code in codes:
        table_create(code=code, name=code, game="big", paytable=paytable, limits=limits)
    meter = meter_file(
        code="PP1",
        name="Player Pair jackpot",
        bet="player_pair",
        currency="USD",
        effective_from=gaming_day_bounds(current_gaming_day())[0],
        base=Decimal("10000"),
        reset=Decimal("10000"),
        rate=Decimal("0.05"),
        tables=list(Table.objects.filter(code__in=codes)),
        filing_reference="BENCH",
    )
    started = time.perf_counter()
    result = simulate(ServicesFloorClient(), tables=codes, shoes_per_day=SHOES, seed=1, now=dt.datetime.now(dt.UTC))
    print(f"dealt {result.coups} coups, {result.wagers} wagers in {time.perf_counter() - started:.0f}s", flush=True)
    for coup in Coup.objects.order_by("pk")[:: max(result.coups // 20, 1)]:
        coup_void(coup=coup, reason="bench: a misdeal")

    # The baseline: the database adding up the same stakes, with no standing check and no carried stakes.
    table_ids = list(Table.objects.filter(code__in=codes).values_list("pk", flat=True))
    marks = ", ".join("%s" for _ in table_ids)
    sql = (
        "SELECT COALESCE(SUM(w.amount_minor), 0) FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id "
        "JOIN shoes_shoe s ON s.id = c.shoe_id WHERE w.bet = 'player_pair' AND w.currency = 'USD' "
        f"AND s.table_id IN ({marks})"  # noqa: S608 (placeholders only)
    )

    def raw() -> None:
        with connection.cursor() as cursor:
            cursor.execute(sql, table_ids)
            cursor.fetchone()

    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM shoes_wager WHERE bet = 'player_pair'")
        wagers = cursor.fetchone()[0]
    figures = meter_figures(meter)
    print(f"{vendor}: {TABLES} tables, {result.coups} coups, {wagers} player_pair wagers; meter {figures.amount_minor}")
    figure("progressives.raw_sum_ms", f"{median_ms(raw):.2f}", "ms")
    figure("progressives.meter_read_ms", f"{median_ms(lambda: meter_figures(meter)):.2f}", "ms")
    figure("progressives.bank_coups", result.coups, "coups")
    figure("progressives.bank_wagers_on_bet", wagers, "wagers")


if __name__ == "__main__":
    main()
