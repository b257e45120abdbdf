"""`manage.py demo_pit`: the demo pit `make run` opens on; a second run only prints the logins."""

import logging
import time

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.translation import gettext, ngettext

from pit.core.arguments import PitCommand, at_least, port, text
from pit.floor.demo import (
    DEMO_DAYS,
    DEMO_SHOES_PER_DAY,
    DEMO_TABLES,
    LOGINS,
    demo_pit_exists,
    demo_pit_play,
    demo_pit_setup,
)
from pit.floor.management.commands.simulate import Progress, eager
from pit.floor.simulator import COUPS_PER_SHOE


class Command(PitCommand):
    help = "Set up a demo pit (staff, tables, a few gaming days of play) if the pit is empty; print logins."

    def add_arguments(self, parser):
        parser.add_argument("--host", type=text, default="127.0.0.1")
        parser.add_argument("--port", type=port, default="8000")
        parser.add_argument("--days", type=at_least(1), default=DEMO_DAYS, help="Gaming days of play, ending today.")
        parser.add_argument("--shoes", type=at_least(1), default=DEMO_SHOES_PER_DAY, help="Shoes per table per day.")
        shown = parser.add_mutually_exclusive_group()
        shown.add_argument(
            "--no-logins", action="store_true", help="Do not print the logins (`make run`: runpit prints them last)."
        )
        shown.add_argument("--logins-only", action="store_true", help="Only print the URLs and the logins.")
        parser.add_argument(
            "--in-production",
            action="store_true",
            help="Under the production settings, set up the demo pit anyway (its superuser's login is public).",
        )

    def handle(self, *args, host, port, days, shoes, no_logins, logins_only, in_production, **options):
        if settings.PIT_PRODUCTION and not in_production:
            raise CommandError(
                gettext(
                    "refused under the production settings: the demo pit's logins (a superuser among them) are "
                    "published in the README; pass --in-production to set it up anyway"
                )
            )
        if not logins_only:
            self.setup(host, port, days, shoes)
        if not no_logins:
            self.logins(host, port)

    def setup(self, host, port, days, shoes):
        if demo_pit_exists():
            self.stdout.write(gettext("The pit has tables already: keeping its data."))
        else:
            started = time.monotonic()
            self.stdout.write(
                ngettext(
                    "Setting up a demo pit: staff, {count} tables, {days} gaming day of play ...",
                    "Setting up a demo pit: staff, {count} tables, {days} gaming days of play ...",
                    days,
                ).format(count=len(DEMO_TABLES), days=days)
            )
            keys = demo_pit_setup()
            progress = Progress(len(DEMO_TABLES) * int((days * shoes + 0.3) * COUPS_PER_SHOE))
            trace = logging.getLogger("celery.app.trace")
            level = trace.level
            trace.setLevel(logging.WARNING)  # one line per task run in-process is noise here
            try:
                with eager(True):  # the checks and reconciliations run now, before the server starts
                    result = demo_pit_play(days=days, shoes_per_day=shoes, on_coup=progress.step)
            finally:
                trace.setLevel(level)
                progress.finish()
            self.stdout.write(
                gettext(
                    "Dealt {result_coups} coups in {result_shoes} shoes ({result_wagers} "
                    "wagers) in {value:.0f}s, with {count} dealer mistakes to find."
                ).format(
                    result_coups=result.coups,
                    result_shoes=result.shoes,
                    result_wagers=result.wagers,
                    value=time.monotonic() - started,
                    count=len(result.faults),
                )
            )
            code = next(iter(keys))
            self.stdout.write(
                gettext(
                    "Each table has a floor device. {code}'s API key, shown only now, "
                    "plays it over the REST API\n(with `make run LIVE=0`, once `manage.py "
                    "simulate --tables {code_2}` closed its shoe):\n  manage.py simulate "
                    "--url http://{host}:{port} --key {keys} --tables {code_3}"
                ).format(code=code, code_2=code, host=host, port=port, keys=keys[code], code_3=code)
            )

    def logins(self, host, port):
        self.stdout.write(
            self.style.SUCCESS(gettext("\n  The pit: http://{host}:{port}/admin/").format(host=host, port=port))
        )
        self.stdout.write(
            gettext("  The pit boss's dashboard: http://{host}:{port}/admin/pit/dashboard/").format(
                host=host, port=port
            )
        )
        self.stdout.write(gettext("  Logins (demo only; change them before anyone else can reach this machine):"))
        for login in LOGINS:
            self.stdout.write(f"    {login.role:<11} {login.username} / {login.password}")
        self.stdout.write("")
