"""The web's time to its first answer after every gunicorn worker is killed (not a test of speed).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/anything .venv/bin/python tests/benchmarks/bench_restart.py

Creates the database `pit_bench_restart` on the server DATABASE_URL names (127.0.0.1 by default),
migrates it, starts gunicorn with deploy/gunicorn.conf.py and pit.settings.production
(BENCH_RESTART_WORKERS, default 3; the broker and cache of CELERY_BROKER_URL when it is Redis, else
the filesystem broker in a scratch folder), and asks /healthz every 50 ms. It then kills every
worker (SIGKILL, as the OOM killer would) BENCH_RESTART_ROUNDS times (default 3) and measures from
the kill to the first answer of any kind (the target: within 10 s; the fault was 84 s) and to the
last new worker's "warmed up" line. Prints FIGURE lines; skips with a message when PostgreSQL cannot
be reached. The database is dropped at the end.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import signal
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
BENCH_DB = "pit_bench_restart"
WORKERS = int(os.environ.get("BENCH_RESTART_WORKERS", 3))
ROUNDS = int(os.environ.get("BENCH_RESTART_ROUNDS", 3))
TARGET_SECONDS = 10.0
GIVE_UP_SECONDS = 120.0


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def venv(name: str) -> str:
    path = ROOT / ".venv" / "bin" / name
    return str(path) if path.exists() else name


def database_urls() -> tuple[str, str]:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}")), urlunsplit(parts._replace(path="/postgres"))


def postgres_problem(maintenance_url: str) -> str | None:
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


def answered(port: int, timeout: float = 1.0) -> int | None:
    """/healthz's status, or None when nothing answered within `timeout`."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        connection.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
        status = connection.getresponse().status
        connection.close()
        return status
    except OSError:
        return None


def worker_pids(master: int) -> list[int]:
    shown = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True, text=True)  # noqa: S607
    return [int(pid) for pid in shown.stdout.split()]


def production_env(database_url: str, scratch: str, port: int) -> dict[str, str]:
    broker = os.environ.get("CELERY_BROKER_URL", "")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "pit.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker if broker.startswith("redis://") else "filesystem://",
        "PIT_CACHE_URL": os.environ.get("PIT_CACHE_URL") or (broker if broker.startswith("redis://") else ""),
        "PIT_VAR_DIR": scratch,
        "DJANGO_STATIC_ROOT": str(Path(scratch) / "static"),
        "DJANGO_LOG_LEVEL": "WARNING",
        "PIT_HEALTH_REQUIRE_WORKERS": "False",  # no Celery worker runs: the web is measured alone
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(WORKERS),
        "GUNICORN_ACCESS_LOG": "/dev/null",
        "GUNICORN_MAX_REQUESTS": "0",
    }
    return {name: value for name, value in env.items() if value != ""}


def start_gunicorn(env: dict[str, str], port: int, log: list[str]) -> tuple[subprocess.Popen, float]:
    """gunicorn, and the seconds from its start to its first answer."""
    started = time.monotonic()
    gunicorn = subprocess.Popen(
        [venv("gunicorn"), "--config", "deploy/gunicorn.conf.py"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    threading.Thread(target=lambda: log.extend(gunicorn.stderr), daemon=True).start()
    while answered(port) is None:
        if time.monotonic() - started > GIVE_UP_SECONDS or gunicorn.poll() is not None:
            raise SystemExit("gunicorn did not come up:\n" + "".join(log[-20:]))
        time.sleep(0.05)
    return gunicorn, time.monotonic() - started


def kill_every_worker(gunicorn: subprocess.Popen, port: int, log: list[str]) -> tuple[float, float]:
    """(seconds from the kill to the first answer, to the last new worker warmed up)."""
    victims = worker_pids(gunicorn.pid)
    assert len(victims) == WORKERS, victims
    warmed_before = sum("warmed up" in line for line in log)
    killed = time.monotonic()
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    first = None
    while first is None:
        if answered(port, timeout=0.5) is not None and not set(worker_pids(gunicorn.pid)) & set(victims):
            first = time.monotonic() - killed
        elif time.monotonic() - killed > GIVE_UP_SECONDS:
            raise SystemExit(f"no answer within {GIVE_UP_SECONDS:.0f} s of killing every worker")
        else:
            time.sleep(0.05)
    while sum("warmed up" in line for line in log) < warmed_before + WORKERS:
        if time.monotonic() - killed > GIVE_UP_SECONDS:
            raise SystemExit("the new workers did not all warm up:\n" + "".join(log[-20:]))
        time.sleep(0.05)
    warmed = time.monotonic() - killed
    time.sleep(1)  # let the new workers settle before the next round
    return first, warmed


def main() -> int:
    bench_url, maintenance_url = database_urls()
    problem = postgres_problem(maintenance_url)
    if problem:
        print(f"bench_restart skipped: PostgreSQL is not reachable at {maintenance_url} ({problem})")
        return 0
    scratch = tempfile.mkdtemp(prefix="pit-bench-restart-")
    port = free_port()
    env = production_env(bench_url, scratch, port)
    recreate_database(maintenance_url)
    gunicorn, log = None, []
    try:
        subprocess.run([venv("python"), "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
        gunicorn, cold = start_gunicorn(env, port, log)
        print(f"gunicorn: {WORKERS} sync workers, pit.settings.production; first answer {cold:.2f} s after start")
        rounds = [kill_every_worker(gunicorn, port, log) for _ in range(ROUNDS)]
        for index, (first, warmed) in enumerate(rounds, 1):
            print(
                f"round {index}: every worker killed; first answer after {first:.2f} s, "
                f"all warmed up after {warmed:.2f} s"
            )
        worst = max(first for first, _ in rounds)
        figure("restart.figure", f"{worst:.2f}", "s")
        figure("restart.anchor", f"{cold:.2f}", "s")
        figure("restart.ratio", f"{worst / cold:.2f}", "x")
        figure("restart.warmed", f"{statistics.median(warmed for _, warmed in rounds):.2f}", "s")
        print(f"the slowest first answer after every worker was killed: {worst:.2f} s (target {TARGET_SECONDS:.0f} s)")
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                gunicorn.wait(timeout=30)
            if gunicorn.poll() is None:
                gunicorn.kill()
        recreate_database(maintenance_url, drop_only=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
