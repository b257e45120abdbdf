"""Benchmark: a table's day posted as one batch through the API, against COPY of the same rows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/anything .venv/bin/python tests/benchmarks/bench_batch.py

Creates the database `pit_bench_batch` (PIT_BENCH_BATCH_DB) on the server DATABASE_URL names
(127.0.0.1 by default), migrates it and starts gunicorn (deploy/gunicorn.conf.py, one sync worker,
pit.settings.production). Each repetition (PIT_BENCH_BATCH_ROUNDS, default 3) deals a fresh day of
PIT_BENCH_BATCH_COUPS coups (default 1,600) at a 7-seat commission-box table with the floor
simulator's dealer (`pit.floor.simulator.Dealer`: players come and go, several bets per seat, side
bets, about 7 wagers a coup) and, in turn:

- the figure: the day posted as one batch (`POST /api/v1/shoes/{id}/coups/batch/`) to a fresh shoe
  by the table's device (`Authorization: Api-Key ...`), from the first byte sent to the last byte of
  the answer read (the body is encoded before the clock starts);
- the anchor: the very rows that batch wrote (its coups, wagers and commission entries, every
  column, hash chain included) copied by `COPY ... FROM STDIN` into the same tables for another
  fresh shoe, in one transaction (the rows are rendered as COPY text before the clock starts).

Prints `day_batch.figure` (s, median), `day_batch.anchor` (s, median) and `day_batch.ratio`, and,
for the record, the answer's size and the time of the same post asking for the full coups back
(`?answer=full`) once. Celery tasks go to the filesystem broker in a scratch folder (no worker: the
rule checks are the worker's time). Skips with a message when PostgreSQL cannot be reached; the
database is dropped at the end.
"""

from __future__ import annotations

import contextlib
import datetime as dt
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
import time
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
BENCH_DB = os.environ.get("PIT_BENCH_BATCH_DB", "pit_bench_batch")
COUPS = int(os.environ.get("PIT_BENCH_BATCH_COUPS", 1600))
ROUNDS = int(os.environ.get("PIT_BENCH_BATCH_ROUNDS", 3))
SEATS = (1, 2, 3, 5, 6, 7, 8)
LIMITS = {"player": (25, 10000), "banker": (25, 10000), "tie": (5, 1000)}
FIRST_DAY = dt.date(2026, 3, 2)


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
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}")), urlunsplit(parts._replace(path="/postgres"))


