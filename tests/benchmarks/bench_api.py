"""Load benchmark of the floor API under gunicorn on PostgreSQL, production settings (not a test).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/anything .venv/bin/python tests/benchmarks/bench_api.py

Creates the database `pit_bench_api` on the server DATABASE_URL names (127.0.0.1 by default),
migrates it, starts gunicorn with deploy/gunicorn.conf.py (BENCH_API_WORKERS, default 3) and
pit.settings.production, then measures over keep-alive HTTP connections:

- single coups: BENCH_API_THREADS clients (default 4), each a table terminal posting its own table's
  coups one after the other, seven wagers per coup: throughput and p50/p99 latency;
- batches: a day of a table (BENCH_API_BATCH coups, default 800, seven wagers each) in one POST.

Celery tasks go to the embedded filesystem broker in a scratch folder (no worker runs: the rule
checks are the worker's time, not the API's). Prints FIGURE lines; skips with a message when
PostgreSQL cannot be reached. The database is dropped at the end.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
BENCH_DB = "pit_bench_api"
THREADS = int(os.environ.get("BENCH_API_THREADS", 4))
COUPS_PER_THREAD = int(os.environ.get("BENCH_API_COUPS", 300))
BATCH = int(os.environ.get("BENCH_API_BATCH", 800))
BATCH_ROUNDS = int(os.environ.get("BENCH_API_BATCH_ROUNDS", 3))
WORKERS = int(os.environ.get("BENCH_API_WORKERS", 3))
SEATS = [1, 2, 3, 5, 6, 7, 8]
BETS = ["player", "banker", "banker", "player", "tie", "banker", "player_pair"]


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def venv(name: str) -> str:
    path = ROOT / ".venv" / "bin" / name
    return str(path) if path.exists() else name


def database_urls() -> tuple[str, str]:
    """(the benchmark database's URL, the maintenance database's URL) on DATABASE_URL's server."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urlsplit(url)
    return (urlunsplit(parts._replace(path=f"/{BENCH_DB}")), urlunsplit(parts._replace(path="/postgres")))


