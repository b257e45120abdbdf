"""Benchmark: the re-verification sweep over real dealt coups on PostgreSQL, against PostgreSQL merely
reading the same rows.

Creates the database `pit_bench_sweep` (dropped first if it exists), migrates it, and fills it with
shoes dealt by the game engine (`new_shoe`, `burn`, `deal_coup` up to the cut card) at 10 tables
over 20 gaming days: 60,000 coups (PIT_BENCH_SWEEP_COUPS) with 7 wagers each, settled by the engine,
their commission accruals, all written with COPY. A few faults are dealt in on purpose (a wrong
reported winner, a wrong payout, a wager over the table maximum, a seat on both sides) so that the
sweep has findings to write. Then, in one run:

- the read rate: server-side cursors streaming the columns the sweep reads, decoded by psycopg and
  nothing else done with them: coups joined to their wagers in one stream, and coups then wagers
  in two streams (the faster of the two is the bar the ratios compare with);
- the sweep's first pass (every coup judged, every finding inserted) and a re-run (the nightly
  case: everything judged again, nothing new to write);
- the ratio of each sweep rate to the read rate;
- game protection's share (`protection_check_shoes`, which the sweep runs after the rule checks):
  its first pass (sequence index, every coup's exact side-bet expectations, the seat and z tests)
  and a re-run, per coup.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_sweep.py
"""
from __future__ import annotations

import datetime as dt
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_SWEEP_DB", "pit_bench_sweep")
COUPS = int(os.environ.get("PIT_BENCH_SWEEP_COUPS", "60000"))
TABLES, DAYS = 10, 20
FIRST_DAY = dt.date(2026, 10, 1)
SEATS = [1, 2, 3, 5, 6, 7, 8]
AMOUNTS = [25, 50, 100, 100, 200, 500, 1000]
FAULT_RATE = 0.002  # per coup or wager, for each kind of fault


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
    """Deal the shoes with the engine and COPY them in. Returns (coups, wagers)."""
    from decimal import Decimal

    from django.db import connection
    from django.utils import timezone
    from psycopg.types.json import Jsonb

    from pit import game
    from pit.core.gaming_day import gaming_day_for
    from pit.core.money import to_minor
    from pit.core.partitions import partitions_ensure_sql
    from pit.paytables.services import paytable_create_from_preset
    from tests import factories

    rng = random.Random(20261129)
    paytable_config = paytable_create_from_preset(preset="commission_box")
    paytable = game.PRESETS["commission_box"]
    tables = [
        factories.table(f"BB{number}", limits={"player": ("25", "10000"), "banker": ("25", "10000"),
                                               "tie": ("5", "1000")})
        for number in range(1, TABLES + 1)
    ]
    tz = timezone.get_current_timezone()
    shoes, coups, wagers, accruals = [], [], [], []
    shoe_id = coup_id = wager_id = 0
    table_clock = {table.pk: dt.datetime.combine(FIRST_DAY, dt.time(6, 30), tzinfo=tz) for table in tables}
    sequence = {table.pk: 0 for table in tables}
    coups_per_day = COUPS / DAYS
    while coup_id < COUPS:
        table = tables[shoe_id % TABLES]
        shoe_id += 1
        sequence[table.pk] += 1
        dealer = game.new_shoe(8, rng)
        burn = [card.code for card in dealer.burn()]
        started = table_clock[table.pk]
        number, moment = 0, started
        while not dealer.cut_card_reached and coup_id < COUPS:
            dealt = dealer.deal_coup()
            number += 1
            coup_id += 1
            # Spread the coups evenly over the gaming days, 40 seconds apart at a table.
            day = FIRST_DAY + dt.timedelta(days=int((coup_id - 1) / coups_per_day))
            moment = max(moment + dt.timedelta(seconds=40),
                         dt.datetime.combine(day, dt.time(6, 30), tzinfo=tz))
            evaluation = game.evaluate(dealt)
            reported = str(evaluation.winner)
            if rng.random() < FAULT_RATE:
                reported = "tie" if reported != "tie" else "player"
            coups.append((
                coup_id, moment + dt.timedelta(seconds=2), shoe_id, number, moment, gaming_day_for(moment),
                Jsonb([card.code for card in dealt.player]), Jsonb([card.code for card in dealt.banker]),
                evaluation.player_total, evaluation.banker_total, str(evaluation.winner), evaluation.natural,
                evaluation.player_pair, evaluation.banker_pair, reported, paytable_config.pk,
            ))
            for seat in SEATS:
                bets = [rng.choice(["banker", "banker", "player", "player", "tie"])]
                if rng.random() < FAULT_RATE and bets[0] != "tie":
                    bets.append("player" if bets[0] == "banker" else "banker")
                for bet in bets:
                    amount = Decimal(rng.choice(AMOUNTS))
                    if rng.random() < FAULT_RATE:
                        amount = Decimal(15000)
                    settlement = game.settle(paytable, bet, amount, evaluation)
                    payout = to_minor(settlement.payout, "USD")
                    paid = payout + 100 if rng.random() < FAULT_RATE else payout
                    commission = to_minor(settlement.commission, "USD")
                    wager_id += 1
                    wagers.append((
                        wager_id, coup_id, gaming_day_for(moment), seat, bet, "USD", to_minor(amount, "USD"),
                        str(settlement.result), payout, commission, paid,
                    ))
                    if commission:
                        accruals.append(
                            (moment, shoe_id, seat, "accrued", "USD", commission, wager_id, gaming_day_for(moment),
                             "", "")
                        )
        closed = moment + dt.timedelta(minutes=2)
        table_clock[table.pk] = closed + dt.timedelta(minutes=5)
        shoes.append((
            shoe_id, started, table.pk, sequence[table.pk], 8, started, dealer.cut_position, Jsonb(burn),
            "closed", closed, Jsonb(dict(dealer.cards_seen())), len(dealer.dealt), number,
        ))
    with connection.cursor() as cursor:
        partitions_ensure_sql(cursor, FIRST_DAY, moment.date())  # the months' partitions
        raw = cursor.cursor
        for table_name, columns, rows in (
            ("shoes_shoe", "id, recorded_at, table_id, sequence, decks, shuffled_at, cut_card_position, "
             "burn_cards, status, closed_at, cards_seen, cards_dealt, coups_recorded", shoes),
            ("shoes_coup", "id, recorded_at, shoe_id, number, dealt_at, gaming_day, player_cards, "
             "banker_cards, player_total, banker_total, winner, \"natural\", player_pair, banker_pair, "
             "reported_winner, paytable_id", coups),
            ("shoes_wager", "id, coup_id, gaming_day, seat, bet, currency, amount_minor, result, payout_minor, "
             "commission_minor, paid_minor", wagers),
            ("ledger_commissionentry", "recorded_at, shoe_id, seat, kind, currency, amount_minor, wager_id, "
             "gaming_day, collection_reason, note", accruals),
        ):
            with raw.copy(f"COPY {table_name} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        for table_name in ("shoes_shoe", "shoes_coup", "shoes_wager"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table_name}', 'id'), "
                f"(SELECT max(id) FROM {table_name}))"
            )
        cursor.execute("ANALYZE")
    return len(coups), len(wagers)