def recreate_database(maintenance_url: str, drop_only: bool = False) -> None:
    import psycopg

    with psycopg.connect(maintenance_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{BENCH_DB}"')


# A table for the API and one for the anchor per round, and one to warm the worker up: each with a
# dealing shoe; the API's with its device key.
SETUP = """
import json, sys, django
django.setup()
from decimal import Decimal
from pit.accounts.services import device_create
from pit.paytables.services import paytable_create_from_preset
from pit.shoes.services import shoe_start
from pit.tables.services import table_create, table_open
limits = {bet: (Decimal(low), Decimal(high)) for bet, (low, high) in json.loads(sys.argv[2]).items()}
paytable = paytable_create_from_preset(preset="commission_box")
out = {}
for code in sys.argv[1].split(","):
    table = table_open(table=table_create(code=code, name=f"Mini {code}", game="mini", paytable=paytable,
                                          limits=limits, seats=json.loads(sys.argv[3])))
    shoe = shoe_start(table=table, cut_card_position=400)
    out[code] = {"shoe": shoe.pk, "key": device_create(table=table, name="terminal")[1]}
print(json.dumps(out))
"""


class _Collector:
    """A FloorClient that keeps what the dealer deals instead of sending it anywhere."""

    def __init__(self):
        self.coups = []
        self.shoes = 0

    def shoe_start(self, code, **kwargs):
        self.shoes += 1
        return self.shoes, self.shoes

    def coups_record(self, shoe_id, coups):
        self.coups.extend(coups)
        return [0] * len(coups)

    def commission_collect(self, shoe_id, seat):
        pass

    def shoe_close(self, shoe_id, counts, closed_at):
        pass


def dealt_day(day: dt.date, seed: int) -> tuple[bytes, int]:
    """A table's day of COUPS coups as the simulator deals them (shoe after shoe, numbered on), as
    the batch's JSON body; and the number of wagers in it."""
    from pit import game
    from pit.floor.simulator import FAULT_KINDS, Clock, Dealer, SimulationResult, TableSetup

    limits = {bet: (Decimal(low), Decimal(high)) for bet, (low, high) in LIMITS.items()}
    setup = TableSetup("DAY", SEATS, "USD", game.PRESETS["commission_box"], limits)
    collector = _Collector()
    dealer = Dealer(
        collector,
        setup,
        rng=random.Random(f"bench-batch:{seed}"),
        faults=dict.fromkeys(FAULT_KINDS, 0.0),
        result=SimulationResult(),
        seats_occupied=len(SEATS),
    )
    start = dt.datetime.combine(day, dt.time(6, 30), dt.UTC)
    clock = Clock(start, dt.timedelta(hours=23) / COUPS, start + dt.timedelta(hours=23))
    while len(collector.coups) < COUPS:
        dealer.play_shoe(clock)
    coups = [
        {
            "number": number,
            "player": list(play.player),
            "banker": list(play.banker),
            "dealt_at": play.dealt_at.isoformat(),
            "reported_winner": play.reported_winner,
            "wagers": [
                {"seat": w.seat, "bet": w.bet, "amount": str(w.amount), "paid": str(w.paid)} for w in play.wagers
            ],
        }
        for number, play in enumerate(collector.coups[:COUPS], start=1)
    ]
    return json.dumps({"coups": coups}).encode(), sum(len(coup["wagers"]) for coup in coups)


def post(port: int, key: str, path: str, body: bytes) -> tuple[int, bytes, float]:
    """One POST on a new keep-alive connection; (status, answer, seconds from sending to the last byte)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {
        "Authorization": f"Api-Key {key}",
        "Content-Type": "application/json",
        "X-Forwarded-Proto": "https",
        "Host": "127.0.0.1",
    }
    try:
        connection.connect()
        started = time.perf_counter()
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        return response.status, answer, time.perf_counter() - started
    finally:
        connection.close()


# ------------------------------------------------------------------------------------ the anchor
COPIED = ("shoes_coup", "shoes_wager", "ledger_commissionentry")


def _columns(cursor, table: str) -> list[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]


def anchor_rows(connection, from_shoe: int, to_shoe: int) -> list[tuple[str, list[str], bytes]]:
    """The rows the batch wrote for `from_shoe`, as COPY text for `to_shoe`: every column as stored,
    new ids (taken from the tables' own sequences) and the references mapped to them."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            CREATE TEMP TABLE coup_ids ON COMMIT DROP AS
            SELECT id AS old, nextval(pg_get_serial_sequence('shoes_coup', 'id')) AS new
            FROM shoes_coup WHERE shoe_id = %s""",
            [from_shoe],
        )
        cursor.execute("""
            CREATE TEMP TABLE wager_ids ON COMMIT DROP AS
            SELECT w.id AS old, nextval(pg_get_serial_sequence('shoes_wager', 'id')) AS new
            FROM shoes_wager w JOIN coup_ids c ON c.old = w.coup_id""")
        sources = {
            "shoes_coup": (
                "shoes_coup t JOIN coup_ids m ON m.old = t.id",
                {"id": "m.new", "shoe_id": str(int(to_shoe))},
            ),
            "shoes_wager": (
                "shoes_wager t JOIN wager_ids m ON m.old = t.id JOIN coup_ids c ON c.old = t.coup_id",
                {"id": "m.new", "coup_id": "c.new"},
            ),
            "ledger_commissionentry": (
                "ledger_commissionentry t JOIN wager_ids w ON w.old = t.wager_id",
                {
                    "id": "nextval(pg_get_serial_sequence('ledger_commissionentry', 'id'))",
                    "shoe_id": str(int(to_shoe)),
                    "wager_id": "w.new",
                },
            ),
        }
        rendered = []
        for table in COPIED:
            source, replaced = sources[table]
            columns = _columns(cursor, table)
            select = ", ".join(replaced.get(column, f't."{column}"') for column in columns)
            with cursor.copy(f"COPY (SELECT {select} FROM {source} ORDER BY t.id) TO STDOUT") as copy:  # noqa: S608
                data = b"".join(bytes(chunk) for chunk in copy)
            rendered.append((table, columns, data))
    connection.commit()
    return rendered


def copy_rows(connection, rendered) -> float:
    """Seconds to COPY the rendered rows in one transaction, commit included."""
    started = time.perf_counter()
    with connection.transaction(), connection.cursor() as cursor:
        for table, columns, data in rendered:
            quoted = ", ".join(f'"{column}"' for column in columns)
            with cursor.copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
                copy.write(data)
    return time.perf_counter() - started


def stored(connection, shoe: int) -> tuple[int, int, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT (SELECT count(*) FROM shoes_coup WHERE shoe_id = %(s)s),
                   (SELECT count(*) FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id WHERE c.shoe_id = %(s)s),
                   (SELECT count(*) FROM ledger_commissionentry WHERE shoe_id = %(s)s)""",
            {"s": shoe},
        )
        counts = cursor.fetchone()
    connection.commit()
    return counts


# ------------------------------------------------------------------------------------ the run
def start_gunicorn(env: dict) -> tuple[subprocess.Popen, int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    gunicorn = subprocess.Popen(
        [venv("gunicorn"), "--config", "deploy/gunicorn.conf.py", "pit.wsgi:application"],
        cwd=ROOT,
        env={
            **env,
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "GUNICORN_WORKERS": "1",
            "GUNICORN_TIMEOUT": "300",
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
                return gunicorn, port
        if time.monotonic() > deadline or gunicorn.poll() is not None:
            raise SystemExit("gunicorn did not come up")
        time.sleep(0.2)


def run(env: dict, bench_url: str) -> int:
    import psycopg

    subprocess.run([venv("python"), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    codes = ["WARM", *(f"API{n}" for n in range(ROUNDS)), *(f"CPY{n}" for n in range(ROUNDS)), "FULL"]
    setup = subprocess.run(
        [venv("python"), "-c", SETUP, ",".join(codes), json.dumps(LIMITS), json.dumps(SEATS)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    floor = json.loads(setup.stdout.strip().splitlines()[-1])
    days = [dealt_day(FIRST_DAY + dt.timedelta(days=n), seed=n) for n in range(ROUNDS + 1)]
    gunicorn, port = start_gunicorn(env)
    connection = psycopg.connect(bench_url)
    try:
        load = Path("/proc/loadavg").read_text().split()[0]
        print(
            f"gunicorn: 1 sync worker, pit.settings.production, PostgreSQL {BENCH_DB}; "
            f"{os.cpu_count()} cores; load {load}"
        )
        warm = json.dumps({"coups": json.loads(days[0][0])["coups"][:20]}).encode()
        warm_path = f"/api/v1/shoes/{floor['WARM']['shoe']}/coups/batch/"
        status, answer, _ = post(port, floor["WARM"]["key"], warm_path, warm)
        if status != 200:
            raise SystemExit(f"warm-up batch failed: {status} {answer[:300]!r}")
        figures, anchors = [], []
        for n in range(ROUNDS):
            body, wagers = days[n]
            api, target = floor[f"API{n}"], floor[f"CPY{n}"]["shoe"]
            status, answer, seconds = post(port, api["key"], f"/api/v1/shoes/{api['shoe']}/coups/batch/", body)
            summary = json.loads(answer).get("summary") if status == 200 else None
            if not summary or summary["created"] != COUPS:
                raise SystemExit(f"batch failed: {status} {answer[:300]!r}")
            coups, wager_rows, entries = stored(connection, api["shoe"])
            assert (coups, wager_rows) == (COUPS, wagers), (coups, wager_rows, wagers)
            rendered = anchor_rows(connection, api["shoe"], target)
            anchor = copy_rows(connection, rendered)
            assert stored(connection, target) == (coups, wager_rows, entries)
            figures.append(seconds)
            anchors.append(anchor)
            print(
                f"round {n + 1}: {COUPS} coups, {wagers} wagers, {entries} commission entries "
                f"({len(body) // 1024} KiB posted, {len(answer) // 1024} KiB answer): "
                f"API {seconds:.3f} s, COPY {anchor:.3f} s ({seconds / anchor:.1f}x)"
            )
        body, _ = days[ROUNDS]
        full = floor["FULL"]
        full_path = f"/api/v1/shoes/{full['shoe']}/coups/batch/?answer=full"
        status, answer, seconds = post(port, full["key"], full_path, body)
        if status != 200 or json.loads(answer)["summary"]["created"] != COUPS:
            raise SystemExit(f"full-answer batch failed: {status} {answer[:300]!r}")
        print(f"with ?answer=full: {seconds:.3f} s ({len(answer) // 1024} KiB answer)")
        figure_s, anchor_s = statistics.median(figures), statistics.median(anchors)
        figure("day_batch.figure", f"{figure_s:.3f}", "s")
        figure("day_batch.anchor", f"{anchor_s:.3f}", "s")
        figure("day_batch.ratio", f"{figure_s / anchor_s:.2f}", "x")
        figure("day_batch.full_answer", f"{seconds:.3f}", "s")
    finally:
        connection.close()
        gunicorn.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            gunicorn.wait(timeout=30)
        if gunicorn.poll() is None:
            gunicorn.kill()
    return 0


def main() -> int:
    bench_url, maintenance_url = database_urls()
    try:
        import psycopg

        with psycopg.connect(maintenance_url, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
    except Exception as exc:  # any failure: say why and skip
        print(f"bench_batch skipped: PostgreSQL is not reachable at {maintenance_url} ({type(exc).__name__}: {exc})")
        return 0
    recreate_database(maintenance_url)
    scratch = tempfile.mkdtemp(prefix="pit-bench-batch-")
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
    try:
        return run(env, bench_url)
    finally:
        subprocess.run(["rm", "-rf", scratch], check=False)
        with contextlib.suppress(Exception):
            recreate_database(maintenance_url, drop_only=True)


if __name__ == "__main__":
    sys.exit(main())
