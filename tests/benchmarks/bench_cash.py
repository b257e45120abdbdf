"""Benchmark: the patrons' cash on PostgreSQL.

Creates the database `pit_bench_cash` (PIT_BENCH_CASH_DB; dropped first) and migrates it. Then:

1. A gaming day of a pit of PIT_BENCH_CASH_TABLES tables (200): PIT_BENCH_CASH_PATRONS patrons
   (20,000), a finished seat session each with a cash buy-in and the chips walked, and
   PIT_BENCH_CASH_TRANSACTIONS cash transactions (100,000: each buy-in's chip purchase, cage chip
   purchases and redemptions, one in twenty by a person known only by description; most under the
   MTL threshold, a few over the CTR threshold, some just under a threshold), rows written with bulk
   inserts under the US rules. The day's check (`cash_check_day`: the per-person aggregation, the
   CTR worksheets and identification requests, and every pattern: structuring by patron and at a
   table, minimal gaming, chip walking, cash out for another), against one aggregate SQL query
   over the same rows (cash in and cash out per person), median of PIT_BENCH_CASH_REPEATS runs (the
   first run, which records the findings, shown apart). Target: the check in at most 5 s and at
   most 3x the query.
2. A cash transaction's POST /api/v1/cash/transactions/ by a cage terminal (a device granted the
   cage scope), under production gunicorn, open loop at PIT_BENCH_CASH_RATE requests/s (20) for
   PIT_BENCH_CASH_SECONDS (30) cut into 3 interleaved rounds with GET /healthz, with the helpers of
   bench_post.py (each request from its scheduled send time). Figures: the median over rounds of
   each round's p99. Target: the POST's p99 at most 2x /healthz's. CELERY_BROKER_URL as the broker
   when it is a Redis URL (its queues are the benchmark's), else a scratch filesystem broker.

PIT_BENCH_CASH_PROFILE=1 prints a profile of one day's check instead of the figures (and skips 2).

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_cash.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.bench_post import (  # noqa: E402  (after the path)
    OpenLoop,
    free_port,
    healthz_sender,
    http_connection,
    start_gunicorn,
    summary,
)

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_CASH_DB", "pit_bench_cash")
TABLES = int(os.environ.get("PIT_BENCH_CASH_TABLES", "200"))
PATRONS = int(os.environ.get("PIT_BENCH_CASH_PATRONS", "20000"))
TRANSACTIONS = int(os.environ.get("PIT_BENCH_CASH_TRANSACTIONS", "100000"))
REPEATS = max(3, int(os.environ.get("PIT_BENCH_CASH_REPEATS", "5")))
RATE = float(os.environ.get("PIT_BENCH_CASH_RATE", "20"))
SECONDS = float(os.environ.get("PIT_BENCH_CASH_SECONDS", "30"))
ROUNDS = 3
BENCH_URL = ADMIN_URL.rsplit("/", 1)[0] + "/" + BENCH_DB


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def create_database(drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        if not drop_only:
            connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django() -> None:
    os.environ["DATABASE_URL"] = BENCH_URL
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "False"
    os.environ["PIT_CASH_JURISDICTION"] = "us"
    os.environ.setdefault("CELERY_BROKER_URL", "memory://")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


def timed(function, *args, **kwargs) -> float:
    started = time.perf_counter()
    function(*args, **kwargs)
    return time.perf_counter() - started


def _amount(rng: random.Random) -> int:
    """Minor units of USD: most under the MTL threshold, some just under a threshold, a few over the CTR's."""
    draw = rng.random()
    if draw < 0.90:
        return rng.choice((100, 200, 300, 500, 1000, 1500, 2000)) * 100
    if draw < 0.95:
        return rng.randint(2400, 2999) * 100  # just under the MTL threshold
    if draw < 0.98:
        return rng.randint(3100, 7900) * 100
    if draw < 0.99:
        return rng.randint(8000, 9999) * 100  # just under the CTR threshold
    return rng.randint(10001, 40000) * 100


