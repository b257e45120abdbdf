"""`manage.py demo_pit`: the demo pit `make run` opens on; a second run only prints the logins."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand

from pit.floor.demo import LOGINS, demo_pit_exists, demo_pit_play, demo_pit_setup
from pit.floor.management.commands.simulate import Progress, eager
from pit.floor.simulator import COUPS_PER_SHOE


class Command(BaseCommand):
    help = (
        "Set up a demo pit (staff, tables, a few gaming days of play) if the pit is empty; print the logins."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")

    def handle(self, *args, host, port, **options):
        if demo_pit_exists():
            self.stdout.write("The pit has tables already: keeping its data.")
        else:
            started = time.monotonic()
            self.stdout.write("Setting up a demo pit: staff, five tables, three gaming days of play ...")
            tables = demo_pit_setup()
            from pit.floor.demo import DEMO_DAYS, DEMO_SHOES_PER_DAY

            progress = Progress(len(tables) * int((DEMO_DAYS * DEMO_SHOES_PER_DAY + 0.3) * COUPS_PER_SHOE))
            with eager(True):  # the checks and reconciliations run here, before the server starts
                result = demo_pit_play(on_coup=progress.step)
            progress.finish()
            self.stdout.write(
                f"Dealt {result.coups} coups in {result.shoes} shoes ({result.wagers} wagers) in "
                f"{time.monotonic() - started:.0f}s, with {len(result.faults)} dealer mistakes to find."
            )
        self.stdout.write(self.style.SUCCESS(f"\n  The pit: http://{host}:{port}/admin/"))
        self.stdout.write(f"  The pit boss's dashboard: http://{host}:{port}/admin/pit/dashboard/")
        self.stdout.write("  Logins (demo only; change them before anyone else can reach this machine):")
        for login in LOGINS:
            self.stdout.write(f"    {login.role:<11} {login.username} / {login.password}")
        if not settings.DEBUG:
            self.stdout.write("")
