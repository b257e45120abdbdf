"""Serve the pit on one machine: the web server, a Celery worker per queue, and beat, side by side.
A worker or beat that dies is started again, and runpit says so (pit.core.processes.Supervised).

What they print at start (the workers' and beat's banners, the web server's address) is relayed
line by line, and the pit's address (and, with --demo-logins, the demo's logins) comes last, once
each has printed its banner: the logins no longer scroll away under a worker's banner.
"""

import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, NoReturn

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandParser
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, port, text
from pit.core.processes import Supervised
from pit.core.queues import BULK, URGENT

# The line that ends what each process prints as it starts: a worker's banner ends with its queues
# (".> urgent  exchange=urgent(direct) ..."), beat's with its max interval, runserver's with how to quit.
STARTED_MARKERS = {"worker": "exchange=", "beat": "maxinterval", "web": "Quit the server with"}
START_TIMEOUT = 60.0  # seconds: past it, the address and logins are printed anyway
SUPERVISE_SECONDS = 1.0  # how often the workers and beat are looked at (one that died is restarted)


class Relay(threading.Thread):
    """Copies a child's standard output to ours, line by line, and notes when it has started."""

    def __init__(
        self, process: subprocess.Popen[str], marker: str, write: Callable[[str], object], lock: threading.Lock
    ) -> None:
        super().__init__(daemon=True)
        self.process, self.marker, self.write, self.lock = process, marker, write, lock
        self.started = threading.Event()

    def run(self) -> None:
        assert self.process.stdout is not None  # started with stdout=PIPE
        for line in self.process.stdout:
            with self.lock:
                self.write(line.rstrip("\n"))
            if self.marker in line:
                self.started.set()
        self.started.set()  # it ended: nothing more to wait for


def celery_commands(python: str, schedule: str) -> list[tuple[str, list[str]]]:
    """(what it is, its command). As in production (docs/operations/queues.md): the urgent queue has a
    worker of its own, so that a reconciliation never waits behind a sweep or an export; beat runs beside them."""
    celery = [python, "-m", "celery", "-A", "pit"]
    return [
        (
            f"{URGENT} worker",
            [*celery, "worker", "-Q", URGENT, "-n", f"{URGENT}@%h", "--loglevel", "WARNING", "--concurrency", "1"],
        ),
        (
            f"{BULK} worker",
            [*celery, "worker", "-Q", BULK, "-n", f"{BULK}@%h", "--loglevel", "WARNING", "--concurrency", "1"],
        ),
        ("beat", [*celery, "beat", "-s", schedule, "--loglevel", "WARNING"]),
    ]


class Command(PitCommand):
    help = "Start the web server, a Celery worker per queue (urgent, bulk) and beat; Ctrl-C stops them all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", type=text, default="127.0.0.1")
        parser.add_argument("--port", type=port, default="8000")
        parser.add_argument("--no-worker", action="store_true", help="Serve the web only.")
        parser.add_argument("--demo-logins", action="store_true", help="Print the demo pit's logins last (`make run`).")

    def handle(self, *args: Any, host: str, port: str, no_worker: bool, demo_logins: bool, **options: Any) -> None:
        python = sys.executable
        settings_module = os.environ.get("DJANGO_SETTINGS_MODULE", "pit.settings.local")
        # Unbuffered: a child's banner reaches the relay as it is printed, not when the pipe's buffer fills.
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module, "PYTHONUNBUFFERED": "1"}
        relays: list[Relay] = []
        lock = threading.Lock()

        def start(command: list[str], marker: str) -> subprocess.Popen[str]:
            process = subprocess.Popen(  # noqa: S603
                command, env=env, stdout=subprocess.PIPE, text=True, bufsize=1
            )
            relays.append(Relay(process, marker, self.stdout.write, lock))
            relays[-1].start()
            return process

        def say(line: str) -> None:
            with lock:
                self.stdout.write(self.style.WARNING(line))

        def stop(signum: int, frame: FrameType | None) -> NoReturn:
            raise KeyboardInterrupt

        # A service manager stops us with SIGTERM: take the workers and the web server down with us.
        signal.signal(signal.SIGTERM, stop)
        supervised: list[Supervised] = []
        web: subprocess.Popen[str] | None = None
        try:
            if not no_worker:
                schedule = os.path.join(settings.VAR_DIR, "celerybeat-schedule")
                for label, command in celery_commands(python, schedule):
                    marker = STARTED_MARKERS["beat" if label == "beat" else "worker"]
                    supervised.append(Supervised(label, functools.partial(start, command, marker), say))
            web = start([python, "manage.py", "runserver", "--noreload", f"{host}:{port}"], STARTED_MARKERS["web"])
            deadline = time.monotonic() + START_TIMEOUT
            for relay in list(relays):
                relay.started.wait(max(deadline - time.monotonic(), 0))
            with lock:
                self.announce(host, port, demo_logins)
            # A worker or beat that dies is started again (and said so); the web server ending ends us.
            while web.poll() is None:
                for child in supervised:
                    child.check()
                time.sleep(SUPERVISE_SECONDS)
        except KeyboardInterrupt:
            pass
        finally:
            processes = [child.process for child in supervised] + ([web] if web is not None else [])
            for process in processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in processes:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()

    def announce(self, host: str, port: str, demo_logins: bool) -> None:
        """The broker and database, then the pit's address (with the demo's logins): printed last."""
        database = settings.DATABASES["default"]["ENGINE"]
        self.stdout.write(
            gettext("\n  Broker: {settings_celery_broker_url}  Database: {database}").format(
                settings_celery_broker_url=settings.CELERY_BROKER_URL, database=database
            )
        )
        if demo_logins:
            call_command("demo_pit", "--logins-only", "--host", host, "--port", str(port), stdout=self.stdout)
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    gettext("\n  The pit is at http://{host}:{port}/admin/\n").format(host=host, port=port)
                )
            )