READ_SQL = """
SELECT c.id, c.shoe_id, c.number, c.dealt_at, c.recorded_at, c.gaming_day, c.player_cards, c.banker_cards,
       c.reported_winner, c.paytable_id, w.id, w.seat, w.bet, w.currency, w.amount_minor, w.paid_minor
FROM shoes_coup c LEFT JOIN shoes_wager w ON w.coup_id = c.id
WHERE c.gaming_day BETWEEN %s AND %s
"""


READ_COUPS_SQL = """
SELECT c.id, c.shoe_id, c.number, c.dealt_at, c.recorded_at, c.gaming_day, c.player_cards, c.banker_cards,
       c.reported_winner, c.paytable_id
FROM shoes_coup c WHERE c.gaming_day BETWEEN %s AND %s
"""
READ_WAGERS_SQL = """
SELECT w.id, w.coup_id, w.seat, w.bet, w.currency, w.amount_minor, w.paid_minor
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE c.gaming_day BETWEEN %s AND %s
"""


def read_separately(first: dt.date, last: dt.date) -> tuple[int, int, float]:
    """The same rows as two streams, coups then wagers (no coup columns repeated per wager), as the
    sweep reads them. Returns (coups, rows, seconds)."""
    from django.db import connection, transaction

    started = time.perf_counter()
    coups = rows = 0
    with transaction.atomic(), connection.cursor() as django_cursor:
        for name, sql in (("bench_coups", READ_COUPS_SQL), ("bench_wagers", READ_WAGERS_SQL)):
            raw = django_cursor.cursor.connection.cursor(name=name)
            raw.itersize = 5000
            raw.execute(sql, [first, last])
            count = sum(1 for _ in raw)
            raw.close()
            coups = coups or count
            rows += count
    return coups, rows, time.perf_counter() - started


