"""Real processes for the job tests: a `celery -A pit worker`, a beat, and a private redis-server
that a test may stop and start again (its own port, its own folder)."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
QUEUES = "urgent,bulk"
# `celery -A pit ...`, except that Redis looks for messages to hand out again every second
# (by default every 100 s: harmless with the production visibility timeout of an hour, too slow here).
CELERY_MAIN = (
    "import sys; from pit.celery import app; "
    "app.conf.broker_transport_options = {**app.conf.broker_transport_options, "
    "'unacked_restore_interval': 1, 'unacked_restore_throttle': 1}; "
    "app.start(sys.argv[1:])"
)


def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def database_url() -> str:
    """pytest-django's test database, not the configured one."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class CeleryProcess:
    """`celery -A pit worker|beat` in its own process, on the test database, logging to a file."""

    ready_line = " ready."

    def __init__(self, log: Path, args: list[str], *, broker_url: str | None = None, env: dict | None = None):
        self.log = log
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "pit.settings.test",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": broker_url or settings.CELERY_BROKER_URL,
            "CELERY_TASK_ALWAYS_EAGER": "False",
            **(env or {}),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-c", CELERY_MAIN, *args],
            cwd=ROOT,
            env=environment,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for(
            lambda: self.ready_line in self.output() or self.process.poll() is not None,
            timeout=60,
            what=f"{args[0]} to start",
        )
        assert self.process.poll() is None, self.output()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL, as the kernel's OOM killer or a power cut would."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


class Worker(CeleryProcess):
    def __init__(self, log: Path, *, visibility_timeout: int = 3600, queues: str = QUEUES, **options):
        env = {"CELERY_VISIBILITY_TIMEOUT": str(visibility_timeout), **options.pop("env", {})}
        args = [
            "worker",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            queues,
            "-n",
            f"test-{uuid.uuid4().hex[:8]}@localhost",
        ]
        super().__init__(log, args, env=env, **options)


class Beat(CeleryProcess):
    ready_line = "beat: Starting..."

    def __init__(self, log: Path, **options):
        schedule = log.with_suffix(".schedule")
        super().__init__(log, ["beat", "--loglevel=INFO", "-s", str(schedule)], **options)


class PrivateRedis:
    """A redis-server of the test's own (port 16310+, folder under tmp), to stop and start at will."""

    def __init__(self, folder: Path, port: int):
        self.folder, self.port = folder, port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen | None = None
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--save",
                "",
                "--appendonly",
                "no",
                "--logfile",
                str(self.folder / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_for(self.ping, timeout=20, what=f"redis-server on port {self.port}")

    def ping(self) -> bool:
        import redis

        try:
            return redis.Redis(port=self.port, socket_connect_timeout=0.5).ping()
        except redis.exceptions.ConnectionError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        self.process = None