def postgres_reachable(maintenance_url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(maintenance_url, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except Exception as exc:  # any failure: say why and skip
        return f"{type(exc).__name__}: {exc}"
    return None


def recreate_database(maintenance_url: str, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{BENCH_DB}"')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


SETUP = """
import json, django
django.setup()
from decimal import Decimal
from pit.accounts.services import device_create
from pit.paytables.services import paytable_create_from_preset
from pit.shoes.services import shoe_start
from pit.tables.services import table_create, table_open
paytable = paytable_create_from_preset(preset="commission_box")
limits = {"player": (Decimal("5"), Decimal("10000")), "banker": (Decimal("5"), Decimal("10000")),
          "tie": (Decimal("5"), Decimal("1000"))}
out = []
for index in range(int(__import__("sys").argv[1])):
    table = table_open(table=table_create(code=f"MB{index + 1}", name=f"Mini {index + 1}", game="mini",
                                          paytable=paytable, limits=limits, seats=[1, 2, 3, 5, 6, 7, 8]))
    shoe = shoe_start(table=table, cut_card_position=400)
    device, key = device_create(table=table, name="terminal")
    out.append({"table": table.code, "shoe": shoe.pk, "key": key})
print(json.dumps(out))
"""


def dealt_coups(count: int, seed: int) -> list[dict]:
    """Legal coups dealt by the engine from shuffled 8-deck shoes, seven wagers each (strings)."""
    from pit import game

    rng = random.Random(seed)
    shoe = game.new_shoe(8, rng)
    coups = []
    for number in range(1, count + 1):
        if shoe.cards_left < 6:
            shoe = game.new_shoe(8, rng)
        dealt = shoe.deal_coup()
        wagers = [
            {"seat": seat, "bet": bet, "amount": f"{rng.choice((25, 50, 100, 250, 500))}.00"}
            for seat, bet in zip(SEATS, BETS, strict=True)
        ]
        coups.append(
            {
                "number": number,
                "player": [c.code for c in dealt.player],
                "banker": [c.code for c in dealt.banker],
                "wagers": wagers,
            }
        )
    return coups


class Client:
    """One keep-alive HTTP/1.1 connection, as a table terminal holds one."""

    def __init__(self, port: int, key: str):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.headers = {
            "Authorization": f"Api-Key {key}",
            "Content-Type": "application/json",
            "X-Forwarded-Proto": "https",
            "Host": "127.0.0.1",
        }

    def post(self, path: str, body) -> tuple[int, bytes]:
        self.connection.request("POST", path, body=json.dumps(body), headers=self.headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.connection.close()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run_singles(port: int, floor: list[dict]) -> None:
    latencies: list[list[float]] = [[] for _ in floor]
    failures: list[str] = []
    warm = 10

    def terminal(index: int, seat: dict) -> None:
        client = Client(port, seat["key"])
        try:
            for position, coup in enumerate(dealt_coups(COUPS_PER_THREAD + warm, seed=index)):
                if position == warm:
                    barrier.wait()
                started = time.perf_counter()
                status, body = client.post(f"/api/v1/shoes/{seat['shoe']}/coups/", coup)
                elapsed = time.perf_counter() - started
                if status != 201:
                    failures.append(f"{status} {body[:200]!r}")
                if position >= warm:
                    latencies[index].append(elapsed)
        finally:
            client.close()

    barrier = threading.Barrier(len(floor) + 1)
    threads = [threading.Thread(target=terminal, args=(i, seat)) for i, seat in enumerate(floor)]
    for thread in threads:
        thread.start()
    barrier.wait()
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    every = [value for values in latencies for value in values]
    if failures:
        print(f"{len(failures)} single coups failed, e.g. {failures[0]}", file=sys.stderr)
    print(f"single coups: {len(every)} in {wall:.2f}s from {len(floor)} terminals (7 wagers each)")
    figure("api_single_coup_throughput", f"{len(every) / wall:.1f}", "coups/s")
    figure("api_single_coup_latency_p50", f"{statistics.median(every) * 1000:.1f}", "ms")
    figure("api_single_coup_latency_p99", f"{percentile(every, 0.99) * 1000:.1f}", "ms")


def run_batches(port: int, floor: list[dict]) -> None:
    rates, seconds = [], []
    for round_index, seat in enumerate(floor[:BATCH_ROUNDS]):
        coups = dealt_coups(BATCH, seed=1000 + round_index)
        client = Client(port, seat["key"])
        try:
            started = time.perf_counter()
            status, body = client.post(f"/api/v1/shoes/{seat['shoe']}/coups/batch/", {"coups": coups})
            elapsed = time.perf_counter() - started
        finally:
            client.close()
        summary = json.loads(body).get("summary") if status == 200 else None
        if not summary or summary["created"] != BATCH:
            print(f"batch failed: {status} {body[:300]!r}", file=sys.stderr)
            raise SystemExit(1)
        rates.append(BATCH / elapsed)
        seconds.append(elapsed)
        print(f"batch {round_index + 1}: {BATCH} coups x 7 wagers in {elapsed:.3f}s ({len(body) // 1024} KiB answer)")
    figure("api_batch_day_seconds", f"{statistics.median(seconds):.3f}", f"s per {BATCH} coups")
    figure("api_batch_throughput", f"{statistics.median(rates):.0f}", "coups/s")


def main() -> int:
    bench_url, maintenance_url = database_urls()
    problem = postgres_reachable(maintenance_url)
    if problem:
        print(f"bench_api skipped: PostgreSQL is not reachable at {maintenance_url} ({problem})")
        return 0
    recreate_database(maintenance_url)
    scratch = tempfile.mkdtemp(prefix="pit-bench-api-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pit.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": bench_url,
        "CELERY_BROKER_URL": "filesystem://",
        "PIT_VAR_DIR": scratch,
        "DJANGO_STATIC_ROOT": str(Path(scratch) / "static"),
        "DJANGO_LOG_LEVEL": "WARNING",
        "PIT_HEALTH_REQUIRE_WORKERS": "False",  # no Celery worker runs: /healthz checks the web's services
    }
    gunicorn = None
    try:
        subprocess.run([venv("python"), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        tables = max(THREADS, BATCH_ROUNDS) + BATCH_ROUNDS
        setup = subprocess.run(
            [venv("python"), "-c", SETUP, str(tables)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        floor = json.loads(setup.stdout.strip().splitlines()[-1])
        port = free_port()
        gunicorn = subprocess.Popen(
            [venv("gunicorn"), "--config", "deploy/gunicorn.conf.py", "pit.wsgi:application"],
            cwd=ROOT,
            env={
                **env,
                "GUNICORN_BIND": f"127.0.0.1:{port}",
                "GUNICORN_WORKERS": str(WORKERS),
                "GUNICORN_ACCESS_LOG": "/dev/null",
                "GUNICORN_LOG_LEVEL": "warning",
                "GUNICORN_MAX_REQUESTS": "0",
            },
            stdout=subprocess.DEVNULL,
            stderr=sys.stderr,
        )
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    break
            if time.monotonic() > deadline or gunicorn.poll() is not None:
                print("gunicorn did not come up", file=sys.stderr)
                return 1
            time.sleep(0.2)
        print(
            f"gunicorn: {WORKERS} sync workers, pit.settings.production, PostgreSQL {BENCH_DB}; {os.cpu_count()} cores"
        )
        run_singles(port, floor[:THREADS])
        run_batches(port, floor[THREADS:])
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                gunicorn.wait(timeout=30)
            if gunicorn.poll() is None:
                gunicorn.kill()
        subprocess.run(["rm", "-rf", scratch], check=False)
        with contextlib.suppress(Exception):
            recreate_database(maintenance_url, drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
