"""`manage.py simulate`: play shoes at the pit's tables, through the services or the REST API."""

import datetime as dt
import sys
import time

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.utils.translation import gettext

from pit.core.arguments import PitCommand, at_least, integer, positive_seconds, text
from pit.core.errors import validation_message
from pit.core.gaming_day import gaming_day_bounds, gaming_day_for
from pit.core.money import format_money
from pit.floor.accounting import parse_accounting_faults, simulate_accounting
from pit.floor.clients import HttpFloorClient, ServicesFloorClient
from pit.floor.controls import parse_control_faults, simulate_controls
from pit.floor.progressives import progressive_bank_file, progressive_hit_pay
from pit.floor.simulator import COUPS_PER_SHOE, FloorClient, SimulationError, deal_live, parse_fault_rates, simulate
from pit.game import format_amount
from pit.progressives.selectors import meter_figures
from pit.protection.dealer_errors import dealer_error_rates_check
from pit.tables.models import Table


class Progress:
    """A one-line progress bar on stderr for long runs (silent when stderr is not a terminal)."""

    def __init__(self, total: int, stream=sys.stderr, enabled: bool | None = None):
        self.total, self.done, self.stream = max(total, 1), 0, stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.started = self.last = time.monotonic()

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.2 or self.done >= self.total):
            self.last = now
            share = min(self.done / self.total, 1)
            bar = "#" * int(share * 30)
            rate = self.done / max(now - self.started, 1e-9)
            self.stream.write(f"\r  dealing [{bar:<30}] {self.done} coups, {rate:.0f}/s ")
            self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")