def cash_day() -> None:
    from django.db import connection

    from pit.cash.models import DIRECTIONS, CashTransaction
    from pit.cash.services import cash_check_day
    from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
    from pit.players.models import BuyIn, ChipsWalked, Patron, SeatSession, SessionEvent
    from tests import factories

    rng = random.Random(100000)
    day = current_gaming_day() - dt.timedelta(days=1)
    start = gaming_day_bounds(day)[0] + dt.timedelta(hours=2)
    tables = [factories.table(f"C{number:03d}", open_=False) for number in range(1, TABLES + 1)]
    patrons = Patron.objects.bulk_create([Patron(card_number=f"C-{n:06d}") for n in range(PATRONS)])
    sessions = SeatSession.objects.bulk_create(
        [
            SeatSession(
                table=tables[n % TABLES],
                seat=1 + (n // TABLES) % 7,
                patron=patrons[n],
                started_at=start + dt.timedelta(seconds=2 * n),
                gaming_day=day,
            )
            for n in range(PATRONS)
        ]
    )
    buy_ins = BuyIn.objects.bulk_create(
        [BuyIn(session=s, kind="cash", currency="USD", amount_minor=_amount(rng), at=s.started_at) for s in sessions]
    )
    SessionEvent.objects.bulk_create(
        [SessionEvent(session=s, kind="stand", at=s.started_at + dt.timedelta(hours=1)) for s in sessions]
    )
    ChipsWalked.objects.bulk_create(
        [
            ChipsWalked(
                session=b.session,
                how="counted",
                currency="USD",
                amount_minor=b.amount_minor,
                at=b.at + dt.timedelta(hours=1),
            )
            for b in buy_ins
        ]
    )

    def row(n: int, kind: str, **values) -> CashTransaction:
        return CashTransaction(
            reference=f"B-{n}",
            kind=kind,
            direction=DIRECTIONS[kind],
            gaming_day=day,
            currency="USD",
            reporting_currency="USD",
            rate="1",
            **values,
        )

    rows = [
        row(
            n,
            "chip_purchase",
            at=b.at,
            table=b.session.table,
            location=b.session.table.code,
            patron_id=b.session.patron_id,
            session=b.session,
            buy_in=b,
            amount_minor=b.amount_minor,
        )
        for n, b in enumerate(buy_ins)
    ]
    for n in range(len(rows), TRANSACTIONS):
        known = rng.random() >= 0.05
        rows.append(
            row(
                n,
                rng.choice(("chip_purchase", "chip_redemption")),
                at=start + dt.timedelta(seconds=rng.randint(0, 20 * 3600)),
                location=f"cage window {1 + n % 6}",
                patron=patrons[rng.randrange(PATRONS)] if known else None,
                description="" if known else f"person {rng.randrange(2000)}",
                amount_minor=_amount(rng),
            )
        )
    CashTransaction.objects.bulk_create(rows, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    query = """
        SELECT patron_id, CASE WHEN patron_id IS NULL THEN description ELSE '' END AS person,
               sum(CASE WHEN direction = 'in' THEN amount_minor * rate::numeric ELSE 0 END) AS cash_in,
               sum(CASE WHEN direction = 'out' THEN amount_minor * rate::numeric ELSE 0 END) AS cash_out,
               count(*)
        FROM cash_cashtransaction WHERE gaming_day = %s GROUP BY 1, 2
    """

    def anchor():
        with connection.cursor() as cursor:
            cursor.execute(query, [day])
            return cursor.fetchall()

    people = len(anchor())
    first = 0.0
    counts = {}

    def check():
        counts.update(cash_check_day(day=day))

    first = timed(check)
    found = dict(counts)
    if os.environ.get("PIT_BENCH_CASH_PROFILE"):  # where the check's time goes, then no more
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.runcall(check)
        pstats.Stats(profile).sort_stats("cumulative").print_stats("pit/", 40)
        return
    checks, anchors = [], []
    for _ in range(REPEATS):
        checks.append(timed(check))
        anchors.append(timed(anchor))
    steady, raw = statistics.median(checks), statistics.median(anchors)
    print(f"first check recorded {found['found']} findings; {people:,} persons in the day", flush=True)
    figure(f"day's cash check, first run (records the findings), {TRANSACTIONS:,} transactions", f"{first:.3f}", "s")
    figure(
        f"day's cash check (aggregation and every pattern), {TABLES} tables, {TRANSACTIONS:,} transactions, "
        f"{PATRONS:,} patrons",
        f"{steady:.3f}",
        "s",
    )
    figure("one aggregate SQL query over the same rows", f"{raw:.3f}", "s")
    figure("day's cash check / aggregate query (target <= 3x)", f"{steady / raw:.2f}", "x")


def cage_terminal() -> str:
    from pit.accounting.models import DeviceGrant
    from pit.accounts.services import device_create
    from pit.players.models import Patron, PatronVersion
    from pit.tables.models import Table
    from tests.ratings.players import tier

    gold = tier()
    PatronVersion.objects.bulk_create(
        [PatronVersion(patron=p, name=f"P {p.pk}", tier=gold, nationality="US") for p in Patron.objects.all()]
    )

    device, key = device_create(table=Table.objects.order_by("code").first(), name="cage terminal")
    DeviceGrant.objects.create(device=device, scope="cage")
    return key


def cash_sender(port: int, key: str, cards: list[str]):
    def send(index: int, local) -> str | None:
        connection = http_connection(local, port)
        body = {
            "reference": f"POST-{uuid.uuid4().hex[:20]}",
            "kind": "chip_purchase" if index % 2 else "chip_redemption",
            "at": dt.datetime.now(dt.UTC).isoformat(),
            "currency": "USD",
            "amount": f"{500 + (index % 20) * 100}.00",
            "location": "cage window 1",
            "card_number": cards[index % len(cards)],
        }
        connection.request(
            "POST",
            "/api/v1/cash/transactions/",
            body=json.dumps(body),
            headers={
                "Authorization": f"Api-Key {key}",
                "Idempotency-Key": str(uuid.uuid4()),
                "Content-Type": "application/json",
                "X-Forwarded-Proto": "https",
                "Host": "127.0.0.1",
            },
        )
        response = connection.getresponse()
        answer = response.read()
        return None if response.status == 201 else f"{response.status} {answer[:200]!r}"

    return send


def cash_post(key: str) -> None:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    scratch = tempfile.mkdtemp(prefix="pit-bench-cash-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pit.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": BENCH_URL,
        "CELERY_BROKER_URL": broker if broker.startswith("redis://") else "filesystem://",
        "PIT_CACHE_URL": os.environ.get("PIT_CACHE_URL") or (broker if broker.startswith("redis://") else ""),
        "PIT_VAR_DIR": scratch,
        "DJANGO_STATIC_ROOT": str(Path(scratch) / "static"),
        "DJANGO_LOG_LEVEL": "WARNING",
        "PIT_HEALTH_REQUIRE_WORKERS": "False",
    }
    env = {name: value for name, value in env.items() if value != ""}
    port, log = free_port(), []
    gunicorn = start_gunicorn(env, SimpleNamespace(workers=0, max_requests=None), port, log)
    try:
        per_round = max(1, round(RATE * SECONDS / ROUNDS))
        cards = [f"C-{n:06d}" for n in range(0, PATRONS, max(1, PATRONS // 500))]
        loop = OpenLoop(RATE, 16)
        results: dict[str, list[dict]] = {"post": [], "healthz": []}
        print(f"{RATE:g}/s offered, {ROUNDS} rounds of {per_round} requests per loop", flush=True)
        for number in range(ROUNDS):
            print(f"round {number + 1}:", flush=True)
            for name, send in (("post", cash_sender(port, key, cards)), ("healthz", healthz_sender(port))):
                latencies, failures = loop.run(per_round, send)
                results[name].append(summary(name, latencies, failures))
                if failures:
                    raise SystemExit(f"{name}: {len(failures)} failed, e.g. {failures[0]}")
        post = statistics.median(r["p99"] for r in results["post"])
        health = statistics.median(r["p99"] for r in results["healthz"])
        figure(f"cash transaction POST p99 at {RATE:g}/s (cage terminal)", f"{post:.1f}", "ms")
        figure(f"/healthz p99 at {RATE:g}/s", f"{health:.1f}", "ms")
        figure("cash POST p99 / healthz p99 (target <= 2x)", f"{post / health:.2f}", "x")
    finally:
        gunicorn.terminate()
        gunicorn.wait(timeout=30)


def main() -> None:
    create_database()
    setup_django()
    from django.core.management import call_command
    from django.db import connections

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.1f}s", flush=True)
    try:
        cash_day()
        if os.environ.get("PIT_BENCH_CASH_PROFILE"):
            return
        key = cage_terminal()
        connections.close_all()
        cash_post(key)
    finally:
        connections.close_all()
        create_database(drop_only=True)


if __name__ == "__main__":
    main()
