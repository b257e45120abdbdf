"""Queues, worker-kill recovery and broker-outage catch-up with real workers on Redis and PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/anything .venv/bin/python tests/benchmarks/bench_queues.py

Starts a redis-server of its own (port BENCH_QUEUES_REDIS_PORT, default 16311, in a scratch folder),
creates and migrates the database `pit_bench_queues_h1`, and runs as production does: a worker for
the urgent queue (prefork, 2 processes), one for the bulk queue, and beat, with the default settings
(visibility timeout 3600 s, outbox re-send after 45 s). A floor streams BENCH_QUEUES_RATE coups a
second (default 25, seven wagers each) through the services across five tables; each shoe is closed
after BENCH_QUEUES_SHOE coups (default 40). Three phases, about two minutes in all:

1. stream for BENCH_QUEUES_SECONDS (default 30) with a bulk backlog (a sweep of every coup and
   batch checks of 500 coups) queued at the start: close-to-reconciliation p50/p95/max. Anchor: a
   broker round trip (`control.ping` to the urgent worker), same run.
2. a shoe closed while its reconciliation is blocked; the whole urgent worker (process group) is
   killed with SIGKILL and restarted: seconds from the restart until the reconciliation exists.
3. the broker stopped for BENCH_QUEUES_OUTAGE seconds (default 15) while the floor keeps recording,
   then started again: seconds until every check and reconciliation owed by what was recorded during
   the outage is done (its outbox rows gone).

Prints FIGURE lines; skips with a message when PostgreSQL or redis-server is missing. Drops its
database at the end.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
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
BENCH_DB = "pit_bench_queues_h1"
REDIS_PORT = int(os.environ.get("BENCH_QUEUES_REDIS_PORT", 16311))
RATE = float(os.environ.get("BENCH_QUEUES_RATE", 25))
SHOE = int(os.environ.get("BENCH_QUEUES_SHOE", 40))
SECONDS = float(os.environ.get("BENCH_QUEUES_SECONDS", 30))
OUTAGE = float(os.environ.get("BENCH_QUEUES_OUTAGE", 15))
TABLES = 5
SEATS = [1, 2, 3, 5, 6, 7, 8]
BETS = ["player", "banker", "banker", "player", "tie", "banker", "player_pair"]


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def database_urls() -> tuple[str, str]:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}")), urlunsplit(parts._replace(path="/postgres"))


def recreate_database(maintenance_url: str, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(maintenance_url, autocommit=True, connect_timeout=3) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{BENCH_DB}"')


class Redis:
    def __init__(self, folder: Path):
        self.folder, self.process = folder, None
        self.url = f"redis://127.0.0.1:{REDIS_PORT}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(REDIS_PORT),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.ping, 20)

    def ping(self) -> bool:
        import redis

        try:
            return redis.Redis(port=REDIS_PORT, socket_connect_timeout=0.5).ping()
        except redis.exceptions.ConnectionError:
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


def wait_for(predicate, timeout: float, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s")


class Celery:
    """A `celery -A pit ...` process in a session of its own (so that a kill takes its children too)."""

    def __init__(self, args: list[str], env: dict, log: Path):
        self.args, self.env, self.log = args, env, log
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "celery"), "-A", "pit", *self.args],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


class Floor:
    """Streams coups at RATE per second across the tables; closes each shoe after SHOE coups."""

    def __init__(self, tables):
        self.tables = tables
        self.shoes = {}
        self.numbers = {}
        self.closed: list[int] = []
        self.recorded = 0
        self.stopping = threading.Event()
        self.rng = random.Random(7)
        self.lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        self.started = 0.0

    def _new_shoe(self, table):
        from pit import game
        from pit.shoes.services import shoe_start

        self.shoes[table.pk] = (shoe_start(table=table, cut_card_position=400), game.new_shoe(8, self.rng))
        self.numbers[table.pk] = 0

    def _coup(self, table):
        from decimal import Decimal

        from pit.shoes.services import CoupInput, WagerInput

        if table.pk not in self.shoes:
            self._new_shoe(table)
        dealt = self.shoes[table.pk][1].deal_coup()
        self.numbers[table.pk] += 1
        wagers = tuple(
            WagerInput(seat=seat, bet=bet, amount=Decimal(self.rng.choice((25, 50, 100, 250))))
            for seat, bet in zip(SEATS, BETS, strict=True)
        )
        return CoupInput(
            number=self.numbers[table.pk],
            player=[c.code for c in dealt.player],
            banker=[c.code for c in dealt.banker],
            wagers=wagers,
        )

    def backlog(self, table, count: int) -> None:
        """Coups posted in one batch (store-and-forward), for the bulk work to chew on."""
        from pit.shoes.services import coups_record

        if table.pk not in self.shoes:
            self._new_shoe(table)
        coups_record(shoe=self.shoes[table.pk][0], coups=[self._coup(table) for _ in range(count)])

    def step(self, table) -> None:
        """One coup posted alone, as a table terminal does; the shuffle after SHOE coups."""
        from decimal import Decimal

        from pit.shoes.services import coup_record, shoe_close

        coup = self._coup(table)
        shoe = self.shoes[table.pk][0]
        coup_record(shoe=shoe, coup=coup)
        with self.lock:
            self.recorded += 1
        if self.numbers[table.pk] >= SHOE:
            shoe_close(shoe=shoe, box_counts=[(seat, Decimal("0")) for seat in SEATS])
            with self.lock:
                self.closed.append(shoe.pk)
            self._new_shoe(table)

    def _terminal(self, table, rate: float) -> None:
        from django.db import connection

        started = time.monotonic()
        index = 0
        while not self.stopping.is_set():
            self.step(table)
            index += 1
            delay = started + index / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        connection.close()

    def start(self) -> None:
        """A terminal per table, each posting RATE / tables coups a second."""
        self.stopping.clear()
        self.threads = [
            threading.Thread(target=self._terminal, args=(table, RATE / len(self.tables)), daemon=True)
            for table in self.tables
        ]
        for thread in self.threads:
            thread.start()
        self.started = time.monotonic()

    def stop(self) -> float:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)
        return time.monotonic() - self.started


def main() -> int:
    url, maintenance = database_urls()
    if shutil.which("redis-server") is None:
        print("skipped: redis-server is not installed")
        return 0
    try:
        recreate_database(maintenance)
    except Exception as exc:
        print(f"skipped: PostgreSQL unreachable ({type(exc).__name__}: {exc})")
        return 0
    scratch = Path(tempfile.mkdtemp(prefix="pit-bench-queues-h1-"))
    server = Redis(scratch)
    server.start()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": server.url,
        "PIT_VAR_DIR": str(scratch / "var"),
        "DJANGO_SETTINGS_MODULE": "pit.settings.local",
        "DJANGO_DEBUG": "False",
        "CELERY_TASK_ALWAYS_EAGER": "False",
    }
    os.environ.update(
        {
            key: env[key]
            for key in ("DATABASE_URL", "CELERY_BROKER_URL", "PIT_VAR_DIR", "DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG")
        }
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    # The urgent worker's database sessions are named, so that phase 2 finds the one it blocked.
    urgent_env = {**env, "DATABASE_URL": f"{url}?application_name=bench-urgent-worker"}
    urgent = Celery(
        ["worker", "-Q", "urgent", "-c", "2", "-n", "urgent@bench", "--loglevel", "WARNING"],
        urgent_env,
        scratch / "urgent.log",
    )
    bulk = Celery(
        ["worker", "-Q", "bulk", "-c", "1", "-n", "bulk@bench", "--loglevel", "WARNING"], env, scratch / "bulk.log"
    )
    beat = Celery(["beat", "-s", str(scratch / "beat-schedule"), "--loglevel", "WARNING"], env, scratch / "beat.log")
    try:
        return run(url, urgent, bulk, beat, server)
    finally:
        for process in (beat, bulk, urgent):
            process.stop()
        server.stop()
        recreate_database(maintenance, drop_only=True)
        shutil.rmtree(scratch, ignore_errors=True)


def run(url, urgent, bulk, beat, server) -> int:  # noqa: PLR0915 (one script, three phases)
    import django

    django.setup()
    import psycopg
    from django.db import connection

    from pit.celery import app
    from pit.compliance.tasks import coups_sweep_task, coups_verify
    from pit.core.models import OutboxMessage
    from pit.ledger.models import Reconciliation
    from pit.shoes.models import Coup
    from pit.shoes.services import shoe_close
    from tests import factories

    tables = [factories.table(f"BB{index + 1}") for index in range(TABLES)]
    for process in (urgent, bulk, beat):
        process.start()
    wait_for(lambda: app.control.ping(destination=["urgent@bench"], timeout=0.5), 60)
    pings = []
    for _ in range(20):
        started = time.perf_counter()
        app.control.ping(destination=["urgent@bench"], timeout=1)
        pings.append(time.perf_counter() - started)
    anchor = statistics.median(pings)

    # Phase 1: the stream, closes, and a bulk backlog queued first.
    from pit.core.gaming_day import current_gaming_day

    floor = Floor(tables)
    for table in tables:
        floor.backlog(table, 70)  # coups for the bulk work to chew on (their checks are bulk too)
    ids = list(Coup.objects.values_list("pk", flat=True))
    for _ in range(20):
        coups_verify.delay(ids)  # batch checks: bulk queue
    today = str(current_gaming_day())
    coups_sweep_task.delay(first_day=today, last_day=today)
    floor.start()
    time.sleep(SECONDS)
    streamed = floor.stop()
    closed = list(floor.closed)
    wait_for(lambda: Reconciliation.objects.filter(shoe_id__in=closed).count() == len(closed), 120, 0.5)
    latencies = [
        (reconciled - shoe_closed).total_seconds()
        for reconciled, shoe_closed in Reconciliation.objects.filter(shoe_id__in=closed).values_list(
            "reconciled_at", "shoe__close_recorded_at"
        )
    ]
    print(
        f"stream: {floor.recorded} coups in {streamed:.1f}s ({floor.recorded / streamed:.1f}/s), {len(closed)} "
        f"shoes closed, behind a bulk backlog of 20 checks of {len(ids)} coups and a sweep"
    )
    figure("stream_rate_achieved", f"{floor.recorded / streamed:.1f}", "coups/s")
    figure("close_to_reconciliation_p50", f"{statistics.median(latencies):.3f}", "s")
    figure("close_to_reconciliation_p95", f"{percentile(latencies, 0.95):.3f}", "s")
    figure("close_to_reconciliation_max", f"{max(latencies):.3f}", "s")
    figure("anchor_broker_round_trip_ping_p50", f"{anchor * 1000:.1f}", "ms")
    figure("close_to_reconciliation_p95_over_ping", f"{percentile(latencies, 0.95) / anchor:.0f}", "x")

    # Phase 2: the whole urgent worker killed in the middle of a reconciliation, then restarted.
    table = tables[-1]
    shoe = floor.shoes.pop(table.pk)[0]
    floor.tables = tables[:-1]  # the floor goes on at the other tables
    floor.start()
    urgent.stop()
    shoe_close(shoe=shoe, box_counts=[(seat, 0) for seat in SEATS])  # its message waits for a worker
    holder = psycopg.connect(url, autocommit=False)
    holder.execute("SELECT id FROM shoes_shoe WHERE id = %s FOR NO KEY UPDATE", [shoe.pk])
    urgent.start()

    def blocked():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock' "
                "AND application_name = 'bench-urgent-worker'",
                [BENCH_DB],
            )
            row = cursor.fetchone()
        return row and row[0]

    wait_for(blocked, 60)
    time.sleep(1)  # both worker processes at the held row (the reconciliation, and maybe a check of its coups)
    urgent.kill()
    with connection.cursor() as cursor:  # the dead worker's sessions go with it
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
            "AND application_name = 'bench-urgent-worker'",
            [BENCH_DB],
        )
    holder.rollback()
    holder.close()
    restarted = time.monotonic()
    urgent.start()
    wait_for(lambda: Reconciliation.objects.filter(shoe=shoe).exists(), 300, 0.5)
    recovery = time.monotonic() - restarted
    floor.stop()
    figure("sigkill_restart_to_reconciliation", f"{recovery:.1f}", "s")
    figure("sigkill_recovery_over_target_90s", f"{recovery / 90:.2f}", "x")

    # Phase 3: the broker stopped while the floor keeps recording, then started again.
    import redis
    from django.utils import timezone

    queued = redis.Redis(port=REDIS_PORT)
    backlog = sum(queued.llen(key) for key in queued.keys("urgent*"))
    print(f"urgent queue backlog when the broker stops: {backlog} messages (checks the workers had not reached)")
    floor.tables = tables
    floor.start()
    server.stop()
    outage_started, outage_began = time.monotonic(), timezone.now()
    time.sleep(OUTAGE)
    floor.stop()
    during = OutboxMessage.objects.filter(created_at__gte=outage_began)
    owed, coups_in_outage = during.count(), Coup.objects.filter(recorded_at__gte=outage_began).count()
    server.start()
    back = time.monotonic()
    wait_for(lambda: not during.exists(), 300, 0.5)
    catch_up = time.monotonic() - back
    print(
        f"outage: {back - outage_started:.0f}s without a broker, {coups_in_outage} coups recorded, {owed} tasks "
        f"owed in the outbox for them (merged into checks of 50 coups when sent)"
    )
    figure("outage_tasks_owed", owed, "tasks")
    figure("outage_broker_back_to_its_tasks_done", f"{catch_up:.1f}", "s")
    figure("outage_catch_up_over_target_120s", f"{catch_up / 120:.2f}", "x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
