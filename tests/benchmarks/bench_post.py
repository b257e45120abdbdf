"""One coup POST at a steady offered rate, open loop, under production gunicorn (not a test).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/anything CELERY_BROKER_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python tests/benchmarks/bench_post.py [--rate 50] [--seconds 30] [--rounds 3]

Creates the database BENCH_POST_DB (default `pit_bench_post`) on DATABASE_URL's server, migrates it,
deals real shoes with the floor simulator's dealer (several players, several bets a seat, side bets,
commission in the box) on `--tables` tables, and starts gunicorn as deployed: deploy/gunicorn.conf.py
with its workers, max_requests and warm-up, pit.settings.production, CELERY_BROKER_URL as the broker
(a Redis database of the benchmark's own: the tasks the posts owe are sent there, no worker runs,
and its queues are purged at the end; without a Redis URL, a scratch filesystem broker).

Three open loops at the same offered rate, each request sent at its scheduled time whatever the
answers before it (a pool of clients; latency from the scheduled send time, so queueing shows):
- POST /api/v1/shoes/{id}/coups/ with the table's device key and an Idempotency-Key, as the floor posts;
- GET /healthz (a database and a broker round trip): the anchor of the figure;
- a raw SQL transaction inserting the same coup, wagers and commission rows with psycopg (second anchor).
`--seconds` of each, cut into `--rounds` interleaved rounds (POST, healthz, SQL, POST, ...): figures are
the median over rounds of each round's p99; p50, max and the requests over 250 ms are over all rounds.
`--max-requests N` sets GUNICORN_MAX_REQUESTS to make workers restart during the run (stall test).
Prints FIGURE lines; skips with a message when PostgreSQL cannot be reached. The database is dropped
at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent.parent
KEY = "single_post"
STALL_MS = 250


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def venv(name: str) -> str:
    path = ROOT / ".venv" / "bin" / name
    return str(path) if path.exists() else name


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    env = os.environ.get
    parser.add_argument("--rate", type=float, default=float(env("BENCH_POST_RATE", 50)), help="requests/s offered")
    parser.add_argument(
        "--seconds",
        type=float,
        default=float(env("BENCH_POST_SECONDS", 30)),
        help="seconds of each loop, over all rounds",
    )
    parser.add_argument("--rounds", type=int, default=int(env("BENCH_POST_ROUNDS", 3)))
    parser.add_argument(
        "--tables",
        type=int,
        default=int(env("BENCH_POST_TABLES", 0)),
        help="tables dealing (default: enough shoes for every coup posted)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=int(env("BENCH_POST_WORKERS", 0)),
        help="gunicorn workers (default: as deploy/gunicorn.conf.py decides)",
    )
    parser.add_argument(
        "--max-requests", type=int, default=None, help="GUNICORN_MAX_REQUESTS for the run (default: as configured)"
    )
    parser.add_argument("--clients", type=int, default=32, help="client threads sending the requests")
    parser.add_argument("--database", default=env("BENCH_POST_DB", "pit_bench_post"))
    return parser.parse_args()


def database_urls(name: str) -> tuple[str, str]:
    """(the benchmark database's URL, the maintenance database's URL) on DATABASE_URL's server."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}")), urlunsplit(parts._replace(path="/postgres"))


