"""Serve the pit on one machine: the web server, a Celery worker per queue, and beat, side by side."""
import os
import signal
import subprocess
import sys

from django.conf import settings

from pit.core.arguments import PitCommand, port
from pit.core.queues import BULK, URGENT


def celery_commands(python: str, schedule: str) -> list[list[str]]:
    """As in production (README "Queues"): the urgent queue has a worker of its own, so that a
    reconciliation never waits behind a sweep or an export; beat runs beside them."""
    celery = [python, "-m", "celery", "-A", "pit"]
    return [
        [*celery, "worker", "-Q", URGENT, "-n", f"{URGENT}@%h", "--loglevel", "WARNING", "--concurrency", "1"],
        [*celery, "worker", "-Q", BULK, "-n", f"{BULK}@%h", "--loglevel", "WARNING", "--concurrency", "1"],
        [*celery, "beat", "-s", schedule, "--loglevel", "WARNING"],
    ]


class Command(PitCommand):
    help = "Start the web server, a Celery worker per queue (urgent, bulk) and beat; Ctrl-C stops them all."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=port, default="8000")
        parser.add_argument("--no-worker", action="store_true", help="Serve the web only.")

    def handle(self, *args, host, port, no_worker, **options):
        python = sys.executable
        settings_module = os.environ.get("DJANGO_SETTINGS_MODULE", "pit.settings.local")
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module}
        processes = []
        if not no_worker:
            schedule = os.path.join(settings.VAR_DIR, "celerybeat-schedule")
            for command in celery_commands(python, schedule):
                processes.append(subprocess.Popen(command, env=env))  # noqa: S603
        url = f"http://{host}:{port}/admin/"
        self.stdout.write(self.style.SUCCESS(f"\n  The pit is at {url}\n"))
        database = settings.DATABASES["default"]["ENGINE"]
        self.stdout.write(f"  Broker: {settings.CELERY_BROKER_URL}  Database: {database}\n")
        web = subprocess.Popen(  # noqa: S603
            [python, "manage.py", "runserver", "--noreload", f"{host}:{port}"], env=env
        )
        processes.append(web)

        def stop(signum, frame):
            raise KeyboardInterrupt

        # A service manager stops us with SIGTERM: take the workers and the web server down with us.
        signal.signal(signal.SIGTERM, stop)
        try:
            web.wait()
        except KeyboardInterrupt:
            pass
        finally:
            for process in processes:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in processes:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