class Command(PitCommand):
    help = (
        "Deal real shoes at the pit's tables (seeded, repeatable), with wagers, players coming and going, "
        "commission box counts, and faults injected at the given rates."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--tables",
            type=text,
            default="",
            help="Table codes (BB1,MN1) or a count of the first tables; default: every table.",
        )
        parser.add_argument("--shoes", type=at_least(1), default=1, help="Shoes per table per gaming day.")
        parser.add_argument("--days", type=at_least(1), default=1, help="Gaming days, ending with today's.")
        parser.add_argument("--seats", type=at_least(1), default=5, help="Seats occupied per table.")
        parser.add_argument(
            "--patrons",
            type=at_least(0),
            default=0,
            help="Patrons of the player club seated at the tables (rated; some players stay unrated). "
            "In process only (not with --url).",
        )
        parser.add_argument(
            "--fault-rate",
            type=text,
            default="",
            help="Dealer mistakes (rates per coup; per shoe for the box): wrong_draw=0.01, "
            "misreported_winner=0.01, wrong_payout=0.01, miscounted_box=0.1, foreign_card=0.01. "
            "Game protection injections: replayed_shoe=0.1 (per shoe: the previous shoe dealt again "
            "unshuffled), side_bet_counter=0.5 (per table: a seat that counts the side bets), "
            "perfect_pair_counter=0.5 (per table offering Perfect Pair: a seat that bets it only when "
            "the suits left make it positive), "
            "hot_table=0.5 (per table: players bet on the coming winner on 3 coups in 4), "
            "silent_reader=0.5 (per table: the reader dies in the last shoe, left dealing), "
            "fast_table=0.5 (per table: its first gaming day dealt 25 s a coup apart, two shoes at "
            "least), erring_dealer=0.1 (one dealer of the roster mispays or misdeals on this share "
            "of their coups; implies --dealers). Comma-separated; a bare number sets every fault.",
        )
        parser.add_argument(
            "--dealers",
            type=at_least(0),
            default=None,
            help="A roster of this many dealers (SIM01 ...) rotating through the tables every 40 minutes, "
            "each rotation posted as a floor system does (at least as many as the tables; 0: none). "
            "Default: none, or one more than the tables when erring_dealer is asked for. With --url "
            "the dealers must exist in the pit already.",
        )
        parser.add_argument(
            "--accounting-fault-rate",
            type=text,
            default="",
            help="Table accounting faults: short_fill=0.2,miscounted_drop=0.1 (a bare number sets both). "
            "Openers, closers, fills, credits and drops are recorded after the play (not with --url or --live).",
        )
        parser.add_argument(
            "--control-fault-rate",
            type=text,
            default="",
            help="Internal control lapses: short_issue=0.05, unlisted_key=0.02, late_key=0.02, "
            "missed_handover=0.05, unwatched_decks=0.02, unfiled_notice=0.1, kept_raise=0.2, skipped_slip=0.02, "
            "late_acknowledgement=0.02 (comma-separated; a bare number sets each). Decks, keys, shift "
            "handovers, the slip series, surveillance's acknowledgements, the regulator's notices and "
            "table-limit raises are recorded after the play (not with --url or --live).",
        )
        parser.add_argument("--seed", type=integer, default=0)
        parser.add_argument("--decks", type=at_least(1), default=8)
        parser.add_argument("--leave-open", action="store_true", help="End each table with a shoe still dealing.")
        parser.add_argument("--batch", type=at_least(1), default=25, help="Coups per batch posted.")
        parser.add_argument("--eager", action="store_true", help="Run the checks and reconciliations in-process.")
        parser.add_argument(
            "--url", type=text, default="", help="Play through the REST API at this URL instead of the services."
        )
        parser.add_argument("--key", type=text, default="", help="The device API key (with --url).")
        parser.add_argument("--no-progress", action="store_true")
        parser.add_argument(
            "--live",
            action="store_true",
            help="Deal in real time at the tables, a coup every --interval seconds.",
        )
        parser.add_argument("--interval", type=positive_seconds, default=4.0, help="Seconds between coups with --live.")
        parser.add_argument("--coups", type=at_least(1), default=None, help="Stop after this many coups (--live).")
        parser.add_argument(
            "--progressive",
            type=text,
            default="",
            help="A bet made progressive over the tables (e.g. player_pair): its meter is filed before the "
            "first coup and its first hit paid and reset after the play.",
        )

    def handle(self, *args, **options):
        try:
            rates = parse_fault_rates(options["fault_rate"])
            accounting_rates = parse_accounting_faults(options["accounting_fault_rate"])
            control_rates = parse_control_faults(options["control_fault_rate"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        codes = self._tables(options["tables"], remote=bool(options["url"]))
        dealers = options["dealers"]
        if dealers is None:
            dealers = len(codes) + 1 if rates["erring_dealer"] > 0 else 0
        if 0 < dealers < len(codes):
            raise CommandError(
                gettext("--dealers: {dealers} dealers cannot deal at {count} tables at once.").format(
                    dealers=dealers, count=len(codes)
                )
            )
        options["dealers"] = dealers
        client: FloorClient
        if options["url"]:
            if not options["key"]:
                raise CommandError(gettext("--url needs --key (a device API key)."))
            client = HttpFloorClient(options["url"], options["key"])
        else:
            client = ServicesFloorClient()
        progress = Progress(
            len(codes) * options["days"] * options["shoes"] * COUPS_PER_SHOE,
            enabled=False if options["no_progress"] else None,
        )
        started = time.monotonic()
        if options["live"]:
            return self._live(client, codes, rates, options)
        meter = None
        if options["progressive"] and not options["url"]:
            first = gaming_day_for(dt.datetime.now(dt.UTC)) - dt.timedelta(days=options["days"] - 1)
            try:
                meter = progressive_bank_file(
                    tables=codes, bet=options["progressive"], start=gaming_day_bounds(first)[0]
                )
            except ValidationError as exc:
                raise CommandError(validation_message(exc)) from exc
        with eager(options["eager"]):
            try:
                result = simulate(
                    client,
                    tables=codes,
                    days=options["days"],
                    shoes_per_day=options["shoes"],
                    seats=options["seats"],
                    faults=rates,
                    seed=options["seed"],
                    decks=options["decks"],
                    leave_open=options["leave_open"],
                    batch_size=options["batch"],
                    on_coup=progress.step,
                    now=dt.datetime.now(dt.UTC),
                    dealers=dealers,
                    patrons=options["patrons"],
                )
            except SimulationError as exc:
                raise CommandError(str(exc)) from exc
            finally:
                progress.finish()
            accounting_faults = (
                []
                if options["url"]
                else simulate_accounting(
                    coup_ids=result.coup_ids,
                    seed=options["seed"],
                    faults={**accounting_rates, **control_rates},
                    controls=True,
                )
            )
            # The slip series and the drops' acknowledgements are kept with the accounting; their
            # lapses are the controls'.
            control_faults = [fault for fault in accounting_faults if fault.kind in control_rates]
            accounting_faults = [fault for fault in accounting_faults if fault.kind not in control_rates]
            if not options["url"]:
                control_faults += simulate_controls(seed=options["seed"], faults=control_rates)
            if options["eager"] and dealers and not options["url"]:
                # Beat judges dealers every 10 minutes for today and yesterday; the days played now.
                today = gaming_day_for(dt.datetime.now(dt.UTC))
                dealer_error_rates_check(first_day=today - dt.timedelta(days=options["days"] - 1), last_day=today)
        seconds = time.monotonic() - started
        self.stdout.write(
            gettext(
                "Dealt {result_coups} coups in {result_shoes} shoe(s) at {count} "
                "table(s) ({result_wagers} wagers, handle {format_amount}) in "
                "{seconds:.1f}s; seed {seed}, digest {value}."
            ).format(
                result_coups=result.coups,
                result_shoes=result.shoes,
                count=len(codes),
                result_wagers=result.wagers,
                format_amount=format_amount(result.handle),
                seconds=seconds,
                seed=options["seed"],
                value=result.digest[:12],
            )
        )
        self.stdout.write(gettext("Faults injected: {count}").format(count=len(result.faults)))
        for fault in result.faults:
            ids = f" [shoe id {fault.shoe_id}" + (f", coup id {fault.coup_id}" if fault.coup_id else "") + "]"
            self.stdout.write(f"  {fault}{ids}")
        if meter is not None:
            payout = progressive_hit_pay(meter=meter, coup_ids=result.coup_ids)
            figures = meter_figures(meter)
            paid = (
                f"hit paid {format_money(payout.amount_minor, meter.currency)} on coup id {payout.coup_id}, reset"
                if payout
                else "no hit"
            )
            self.stdout.write(
                gettext("Progressive {meter} ({bet}): {paid}; the meter stands at {amount}.").format(
                    meter=meter.code,
                    bet=meter.bet,
                    paid=paid,
                    amount=format_money(figures.amount_minor, meter.currency),
                )
            )
        if not options["url"]:
            self.stdout.write(
                gettext("Table accounting recorded; accounting faults injected: {count}").format(
                    count=len(accounting_faults)
                )
            )
            for fault in accounting_faults:
                self.stdout.write(
                    gettext("  {fault_kind} ({fault_code}) at {fault_table}: {fault_detail}").format(
                        fault_kind=fault.kind, fault_code=fault.code, fault_table=fault.table, fault_detail=fault.detail
                    )
                )
            self.stdout.write(
                gettext("Internal controls recorded; control lapses injected: {count}").format(
                    count=len(control_faults)
                )
            )
            for fault in control_faults:
                self.stdout.write(
                    gettext("  {fault_kind} ({fault_code}) at {fault_table}: {fault_detail}").format(
                        fault_kind=fault.kind,
                        fault_code=fault.code,
                        fault_table=fault.table or gettext("the pit"),
                        fault_detail=fault.detail,
                    )
                )

    def _live(self, client, codes, rates, options) -> None:
        self.stdout.write(
            gettext("Dealing live at {names}: a coup every {interval:g}s; Ctrl-C stops.").format(
                names=", ".join(codes), interval=options["interval"]
            )
        )
        try:
            with eager(options["eager"]):
                result = deal_live(
                    client,
                    tables=codes,
                    seats=options["seats"],
                    faults=rates,
                    seed=options["seed"],
                    decks=options["decks"],
                    interval=options["interval"],
                    coups=options["coups"],
                    dealers=options["dealers"],
                )
        except KeyboardInterrupt:
            return
        except SimulationError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            gettext("Dealt {result_coups} coups live; faults injected: {count}").format(
                result_coups=result.coups, count=len(result.faults)
            )
        )

    def _tables(self, text: str, *, remote: bool) -> list[str]:
        """The codes asked for; over the API (remote) the server's tables need not be in this database."""
        available = list(Table.objects.order_by("code").values_list("code", flat=True))
        if text.strip().isdigit():
            return available[: int(text)]
        wanted = [code.strip() for code in text.split(",") if code.strip()] or available
        unknown = sorted(set(wanted) - set(available))
        if unknown and not remote:
            raise CommandError(
                gettext("No table {names} (tables: {value}).").format(
                    names=", ".join(unknown), value=", ".join(available) or "none"
                )
            )
        if not wanted:
            raise CommandError(gettext("There are no tables to play at; run `manage.py demo_pit` or create some."))
        return wanted


class eager:  # noqa: N801 (used as a context manager)
    """Run Celery tasks in-process for the duration (the checks and reconciliations of the run)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __enter__(self):
        from pit.celery import app  # the Celery app is loaded by CoreConfig.ready, after the apps (pit/__init__.py)

        self.app, self.before = app, app.conf.task_always_eager
        if self.enabled:
            app.conf.task_always_eager = True
        return self

    def __exit__(self, *exc):
        self.app.conf.task_always_eager = self.before
        return False
