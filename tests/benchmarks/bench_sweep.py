"""Benchmark: the re-verification sweep (`manage.py reverify`) over realistic dealt coups on PostgreSQL,
against PostgreSQL merely reading the same coups and wagers through a server-side cursor.

Creates the database `pit_bench_sweep` (PIT_BENCH_SWEEP_DB; dropped first), migrates it, and fills it with what the
floor simulator deals (`pit.floor.simulator.simulate`, as `manage.py simulate` deals): real 8-deck
shoes to the cut card, several bets per seat (a main bet and side bets: tie, pairs), players coming
and going (PIT_BENCH_SWEEP_SEATS of 12 seats occupied on average), commission accrued and collected,
and its faults dealt in on purpose (wrong draws, misreported winners, wrong payouts, foreign cards,
replayed shoes, side-bet counters), settled by the engine and written with COPY. Scaled down to
PIT_BENCH_SWEEP_TABLES tables x PIT_BENCH_SWEEP_DAYS days x PIT_BENCH_SWEEP_SHOES shoes a day
(10 x 6 x 4, about 20,000 coups) so that it runs in a few minutes on a loaded 2-core machine.

Then, interleaved, PIT_BENCH_SWEEP_REPEATS times (median of each):
- the anchor: the coups and their standing wagers of the range, the columns the sweep reads, streamed
  through psycopg named cursors (coups then wagers) and decoded, nothing else done with them;
- the sweep (`coups_sweep`: the rule checks and game protection) re-run over the same range (the
  nightly case: everything judged again, nothing new to write; the first pass, which writes the
  findings, is printed apart), in PIT_SWEEP_PROCESSES processes (`sweep.processes`, default 2: the
  parent indexes the shoe sequences, then it and a forked child take the chunks), and again in one
  process (`sweep.one_process`);
- game protection alone (`protection_check_shoes`, weekly as the sweep runs it), per coup;
- the check of one coup just posted (`coups_check([coup])`, what the urgent task runs per coup) and
  of a whole shoe's coups in one task (the coalesced check), each per coup.

    PIT_BENCH_POSTGRES=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python tests/benchmarks/bench_sweep.py
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ADMIN_URL = os.environ.get("PIT_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("PIT_BENCH_SWEEP_DB", "pit_bench_sweep")
TABLES = int(os.environ.get("PIT_BENCH_SWEEP_TABLES", "10"))
DAYS = int(os.environ.get("PIT_BENCH_SWEEP_DAYS", "6"))
SHOES_PER_DAY = int(os.environ.get("PIT_BENCH_SWEEP_SHOES", "4"))
SEATS_OCCUPIED = int(os.environ.get("PIT_BENCH_SWEEP_SEATS", "7"))
REPEATS = max(3, int(os.environ.get("PIT_BENCH_SWEEP_REPEATS", "3")))
FIRST_DAY = dt.date(2026, 10, 1)
FAULT_RATE = 0.002  # per coup, for each kind of fault the simulator makes


def figure(name: str, value, unit: str) -> None:
    print(f"FIGURE\t{name}\t{value}\t{unit}", flush=True)


def database_url(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + "/" + name


def create_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DB}")


def setup_django() -> None:
    os.environ["DATABASE_URL"] = database_url(BENCH_DB)
    os.environ["DJANGO_SETTINGS_MODULE"] = "pit.settings.test"  # DEBUG off: no query log in memory
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "True"
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()


class CopyFloorClient:
    """The simulator's floor client for a benchmark: the dealer (`pit.floor.simulator`, as `manage.py
    simulate` runs it) decides every card, wager, payout, collection and fault; this client only
    keeps the rows the services would write, settled by the engine, for COPY."""

    def __init__(self, tables):
        from pit.floor.clients import _table_setup

        self.tables = {table.code: table for table in tables}
        self.setups = {code: _table_setup(table) for code, table in self.tables.items()}
        self.shoes, self.coups, self.wagers, self.entries = {}, [], [], []
        self.sequence = dict.fromkeys(self.tables, 0)
        self.seen = {}
        self.box = {}  # (shoe id, seat) -> commission owed
        # Backfilled history is recorded now, in the order it was dealt, after the tables were opened.
        self.recorded = dt.datetime.now(dt.UTC)

    def record_time(self) -> dt.datetime:
        self.recorded += dt.timedelta(microseconds=10)
        return self.recorded

    def table_setup(self, code):
        return self.setups[code]

    def table_open(self, code, at):
        pass

    def dealing_shoe_close(self, code, at):
        pass

    def dealing_shoe(self, code):
        return None

    def shoe_start(self, code, *, decks, cut_card_position, burn, shuffled_at):
        from collections import Counter

        self.sequence[code] += 1
        shoe_id = len(self.shoes) + 1
        self.shoes[shoe_id] = [
            code,
            self.sequence[code],
            decks,
            shuffled_at,
            cut_card_position,
            burn,
            self.record_time(),
        ]
        self.seen[shoe_id] = Counter(burn)
        return shoe_id, self.sequence[code]

    def coups_record(self, shoe_id, coups):
        from pit import game
        from pit.core.gaming_day import gaming_day_for
        from pit.core.money import settlement_unit, to_minor

        code = self.shoes[shoe_id][0]
        setup, table = self.setups[code], self.tables[code]
        ids = []
        for play in coups:
            coup_id = len(self.coups) + 1
            evaluation = game.evaluate(game.Coup.from_codes(play.player, play.banker))
            self.seen[shoe_id].update([*play.player, *play.banker])
            self.coups.append(
                (
                    coup_id,
                    self.record_time(),
                    shoe_id,
                    play.number,
                    play.dealt_at,
                    gaming_day_for(play.dealt_at),
                    list(play.player),
                    list(play.banker),
                    evaluation.player_total,
                    evaluation.banker_total,
                    str(evaluation.winner),
                    evaluation.natural,
                    evaluation.player_pair,
                    evaluation.banker_pair,
                    play.reported_winner,
                    table.paytable_id,
                )
            )
            for wager in play.wagers:
                settlement = game.settle(
                    setup.paytable, wager.bet, wager.amount, evaluation, unit=settlement_unit(setup.currency)
                )
                wager_id = len(self.wagers) + 1
                commission = to_minor(settlement.commission, setup.currency)
                self.wagers.append(
                    (
                        wager_id,
                        coup_id,
                        wager.seat,
                        wager.bet,
                        setup.currency,
                        to_minor(wager.amount, setup.currency),
                        str(settlement.result),
                        to_minor(settlement.payout, setup.currency),
                        commission,
                        to_minor(wager.paid, setup.currency),
                        gaming_day_for(play.dealt_at),
                    )
                )
                if commission:
                    self.box[shoe_id, wager.seat] = self.box.get((shoe_id, wager.seat), 0) + commission
                    self.entries.append(
                        (
                            play.dealt_at,
                            shoe_id,
                            wager.seat,
                            "accrued",
                            setup.currency,
                            commission,
                            wager_id,
                            "",
                            "",
                            gaming_day_for(play.dealt_at),
                        )
                    )
            ids.append(coup_id)
        return ids

    def commission_collect(self, shoe_id, seat):
        owed = self.box.pop((shoe_id, seat), 0)
        if owed:
            moment = self.coups[-1][4]
            self.entries.append(
                (moment, shoe_id, seat, "collected", "USD", -owed, None, "player_left", "", self.coups[-1][5])
            )

    def shoe_close(self, shoe_id, counts, closed_at):
        self.shoes[shoe_id] += [closed_at, self.record_time()]


def generate() -> tuple[int, int]:
    """Deal the shoes with the floor simulator and COPY them in. Returns (coups, wagers)."""
    from django.db import connection
    from psycopg.types.json import Jsonb

    from pit.floor.simulator import FAULT_KINDS, simulate
    from tests import factories

    tables = [
        factories.table(
            f"BB{number}", limits={"player": ("25", "10000"), "banker": ("25", "10000"), "tie": ("5", "1000")}
        )
        for number in range(1, TABLES + 1)
    ]
    client = CopyFloorClient(tables)
    # Backfilled history: the dealer's clock ends on the last day (no shoe is cut short by "now").
    now = dt.datetime.combine(FIRST_DAY + dt.timedelta(days=DAYS + 1), dt.time(12), tzinfo=dt.UTC)
    faults = dict.fromkeys(FAULT_KINDS, FAULT_RATE)
    faults.update(replayed_shoe=0.02, side_bet_counter=0.2, miscounted_box=0.0)
    result = simulate(
        client,
        tables=[table.code for table in tables],
        days=DAYS,
        shoes_per_day=SHOES_PER_DAY,
        seats=SEATS_OCCUPIED,
        faults=faults,
        seed=20261129,
        now=now,
        last_day=FIRST_DAY + dt.timedelta(days=DAYS - 1),
    )
    shoes = []
    for shoe_id, (
        code,
        sequence,
        decks,
        shuffled_at,
        cut,
        burn,
        recorded,
        closed_at,
        close_recorded,
    ) in client.shoes.items():
        seen = client.seen[shoe_id]
        dealt = sum(seen.values()) - len(burn)
        shoes.append(
            [
                shoe_id,
                recorded,
                client.tables[code].pk,
                sequence,
                decks,
                shuffled_at,
                cut,
                Jsonb(burn),
                "closed",
                closed_at,
                close_recorded,
                Jsonb(dict(seen)),
                dealt,
                0,
            ]
        )
    per_shoe = {}
    for row in client.coups:
        per_shoe[row[2]] = per_shoe.get(row[2], 0) + 1
    for row in shoes:
        row[-1] = per_shoe.get(row[0], 0)
    coups = [(*row[:6], Jsonb(row[6]), Jsonb(row[7]), *row[8:]) for row in client.coups]
    with connection.cursor() as cursor:
        raw = cursor.cursor
        for table_name, columns, rows in (
            (
                "shoes_shoe",
                "id, recorded_at, table_id, sequence, decks, shuffled_at, cut_card_position, "
                "burn_cards, status, closed_at, close_recorded_at, cards_seen, cards_dealt, coups_recorded",
                shoes,
            ),
            (
                "shoes_coup",
                "id, recorded_at, shoe_id, number, dealt_at, gaming_day, player_cards, "
                'banker_cards, player_total, banker_total, winner, "natural", player_pair, banker_pair, '
                "reported_winner, paytable_id",
                coups,
            ),
            (
                "shoes_wager",
                "id, coup_id, seat, bet, currency, amount_minor, result, payout_minor, "
                "commission_minor, paid_minor, gaming_day",
                client.wagers,
            ),
            (
                "ledger_commissionentry",
                "recorded_at, shoe_id, seat, kind, currency, amount_minor, wager_id, "
                "collection_reason, note, gaming_day",
                client.entries,
            ),
        ):
            with raw.copy(f"COPY {table_name} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        for table_name in ("shoes_shoe", "shoes_coup", "shoes_wager"):
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table_name}', 'id'), (SELECT max(id) FROM {table_name}))"
            )
        cursor.execute("ANALYZE")
    kinds = {}
    for fault in result.faults:
        kinds[fault.kind] = kinds.get(fault.kind, 0) + 1
    print("faults dealt in:", ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())), flush=True)
    return len(coups), len(client.wagers)


READ_COUPS_SQL = """
SELECT c.id, c.shoe_id, c.number, c.gaming_day, c.player_cards, c.banker_cards, c.reported_winner,
       c.paytable_id, c.recorded_at, c.dealt_at
FROM shoes_coup c WHERE c.gaming_day BETWEEN %s AND %s
"""
READ_WAGERS_SQL = """
SELECT w.id, w.coup_id, w.seat, w.bet, w.currency, w.amount_minor, w.paid_minor
FROM shoes_wager w JOIN shoes_coup c ON c.id = w.coup_id
WHERE c.gaming_day BETWEEN %s AND %s AND w.correction_id IS NULL
"""


def read_anchor(first: dt.date, last: dt.date) -> tuple[int, float]:
    """The coups, then their wagers, streamed through server-side cursors. Returns (coups, seconds)."""
    from django.db import connection, transaction

    started = time.perf_counter()
    coups = 0
    with transaction.atomic(), connection.cursor() as django_cursor:
        for name, sql in (("bench_coups", READ_COUPS_SQL), ("bench_wagers", READ_WAGERS_SQL)):
            raw = django_cursor.cursor.connection.cursor(name=name)
            raw.itersize = 5000
            raw.execute(sql, [first, last])
            count = sum(1 for _ in raw)
            raw.close()
            coups = coups or count
    return coups, time.perf_counter() - started


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def main() -> None:
    create_database()
    setup_django()
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrated in {time.perf_counter() - started:.1f}s", flush=True)
    started = time.perf_counter()
    coups, wagers = generate()
    print(f"dealt {coups:,} coups, {wagers:,} wagers in {time.perf_counter() - started:.1f}s", flush=True)

    from django.conf import settings

    from pit.compliance.checks import coups_check, coups_sweep, sweep_processes
    from pit.compliance.models import RuleViolation
    from pit.protection.checks import protection_check_shoes
    from pit.shoes.models import Coup

    first, last = FIRST_DAY - dt.timedelta(days=1), FIRST_DAY + dt.timedelta(days=DAYS + 1)
    shoe_ids = sorted(set(Coup.objects.values_list("shoe_id", flat=True)))
    read_anchor(first, last)  # warm the cache: both sides read from memory
    first_pass, first_seconds = timed(coups_sweep, first_day=first, last_day=last)
    assert first_pass.coups == coups, (first_pass.coups, coups)
    recorded = RuleViolation.objects.count()

    # The last shoe's coups: checked one by one as the urgent task does when each is posted, and all
    # in one task (the coalesced check of a shoe's pending coups).
    last_shoe = list(Coup.objects.filter(shoe_id=shoe_ids[-1]).order_by("number").values_list("pk", flat=True))
    singles = last_shoe[-10:]

    if os.environ.get("PIT_BENCH_SWEEP_PROFILE"):
        import cProfile

        cProfile.runctx(
            "coups_sweep(first_day=first, last_day=last)", globals(), locals(), os.environ["PIT_BENCH_SWEEP_PROFILE"]
        )
    anchor, sweep, one_process, protection, single, coalesced = [], [], [], [], [], []
    processes = sweep_processes()
    for _ in range(REPEATS):
        read, seconds = timed(read_anchor, first, last)
        assert read[0] == coups
        anchor.append(read[1])
        totals, seconds = timed(coups_sweep, first_day=first, last_day=last)
        assert totals.coups == coups and totals.created == totals.cleared == totals.restored == 0
        sweep.append(seconds)
        configured, settings.PIT_SWEEP_PROCESSES = settings.PIT_SWEEP_PROCESSES, 1
        totals, seconds = timed(coups_sweep, first_day=first, last_day=last)
        settings.PIT_SWEEP_PROCESSES = configured
        assert totals.coups == coups and totals.created == totals.cleared == totals.restored == 0
        one_process.append(seconds)
        protection.append(timed(protection_check_shoes, shoe_ids=shoe_ids, weekly=True)[1])
        single.append(sum(timed(coups_check, coup_ids=[pk])[1] for pk in singles) / len(singles))
        coalesced.append(timed(coups_check, coup_ids=last_shoe)[1])
    assert RuleViolation.objects.count() == recorded  # nothing new, nothing lost

    anchor_rate = coups / statistics.median(anchor)
    sweep_rate = coups / statistics.median(sweep)
    figure("sweep.figure", f"{sweep_rate:.0f}", "coups/s")
    figure("sweep.anchor", f"{anchor_rate:.0f}", "coups/s")
    figure("sweep.ratio", f"{sweep_rate / anchor_rate:.3f}", "x")
    figure("sweep.processes", processes, "processes")
    figure("sweep.one_process", f"{coups / statistics.median(one_process):.0f}", "coups/s")
    figure("sweep.one_process_ratio", f"{coups / statistics.median(one_process) / anchor_rate:.3f}", "x")
    figure("sweep.coups", coups, "coups")
    figure("sweep.wagers", wagers, "wagers")
    figure("sweep.wagers_per_coup", f"{wagers / coups:.2f}", "wagers")
    figure("sweep.findings", first_pass.created, "findings")
    figure("sweep.first_pass_rate", f"{coups / first_seconds:.0f}", "coups/s")
    figure("sweep.protection_per_coup", f"{statistics.median(protection) / coups * 1000:.3f}", "ms")
    figure("sweep.protection_rate", f"{coups / statistics.median(protection):.0f}", "coups/s")
    figure("sweep.coup_check_per_coup", f"{statistics.median(single) * 1000:.1f}", "ms")
    figure("sweep.shoe_check", f"{statistics.median(coalesced) * 1000:.1f}", "ms")
    figure("sweep.shoe_check_coups", len(last_shoe), "coups")
    figure("sweep.shoe_check_per_coup", f"{statistics.median(coalesced) / len(last_shoe) * 1000:.2f}", "ms")
    for code, count in sorted(first_pass.codes.items()):
        print(f"  {code}: {count:,}", flush=True)


if __name__ == "__main__":
    main()