def read_rate(first: dt.date, last: dt.date) -> tuple[int, int, float]:
    """Stream the coups and wagers through a server-side cursor. Returns (coups, rows, seconds)."""
    from django.db import connection, transaction

    started = time.perf_counter()
    coups, rows = set(), 0
    with transaction.atomic(), connection.cursor() as django_cursor:
        raw = django_cursor.cursor.connection.cursor(name="bench_read")
        raw.itersize = 5000
        raw.execute(READ_SQL, [first, last])
        for row in raw:
            rows += 1
            coups.add(row[0])
        raw.close()
    return len(coups), rows, time.perf_counter() - started


def main() -> None:
    create_database()
    setup_django()
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.1f}s", flush=True)
    started = time.perf_counter()
    coups, wagers = generate()
    print(f"dealt {coups:,} coups, {wagers:,} wagers in {time.perf_counter() - started:.1f}s", flush=True)

    from pit.compliance.checks import coups_sweep
    from pit.compliance.models import RuleViolation

    first, last = FIRST_DAY, FIRST_DAY + dt.timedelta(days=DAYS + 1)
    read_rate(first, last)  # warm the cache: both sides read from memory
    # The machine may be shared: the best of two runs of the read and of the re-run.
    read_coups, read_rows, read_seconds = min((read_rate(first, last) for _ in range(2)), key=lambda r: r[2])
    assert read_coups == coups, (read_coups, coups)
    _, split_rows, split_seconds = min((read_separately(first, last) for _ in range(2)), key=lambda r: r[2])

    from pit.protection.checks import protection_check_shoes
    from pit.shoes.models import Coup

    shoe_ids = list(Coup.objects.values_list("shoe_id", flat=True).distinct())
    started = time.perf_counter()
    protection_check_shoes(shoe_ids=shoe_ids)
    protection_first = time.perf_counter() - started

    started = time.perf_counter()
    first_pass = coups_sweep(first_day=first, last_day=last)
    first_seconds = time.perf_counter() - started
    rerun_seconds = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        rerun = coups_sweep(first_day=first, last_day=last)
        rerun_seconds = min(rerun_seconds, time.perf_counter() - started)
    assert first_pass.coups == rerun.coups == coups
    assert rerun.created == 0 and rerun.cleared == 0
    assert RuleViolation.objects.filter(found_by="coup_verification").count() == first_pass.created
    started = time.perf_counter()
    protection_check_shoes(shoe_ids=shoe_ids)
    protection_rerun = time.perf_counter() - started

    joined, split = coups / read_seconds, coups / split_seconds
    read = max(joined, split)  # the faster way PostgreSQL hands these rows over: the bar to compare with
    figure("sweep_coups", coups, "coups")
    figure("sweep_wagers", wagers, "wagers")
    figure("sweep_findings", first_pass.created, "findings")
    figure("read_joined_rate", f"{joined:.0f}", "coups/s")
    figure("read_joined_rows_rate", f"{read_rows / read_seconds:.0f}", "rows/s")
    figure("read_separate_rate", f"{split:.0f}", "coups/s")
    figure("read_separate_rows_rate", f"{split_rows / split_seconds:.0f}", "rows/s")
    figure("sweep_first_pass_rate", f"{coups / first_seconds:.0f}", "coups/s")
    figure("sweep_rerun_rate", f"{coups / rerun_seconds:.0f}", "coups/s")
    figure("sweep_first_pass_vs_read", f"{coups / first_seconds / read:.3f}", "ratio")
    figure("sweep_rerun_vs_read", f"{coups / rerun_seconds / read:.3f}", "ratio")
    # A busy pit: 20 tables, 70 coups an hour, 20 hours a day, 365 days.
    year = 20 * 70 * 20 * 365
    figure("protection_first_pass_per_coup", f"{protection_first / coups * 1000:.2f}", "ms")
    figure("protection_rerun_per_coup", f"{protection_rerun / coups * 1000:.2f}", "ms")
    figure("protection_rerun_vs_sweep_rerun", f"{protection_rerun / rerun_seconds:.3f}", "ratio")
    figure("sweep_busy_pit_year_estimate", f"{year / (coups / rerun_seconds) / 60:.1f}", "minutes")
    for code, count in sorted(first_pass.codes.items()):
        print(f"  {code}: {count:,}", flush=True)


if __name__ == "__main__":
    main()