def postgres_problem(maintenance_url: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(maintenance_url, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except Exception as exc:  # any failure: say why and skip
        return f"{type(exc).__name__}: {exc}"
    return None


def recreate_database(maintenance_url: str, name: str, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{name}"')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The floor: tables with a device each and a shoe dealt to the cut card by the simulator's dealer
# (five players, main bets, side bets, commission in the box), the shoe started through the service.
SETUP = """
import datetime as dt, json, random, sys, django
django.setup()
from decimal import Decimal
from pit.accounts.services import device_create
from pit.floor.clients import _table_setup
from pit.floor.simulator import Clock, Dealer, SimulationResult, parse_fault_rates
from pit.paytables.services import paytable_create_from_preset
from pit.shoes.services import shoe_start
from pit.tables.services import table_create, table_open

class Recorder:
    def __init__(self, table):
        self.table, self.coups = table, []
    def shoe_start(self, code, *, decks, cut_card_position, burn, shuffled_at):
        shoe = shoe_start(table=self.table, decks=decks, cut_card_position=cut_card_position, burn=burn,
                          shuffled_at=shuffled_at)
        self.shoe = shoe.pk
        return shoe.pk, shoe.sequence
    def coups_record(self, shoe_id, coups):
        self.coups.extend(coups)
        return [None] * len(coups)
    def commission_collect(self, shoe_id, seat):
        pass

paytable = paytable_create_from_preset(preset="commission_box")
limits = {"player": (Decimal("25"), Decimal("10000")), "banker": (Decimal("25"), Decimal("10000")),
          "tie": (Decimal("5"), Decimal("1000"))}
start = dt.datetime.now(dt.UTC) - dt.timedelta(hours=2)
floor = []
for index in range(int(sys.argv[1])):
    table = table_open(table=table_create(code=f"BB{index + 1}", name=f"Big {index + 1}", game="big",
                                          paytable=paytable, limits=limits))
    recorder = Recorder(table)
    dealer = Dealer(recorder, _table_setup(table), rng=random.Random(f"bench-post:{index}"),
                    faults=parse_fault_rates(None), result=SimulationResult(), seats_occupied=5)
    dealer.play_shoe(Clock(start, dt.timedelta(seconds=60), start + dt.timedelta(hours=2)), close=False)
    device, key = device_create(table=table, name="shoe reader")
    floor.append({"table": table.code, "shoe": recorder.shoe, "key": key, "coups": [
        {"number": play.number, "player": list(play.player), "banker": list(play.banker),
         "dealt_at": play.dealt_at.isoformat(), "reported_winner": play.reported_winner,
         "wagers": [{"seat": w.seat, "bet": w.bet, "amount": str(w.amount), "paid": str(w.paid)}
                    for w in play.wagers]}
        for play in recorder.coups]})
print(json.dumps({"paytable": paytable.pk, "floor": floor}))
"""

COUPS_PER_SHOE = 70  # a shoe dealt to the cut card gives 70-80 coups


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


class OpenLoop:
    """Send `count` requests at `rate` per second, each at its scheduled time, from a pool of clients;
    each request's latency runs from its scheduled time to the end of its answer."""

    def __init__(self, rate: float, clients: int):
        self.rate, self.clients = rate, clients

    def run(self, count: int, send) -> tuple[list[float], list[str]]:
        latencies: list[float] = [0.0] * count
        failures: list[str] = []
        local = threading.local()
        start = time.perf_counter() + 0.05

        def one(index: int, scheduled: float) -> None:
            try:
                problem = send(index, local)
            except Exception as exc:  # a refused connection, a timeout: a failure, counted
                problem = f"{type(exc).__name__}: {exc}"
                local.__dict__.clear()
            latencies[index] = time.perf_counter() - scheduled
            if problem:
                failures.append(problem)

        with ThreadPoolExecutor(self.clients) as pool:
            for index in range(count):
                scheduled = start + index / self.rate
                delay = scheduled - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(one, index, scheduled)
        return latencies, failures


def http_connection(local, port: int) -> http.client.HTTPConnection:
    if not hasattr(local, "http"):
        local.http = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    return local.http


def post_sender(port: int, work: list[tuple[dict, dict]]):
    def send(index: int, local) -> str | None:
        seat, coup = work[index]
        connection = http_connection(local, port)
        connection.request(
            "POST",
            f"/api/v1/shoes/{seat['shoe']}/coups/",
            body=json.dumps(coup),
            headers={
                "Authorization": f"Api-Key {seat['key']}",
                "Idempotency-Key": str(uuid.uuid4()),
                "Content-Type": "application/json",
                "X-Forwarded-Proto": "https",
                "Host": "127.0.0.1",
            },
        )
        response = connection.getresponse()
        body = response.read()
        return None if response.status == 201 else f"{response.status} {body[:200]!r}"

    return send


def healthz_sender(port: int):
    def send(index: int, local) -> str | None:
        connection = http_connection(local, port)
        connection.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
        response = connection.getresponse()
        body = response.read()
        return None if response.status == 200 else f"{response.status} {body[:200]!r}"

    return send


RAW_TABLES = """
CREATE TABLE bench_raw_coup (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, recorded_at timestamptz NOT NULL,
    shoe_id bigint NOT NULL REFERENCES shoes_shoe (id), number integer NOT NULL CHECK (number >= 1),
    dealt_at timestamptz NOT NULL, gaming_day date NOT NULL, player_cards jsonb NOT NULL, banker_cards jsonb NOT NULL,
    player_total smallint NOT NULL, banker_total smallint NOT NULL, winner varchar(8) NOT NULL,
    "natural" boolean NOT NULL, player_pair boolean NOT NULL, banker_pair boolean NOT NULL,
    reported_winner varchar(8) NOT NULL, paytable_id bigint NOT NULL REFERENCES paytables_paytableconfiguration (id),
    recorded_by_device_id bigint, chain_seq integer, chain_hash varchar(64), UNIQUE (shoe_id, number));
CREATE INDEX ON bench_raw_coup (gaming_day, shoe_id);
CREATE INDEX ON bench_raw_coup (dealt_at);
CREATE INDEX ON bench_raw_coup (recorded_at);
CREATE TABLE bench_raw_wager (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, coup_id bigint NOT NULL REFERENCES bench_raw_coup (id),
    seat smallint NOT NULL, bet varchar(20) NOT NULL, currency varchar(3) NOT NULL,
    amount_minor bigint NOT NULL CHECK (amount_minor > 0), result varchar(4) NOT NULL, payout_minor bigint NOT NULL,
    commission_minor bigint NOT NULL, paid_minor bigint, chain_seq integer, chain_hash varchar(64));
CREATE UNIQUE INDEX ON bench_raw_wager (coup_id, seat, bet);
CREATE TABLE bench_raw_commission (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, recorded_at timestamptz NOT NULL,
    shoe_id bigint NOT NULL REFERENCES shoes_shoe (id), wager_id bigint NOT NULL REFERENCES bench_raw_wager (id),
    seat smallint NOT NULL, kind varchar(10) NOT NULL, currency varchar(3) NOT NULL, amount_minor bigint NOT NULL,
    chain_seq integer, chain_hash varchar(64));
CREATE UNIQUE INDEX ON bench_raw_commission (wager_id);
"""


def raw_rows(seat: dict, coup: dict, paytable: int) -> tuple[tuple, list[tuple]]:
    """The rows the service writes for a coup, computed by the engine here (not timed)."""
    from decimal import Decimal

    from pit import game

    evaluation = game.evaluate(game.Coup.from_codes(coup["player"], coup["banker"]))
    coup_row = (
        seat["shoe"],
        coup["number"],
        coup["dealt_at"],
        coup["dealt_at"][:10],
        json.dumps(coup["player"]),
        json.dumps(coup["banker"]),
        evaluation.player_total,
        evaluation.banker_total,
        str(evaluation.winner),
        evaluation.natural,
        evaluation.player_pair,
        evaluation.banker_pair,
        coup["reported_winner"],
        paytable,
        secrets.token_hex(32),
    )
    wagers = []
    for wager in coup["wagers"]:
        settlement = game.settle(game.PRESETS["commission_box"], wager["bet"], Decimal(wager["amount"]), evaluation)
        wagers.append(
            (
                wager["seat"],
                wager["bet"],
                "USD",
                int(Decimal(wager["amount"]) * 100),
                str(settlement.result),
                int(settlement.payout * 100),
                int(settlement.commission * 100),
                int(Decimal(wager["paid"]) * 100),
                secrets.token_hex(32),
            )
        )
    return coup_row, wagers


def raw_sender(bench_url: str, work: list[tuple[tuple, list[tuple]]], shoe_of: list[int]):
    import psycopg

    def send(index: int, local) -> str | None:
        if not hasattr(local, "db"):
            local.db = psycopg.connect(bench_url)
        coup_row, wagers = work[index]
        with local.db.transaction(), local.db.cursor() as cursor:
            cursor.execute(
                "INSERT INTO bench_raw_coup (recorded_at, shoe_id, number, dealt_at, gaming_day, player_cards, "
                'banker_cards, player_total, banker_total, winner, "natural", player_pair, banker_pair, '
                "reported_winner, paytable_id, chain_hash, chain_seq) "
                "VALUES (now(), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 1) RETURNING id",
                coup_row,
            )
            coup_id = cursor.fetchone()[0]
            if not wagers:
                return None
            values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 1)"] * len(wagers))
            cursor.execute(
                "INSERT INTO bench_raw_wager (coup_id, seat, bet, currency, amount_minor, result, payout_minor, "
                f"commission_minor, paid_minor, chain_hash, chain_seq) VALUES {values} "  # noqa: S608
                "RETURNING id, seat, commission_minor",
                [value for wager in wagers for value in (coup_id, *wager)],
            )
            owed = [(wager_id, seat, commission) for wager_id, seat, commission in cursor.fetchall() if commission]
            if owed:
                values = ", ".join(["(now(), %s, %s, %s, 'accrued', 'USD', %s, 1, %s)"] * len(owed))
                cursor.execute(
                    "INSERT INTO bench_raw_commission (recorded_at, shoe_id, wager_id, seat, kind, currency, "
                    f"amount_minor, chain_seq, chain_hash) VALUES {values}",  # noqa: S608
                    [
                        v
                        for wager_id, seat, commission in owed
                        for v in (shoe_of[index], wager_id, seat, commission, secrets.token_hex(32))
                    ],
                )
        return None

    return send


def summary(name: str, latencies: list[float], failures: list[str]) -> dict:
    ms = [value * 1000 for value in latencies]
    result = {
        "p50": statistics.median(ms),
        "p99": percentile(ms, 0.99),
        "max": max(ms),
        "over": sum(1 for value in ms if value > STALL_MS),
        "count": len(ms),
        "failures": len(failures),
    }
    print(
        f"  {name:<8} {result['count']:>5} sent  p50 {result['p50']:7.1f} ms  p99 {result['p99']:7.1f} ms  "
        f"max {result['max']:7.1f} ms  over {STALL_MS} ms: {result['over']}"
        + (f"  FAILED: {len(failures)}, e.g. {failures[0]}" if failures else ""),
        flush=True,
    )
    return result


def start_gunicorn(env: dict, args, port: int, log: list[str]) -> subprocess.Popen:
    """gunicorn as deployed, once every worker has warmed up (post_worker_init logs it): a server is
    put behind the load balancer when it is up, so the first round is not its boot."""
    extra = {"GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_ACCESS_LOG": "/dev/null", "GUNICORN_LOG_LEVEL": "info"}
    if args.workers:
        extra["GUNICORN_WORKERS"] = str(args.workers)
    if args.max_requests is not None:
        extra["GUNICORN_MAX_REQUESTS"] = str(args.max_requests)
    gunicorn = subprocess.Popen(
        [venv("gunicorn"), "--config", "deploy/gunicorn.conf.py", "pit.wsgi:application"],
        cwd=ROOT,
        env={**env, **extra},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    gunicorn_log(gunicorn, log)
    workers = args.workers or int(env.get("GUNICORN_WORKERS") or len(os.sched_getaffinity(0)) + 1)  # as configured
    deadline = time.monotonic() + 180
    while sum("warmed up" in line for line in log) < workers:
        if time.monotonic() > deadline or gunicorn.poll() is not None:
            raise SystemExit("gunicorn did not come up:\n" + "".join(log[-20:]))
        time.sleep(0.2)
    with contextlib.suppress(OSError):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
        if connection.getresponse().status == 200:
            return gunicorn
    raise SystemExit("gunicorn's /healthz did not answer 200")


def gunicorn_log(gunicorn: subprocess.Popen, lines: list[str]) -> threading.Thread:
    """Keep gunicorn's log (stderr) to count worker restarts, without letting its pipe fill."""

    def read() -> None:
        for line in gunicorn.stderr:
            lines.append(line)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def main() -> int:
    args = arguments()
    bench_url, maintenance_url = database_urls(args.database)
    problem = postgres_problem(maintenance_url)
    if problem:
        print(f"bench_post skipped: PostgreSQL is not reachable at {maintenance_url} ({problem})")
        return 0
    per_round = max(1, round(args.rate * args.seconds / args.rounds))
    posts = per_round * args.rounds
    tables = args.tables or -(-posts // COUPS_PER_SHOE) + 1
    broker = os.environ.get("CELERY_BROKER_URL", "")
    scratch = tempfile.mkdtemp(prefix="pit-bench-post-")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pit.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": bench_url,
        "CELERY_BROKER_URL": broker if broker.startswith("redis://") else "filesystem://",
        "PIT_CACHE_URL": os.environ.get("PIT_CACHE_URL") or (broker if broker.startswith("redis://") else ""),
        "PIT_VAR_DIR": scratch,
        "DJANGO_STATIC_ROOT": str(Path(scratch) / "static"),
        "DJANGO_LOG_LEVEL": "WARNING",
        "PIT_HEALTH_REQUIRE_WORKERS": "False",  # no Celery worker runs: /healthz checks the web's services
    }
    env = {name: value for name, value in env.items() if value != ""}
    recreate_database(maintenance_url, args.database)
    gunicorn, log = None, []
    try:
        subprocess.run([venv("python"), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        dealt = subprocess.run(
            [venv("python"), "-c", SETUP, str(tables * 2)],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        setup = json.loads(dealt.stdout.strip().splitlines()[-1])
        floor = setup["floor"]

        # Posts go round the tables (the coups of a table in order); the raw SQL anchor writes the
        # same kind of coups of the other half of the tables.
        def interleaved(seats):
            queue = []
            for position in range(max(len(seat["coups"]) for seat in seats)):
                queue.extend((seat, seat["coups"][position]) for seat in seats if position < len(seat["coups"]))
            return queue

        post_work = interleaved(floor[:tables])
        raw_seats = interleaved(floor[tables:])
        if len(post_work) < posts or len(raw_seats) < posts:
            raise SystemExit(f"dealt {len(post_work)} coups for {posts} posts: give more --tables")
        sys.path.insert(0, str(ROOT))
        raw_work = [raw_rows(seat, coup, setup["paytable"]) for seat, coup in raw_seats[:posts]]
        import psycopg

        with psycopg.connect(bench_url, autocommit=True) as connection:
            connection.execute(RAW_TABLES)

        port = free_port()
        gunicorn = start_gunicorn(env, args, port, log)
        started_lines = len(log)
        wagers = sum(len(coup["wagers"]) for _, coup in post_work[:posts])
        print(
            f"gunicorn: deploy/gunicorn.conf.py ({args.workers or 'configured'} workers"
            f"{'' if args.max_requests is None else f', max_requests {args.max_requests}'}), "
            f"pit.settings.production, PostgreSQL {args.database}, broker {env['CELERY_BROKER_URL'].split('://')[0]}; "
            f"{os.cpu_count()} cores; load {Path('/proc/loadavg').read_text().split()[0]}"
        )
        print(
            f"{args.rate:g}/s offered, {args.rounds} rounds of {per_round} requests per loop; {tables} tables, "
            f"{posts} coups posted with {wagers} wagers ({wagers / posts:.1f} a coup)"
        )
        loop = OpenLoop(args.rate, args.clients)
        results: dict[str, list[dict]] = {"post": [], "healthz": [], "raw_sql": []}
        every: dict[str, list[float]] = {"post": [], "healthz": [], "raw_sql": []}
        for round_index in range(args.rounds):
            print(f"round {round_index + 1}:", flush=True)
            chunk = slice(round_index * per_round, (round_index + 1) * per_round)
            senders = {
                "post": post_sender(port, post_work[chunk]),
                "healthz": healthz_sender(port),
                "raw_sql": raw_sender(bench_url, raw_work[chunk], [seat["shoe"] for seat, _ in raw_seats[chunk]]),
            }
            for name, send in senders.items():
                latencies, failures = loop.run(per_round, send)
                results[name].append(summary(name, latencies, failures))
                every[name].extend(latencies)
        restarts = sum("Autorestarting worker" in line for line in log[started_lines:])
        print(f"all rounds (gunicorn restarted {restarts} workers during the run):")
        overall = {name: summary(name, values, []) for name, values in every.items()}
        post_p99 = statistics.median(r["p99"] for r in results["post"])
        healthz_p99 = statistics.median(r["p99"] for r in results["healthz"])
        raw_p99 = statistics.median(r["p99"] for r in results["raw_sql"])
        figure(f"{KEY}.figure", f"{post_p99:.1f}", "ms")
        figure(f"{KEY}.anchor", f"{healthz_p99:.1f}", "ms")
        figure(f"{KEY}.ratio", f"{post_p99 / healthz_p99:.2f}", "x")
        figure(f"{KEY}.p50", f"{statistics.median(r['p50'] for r in results['post']):.1f}", "ms")
        figure(f"{KEY}.max", f"{overall['post']['max']:.1f}", "ms")
        figure(f"{KEY}.over_{STALL_MS}ms", overall["post"]["over"], "requests")
        figure(f"{KEY}.raw_sql_p99", f"{raw_p99:.1f}", "ms")
        figure(f"{KEY}.raw_sql_ratio", f"{post_p99 / raw_p99:.2f}", "x")
        if any(r["failures"] for rs in results.values() for r in rs):
            print("some requests failed (see above)", file=sys.stderr)
            return 1
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                gunicorn.wait(timeout=30)
            if gunicorn.poll() is None:
                gunicorn.kill()
        if env["CELERY_BROKER_URL"].startswith("redis://"):
            subprocess.run(
                [venv("celery"), "-A", "pit", "purge", "-f", "-Q", "urgent,bulk"],
                cwd=ROOT,
                env=env,
                check=False,
                capture_output=True,
            )
        subprocess.run(["rm", "-rf", scratch], check=False)
        with contextlib.suppress(Exception):
            recreate_database(maintenance_url, args.database, drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
