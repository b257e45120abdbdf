"""The checks run on recorded coups, each a thin use of the game engine's rules.

One implementation serves one coup (the verification task, just after recording) and a year of
coups (the nightly sweep, `manage.py reverify`): shoes are read a chunk at a time, each chunk in a
few queries (shoes, coups, wagers, ledger accruals, earlier findings), every coup is judged by the
engine, and only the difference is written: new findings in one bulk insert (the fingerprint is
unique, so a finding is never recorded twice), findings that hold again un-cleared, and findings a
re-check no longer sees marked cleared (never deleted), one UPDATE each per chunk.

The checks, all by the engine: the draw rules and reported winner (`verify_coup`); shoe integrity
(`check_cards_seen` over the burn and every coup up to this one, `check_coup_number`,
`coup_after_shoe_closed`, `play_at_closed_table` from the table's recorded opens and closes);
settlement (`check_payout` against the table's report, `check_commission`
against the ledger's accrual net of reversals, both from `settle` under the coup's paytable
version); table rules (`check_wager_limits` with the table's limits and the paytable's increments).
Wagers are judged as they stand after corrections and voids (`pit.shoes.selectors.Standing`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
import multiprocessing
import os
import pickle
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violations_clear_missing
from pit.core.collection import collection_paused
from pit.core.money import from_minor, settlement_unit
from pit.core.outbox import outbox_owed_row, outbox_pending, outbox_take_over
from pit.core.queues import VERIFY_TASK
from pit.core.rows import AnyOf, values_rows
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.protection.checks import COUP_COLUMNS, WAGER_COLUMNS, ProtectionRun
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.selectors import Standing
from pit.tables.models import Table, TableEvent, TableEventKind, TableLimit, TableLimitVersion, TableStatus

logger = logging.getLogger(__name__)

COUP_CHECK = "coup_verification"
# Backwards-compatible name: the first version recorded the draw findings under it.
DRAW_CHECK = COUP_CHECK
SHOES_PER_CHUNK = 50


@dataclass(frozen=True, slots=True)
class Finding:
    fingerprint: str
    violation: game.Violation
    coup_id: int
    wager_id: int | None = None
    seat: int | None = None


@dataclass
class CheckTotals:
    """What a check run saw and changed."""

    shoes: int = 0
    coups: int = 0
    holding: int = 0
    created: int = 0
    restored: int = 0
    cleared: int = 0
    codes: Counter = field(default_factory=Counter)

    def add(self, other: CheckTotals) -> None:
        self.shoes += other.shoes
        self.coups += other.coups
        self.holding += other.holding
        self.created += other.created
        self.restored += other.restored
        self.cleared += other.cleared
        self.codes.update(other.codes)


# ------------------------------------------------------------------------------ entry points


def coups_check(*, coup_ids: Iterable[int]) -> int:
    """Check recorded coups and record each finding once; clear earlier findings that no longer hold.
    Returns the number of findings that hold."""
    coup_ids = sorted(set(coup_ids))
    if not coup_ids:
        return 0
    shoe_ids = sorted(set(Coup.objects.filter(pk__in=coup_ids).values_list("shoe_id", flat=True)))
    # Game protection looks across coups, shoes and days (pit/protection/checks.py): it judges the
    # same chunks from the same reads, then the tables' days.
    protection = ProtectionRun()
    totals = _shoes_check(shoe_ids, selected=Q(pk__in=coup_ids), protection=protection)
    return totals.holding + protection.finish(weekly=False)


def coups_check_owed(*, coup_ids: Iterable[int], task_id: str | None = None) -> int:
    """The check a posted coup owes (the urgent task `compliance.coups_verify`), coalesced per shoe: in
    one transaction, the task's own outbox row is re-read (another task may have done its coups
    already: then nothing is left), the checks still owed for other coups of the same shoes are taken
    over, and all their coups are checked at once. A taken-over row is emptied in the same
    transaction, so a failed check gives every coup back to its own task; a coup posted meanwhile
    owes a row this task did not see, and its own task checks it. Returns the findings that hold."""
    with transaction.atomic():
        own = outbox_owed_row(task_id=task_id) if task_id else None
        if own is not None:
            coup_ids = own.args[0] if own.args and not own.kwargs else coup_ids
        coup_ids = set(coup_ids)
        if not coup_ids:
            return 0
        shoe_ids = set(Coup.objects.filter(pk__in=coup_ids).values_list("shoe_id", flat=True))
        pending = [
            row
            for row in outbox_pending(VERIFY_TASK, exclude_task_id=task_id)
            if len(row.args) == 1 and isinstance(row.args[0], list) and row.args[0] and not row.kwargs
        ]
        shoe_of = dict(
            Coup.objects.filter(pk__in={pk for row in pending for pk in row.args[0]}).values_list("pk", "shoe_id")
        )
        taken = [row for row in pending if all(shoe_of.get(pk) in shoe_ids for pk in row.args[0])]
        outbox_take_over(taken, args=[[]])
        return coups_check(coup_ids=coup_ids.union(*(row.args[0] for row in taken)))


def coups_sweep(*, first_day: dt.date, last_day: dt.date, progress: Callable[[int], None] | None = None) -> CheckTotals:
    """Re-verify every coup of the gaming days `first_day` to `last_day` (inclusive), shoe by shoe.
    `progress` is called with the number of coups checked after each chunk."""
    if last_day < first_day:
        raise ValueError(f"the sweep ends ({last_day}) before it starts ({first_day})")
    in_range = Q(gaming_day__gte=first_day, gaming_day__lte=last_day)
    shoe_ids = list(Coup.objects.filter(in_range).order_by("shoe_id").values_list("shoe_id", flat=True).distinct())
    processes = sweep_processes()
    if processes > 1:
        return _shoes_check_fanned_out(
            shoe_ids, selected=in_range, days=(first_day, last_day), progress=progress, processes=processes
        )
    protection = ProtectionRun(sweep=True)
    totals = _shoes_check(shoe_ids, selected=in_range, progress=progress, protection=protection)
    totals.holding += protection.finish(weekly=True)
    return totals


def sweep_processes() -> int:
    """How many processes a sweep runs in: PIT_SWEEP_PROCESSES on PostgreSQL, outside a transaction
    (other processes could not see what it has not committed); one on SQLite."""
    wanted = settings.PIT_SWEEP_PROCESSES
    if wanted <= 1 or connection.vendor != "postgresql" or connection.in_atomic_block or not hasattr(os, "fork"):
        return 1
    return wanted


def _shoes_check_fanned_out(
    shoe_ids: list[int],
    *,
    selected: Q,
    days: tuple[dt.date, dt.date],
    progress: Callable[[int], None] | None,
    processes: int,
) -> CheckTotals:
    """The sweep in `processes` processes: this one and `processes - 1` forked children (each its own
    connection) take chunks one at a time from a shared counter and check each in its own
    transaction, written exactly as in one process: the rule checks and game protection. Each
    chunk's findings depend on that chunk alone, except the shoe sequences (their index is built
    shoe after shoe): those are found in any order for a chunk already indexed as its cards are, and
    recorded here in shoe id order once every chunk is done, where any other chunk, and those after
    it, are indexed in order (`ProtectionRun.sequences_in_order`). When shoes of the sweep were never
    indexed (rows not checked as they were posted), this process indexes every chunk in order
    first, beside the children's checks, instead. The children hand their totals and protection
    sums back through a pipe; the tables' days are tested here once all have ended. A child's
    failure is raised here once every child ended."""
    # Smaller chunks than one process reads, down to 10 shoes, so that the processes end together.
    size = min(SHOES_PER_CHUNK, max(10, -(-len(shoe_ids) // (4 * processes))))
    chunks = [shoe_ids[start : start + size] for start in range(0, len(shoe_ids), size)]
    taken = multiprocessing.get_context("fork").Value("i", 0)

    def work(protection: ProtectionRun) -> list[CheckTotals]:
        context, done = _Context(), []
        while True:
            with taken.get_lock():
                index = taken.value
                taken.value += 1
            if index >= len(chunks):
                return done
            with transaction.atomic():
                done.append(
                    _chunk_check(
                        chunks[index], selected=selected, context=context, protection=protection, sequences=sequences
                    )
                )

    protection = ProtectionRun(sweep=True)
    protection.expect_days(*days)  # read once here, inherited by the children
    never_indexed = protection.never_indexed(shoe_ids)
    sequences = ProtectionRun.APART if never_indexed else ProtectionRun.IF_INDEXED
    connections.close_all()  # a child must not share this process's connection
    children = []
    for _ in range(min(processes - 1, len(chunks))):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: check chunks, answer through the pipe, and leave
            os.close(read_end)
            status = 0
            try:
                answer = ("done", work(protection), protection.state())
            except BaseException:  # noqa: BLE001 (any failure is handed to the parent)
                answer, status = ("failed", traceback.format_exc(), None), 1
            try:
                with os.fdopen(write_end, "wb") as pipe:
                    pickle.dump(answer, pipe)
                connections.close_all()
            finally:
                os._exit(status)
        os.close(write_end)
        children.append((pid, read_end))
    totals = CheckTotals()
    try:
        if never_indexed:
            protection.sequences_in_order(chunks, from_start=True)
        for done in work(protection):
            totals.add(done)
            if progress is not None:
                progress(done.coups)
    finally:
        answers = []
        for pid, read_end in children:
            with os.fdopen(read_end, "rb") as pipe:
                try:
                    answers.append(pickle.load(pipe))  # noqa: S301 (our own child's answer)
                except EOFError:
                    answers.append(("failed", f"sweep process {pid} ended without an answer", None))
            os.waitpid(pid, 0)
    for kind, answer, state in answers:
        if kind == "failed":
            raise RuntimeError(f"a sweep process failed:\n{answer}")
        for done in answer:
            totals.add(done)
            if progress is not None:
                progress(done.coups)
        protection.merge(state)
    if not never_indexed:
        protection.sequences_in_order(chunks)
    totals.holding += protection.finish(weekly=True)
    return totals


def coups_in_range_count(*, first_day: dt.date, last_day: dt.date) -> int:
    return Coup.objects.filter(gaming_day__gte=first_day, gaming_day__lte=last_day).count()


# ------------------------------------------------------------------------------ the bulk path

_CACHE_LIMIT = 200_000


class _Context:
    """What does not change between chunks: tables' limits and paytables, read once per run; and the
    engine's answers for inputs seen before. The engine's functions are pure and a pit repeats the
    same few stakes, outcomes and seats endlessly, so a settlement or a limit check is computed once
    per distinct input, not once per wager."""

    def __init__(self) -> None:
        # Per table, its limit sets in force from a moment on, oldest first (see limits_at).
        self.limits: dict[int, list[tuple[dt.datetime | None, game.TableLimits]]] = {}
        self.dealt_at: dict[int, dt.datetime] = {}  # coup id -> when it was dealt
        self.paytables: dict[int, game.Paytable] = {}
        self.table_codes: dict[int, str] = {}
        self.table_status: dict[int, str] = {}
        self.table_events: dict[int, tuple[list, list]] = {}
        self._memo: dict[tuple, object] = {}
        self.clean_wagers: set[tuple] = set()

    def card_seen(self, decks: int, code: str, count: int, coup_id: int) -> list[game.Violation]:
        """The engine's capacity findings for one card seen `count` times in a shoe of `decks` decks,
        remembered by those (a shoe over capacity asks for every card of every coup)."""
        key = ("seen", decks, code, count)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = _cards_seen(decks, {code: count}, coup_id)
        return found

    def relevant_facts(self, paytable_id: int, facts: frozenset[str]) -> frozenset[str]:
        key = ("facts", paytable_id, facts)
        relevant = self._memo.get(key)
        if relevant is None:
            relevant = self._memo[key] = facts & self.paytables[paytable_id].facts_used()
        return relevant

    def money(self, minor: int, currency: str):
        key = ("money", minor, currency)
        amount = self._memo.get(key)
        if amount is None:
            amount = self._memo[key] = from_minor(minor, currency)
        return amount

    def limits_at(self, table_id: int, moment: dt.datetime | None) -> tuple[int, game.TableLimits]:
        """The table's limits in force at `moment` (a coup's dealt time): the set with the latest
        start not after it; a coup dealt before the first set is judged by the first. Returns the
        set's index (part of the memo key) and the limits."""
        sets = self.limits[table_id]
        index = 0
        if moment is not None:
            starts = [start for start, _ in sets]
            index = max(bisect.bisect_right(starts, moment, lo=1) - 1, 0) if len(sets) > 1 else 0
        return index, sets[index][1]

    def coup_verdict(self, player_codes, banker_codes, reported: str | None) -> tuple[list, game.Evaluation | None]:
        """The engine's draw and winner findings for a dealt coup, and its evaluation (None when its
        hands cannot be evaluated). Both follow from the engine's signature of the hands
        (`game.coup_signature`: totals, pairs, later cards) and the reported winner: the evaluation is
        remembered by those, and so is a clean verdict; a coup with findings is always judged again,
        for its wording. Raises ValueError (InvalidCard) for codes that name no card."""
        cards = game.CARDS  # stored codes are normalised: a lookup each, no parsing
        try:
            player = tuple([cards[code] for code in player_codes])
            banker = tuple([cards[code] for code in banker_codes])
        except (KeyError, TypeError):
            dealt = game.Coup.from_codes(player=player_codes, banker=banker_codes)
            player, banker = dealt.player, dealt.banker
        key = ("coup", game.coup_signature(player, banker), reported)
        known = self._memo.get(key)
        if known is not None:
            clean, evaluation = known
            return ([] if clean else game.verify_coup(game.Coup(player, banker), reported)), evaluation
        dealt = game.Coup(player, banker)
        found = game.verify_coup(dealt, reported)
        try:
            evaluation = game.evaluate(dealt)
        except ValueError:  # hands that cannot be evaluated are reported by verify_coup
            evaluation = None
        self._memo[key] = (not found, evaluation)
        return found, evaluation

    def wager_findings(
        self,
        *,
        table_id: int,
        paytable_id: int,
        seat: int,
        bet: str,
        currency: str,
        amount_minor: int,
        paid_minor: int | None,
        charged_minor: int,
        evaluation: game.Evaluation,
        facts: frozenset[str],
        version: int,
        limits: game.TableLimits,
    ) -> tuple[game.Violation, ...]:
        """What the engine finds wrong with one wager: the table's limits and the paytable's
        increments, then the payout reported against the settlement and the ledger's commission
        against it. Each part is asked of the engine once per distinct input:
        - the limits by table, limit set (`limits_at`: its version), paytable, bet and stake; a
          single wager's verdict does not depend on its seat (only the wording does), so a clean
          verdict is remembered for every seat, a finding per seat;
        - the settlement by paytable, bet, stake, payout, commission and the outcome's facts that the
          paytable's rules name (`relevant_facts`, not the cards: worked out once per coup by the
          caller), whatever the table or seat."""
        if len(self._memo) >= _CACHE_LIMIT:
            self._memo.clear()
        memo = self._memo
        limit_key = ("limits", table_id, version, paytable_id, bet, currency, amount_minor)
        over = memo.get(limit_key)
        if over is None:
            seat_key = (*limit_key, seat)
            over = memo.get(seat_key)
            if over is None:
                paytable = self.paytables[paytable_id]
                line = game.WagerLine(seat=seat, bet=bet, amount=self.money(amount_minor, currency))
                over = tuple(game.check_wager_limits(limits, [line], paytable.bet_increments))
                memo[seat_key if over else limit_key] = over
        settle_key = ("settle", paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, facts)
        wrong = memo.get(settle_key)
        if wrong is None:
            wrong = memo[settle_key] = tuple(
                self._judge_settlement(paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, evaluation)
            )
        return over + wrong if over else wrong

    def _judge_settlement(self, paytable_id, bet, currency, amount_minor, paid_minor, charged_minor, evaluation):
        paytable = self.paytables[paytable_id]
        try:
            settlement = game.settle(
                paytable, bet, self.money(amount_minor, currency), evaluation, unit=settlement_unit(currency)
            )
        except (game.UnknownBet, ValueError):
            return
        if paid_minor is not None:
            finding = game.check_payout(settlement, self.money(paid_minor, currency))
            if finding is not None:
                yield finding
        finding = game.check_commission(settlement, self.money(charged_minor, currency))
        if finding is not None:
            yield finding

    def load_tables(self, table_ids: set[int]) -> None:
        """Each table's limits, code and status, and its opens and closes."""
        missing = table_ids - set(self.limits)
        if not missing:
            return
        currencies = {}
        for pk, currency, code, status in Table.objects.filter(pk__in=missing).values_list(
            "pk", "currency", "code", "status"
        ):
            currencies[pk], self.table_codes[pk], self.table_status[pk] = currency, code, status
        self._load_table_history(missing)
        # The versions of each table's limits, oldest first; a table with none (set before versions
        # were kept, or never) is judged by its current limits.
        sets: dict[int, dict[dt.datetime | None, dict[str, game.BetLimit]]] = {table_id: {} for table_id in missing}
        versions = TableLimitVersion.objects.filter(table_id__in=missing).order_by("table_id", "effective_from", "bet")
        for table_id, start, bet, low, high in versions.values_list(
            "table_id", "effective_from", "bet", "minimum_minor", "maximum_minor"
        ):
            currency = currencies[table_id]
            sets[table_id].setdefault(start, {})[bet] = game.BetLimit(
                minimum=from_minor(low, currency), maximum=from_minor(high, currency)
            )
        unversioned = {table_id for table_id in missing if not sets[table_id]}
        current: dict[int, dict[str, game.BetLimit]] = {table_id: {} for table_id in unversioned}
        for table_id, bet, low, high in (
            TableLimit.objects.filter(table_id__in=unversioned).values_list(
                "table_id", "bet", "minimum_minor", "maximum_minor"
            )
            if unversioned
            else ()
        ):
            currency = currencies[table_id]
            current[table_id][bet] = game.BetLimit(
                minimum=from_minor(low, currency), maximum=from_minor(high, currency)
            )
        for table_id in missing:
            by_start = sets[table_id]
            self.limits[table_id] = [(start, game.TableLimits(bets)) for start, bets in by_start.items()] or [
                (None, game.TableLimits(current.get(table_id, {})))
            ]

    def _load_table_history(self, missing: set[int]) -> None:
        """Each table's opens and closes in the order they were recorded (its code and status now are
        read with its currency, by load_tables)."""
        for table_id in missing:
            self.table_events[table_id] = ([], [])
        for table_id, recorded_at, kind in (
            TableEvent.objects.filter(table_id__in=missing)
            .order_by("recorded_at", "pk")
            .values_list("table_id", "recorded_at", "kind")
        ):
            times, kinds = self.table_events[table_id]
            times.append(recorded_at)
            kinds.append(kind)

    def table_closed_at(self, table_id: int, moment) -> bool:
        """Whether the table was closed when `moment` was recorded: the last open or close recorded
        before it; before its first event, the opposite of that event; with no event, its status now."""
        times, kinds = self.table_events[table_id]
        if not times:
            return self.table_status[table_id] == TableStatus.CLOSED
        index = bisect.bisect_right(times, moment)
        if index:
            return kinds[index - 1] == TableEventKind.CLOSED
        return kinds[0] == TableEventKind.OPENED

    def load_paytables(self, paytable_ids: set[int]) -> None:
        missing = paytable_ids - set(self.paytables)
        for pk, rules in PaytableConfiguration.objects.filter(pk__in=missing).values_list("pk", "rules"):
            self.paytables[pk] = engine_paytable(rules)


def _shoes_check(
    shoe_ids: list[int],
    *,
    selected: Q,
    progress: Callable[[int], None] | None = None,
    protection: ProtectionRun,
) -> CheckTotals:
    """The rule checks of the shoes (in id order), a chunk at a time, each chunk's game protection
    in the same transaction from the same reads."""
    context = _Context()
    totals = CheckTotals()
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        chunk = shoe_ids[start : start + SHOES_PER_CHUNK]
        with transaction.atomic():
            done = _chunk_check(chunk, selected=selected, context=context, protection=protection)
        totals.add(done)
        if progress is not None:
            progress(done.coups)
    return totals


# A chunk allocates some 100,000 rows and objects and frees them all at its end: with the cyclic
# collector on, its allocation thresholds started some 400 collections a sweep (20,000 coups), a
# fifth of the sweep's CPU. Paused per chunk, so what a chunk leaves in cycles is collected after it.
@collection_paused()
def _chunk_check(
    shoe_ids: list[int],
    *,
    selected: Q,
    context: _Context,
    protection: ProtectionRun,
    sequences: str = ProtectionRun.INLINE,
) -> CheckTotals:
    shoes = {
        row["id"]: row
        for row in Shoe.objects.filter(AnyOf(F("pk"), shoe_ids)).values(
            "id", "table_id", "sequence", "decks", "burn_cards"
        )
    }
    coups_by_shoe: dict[int, list[tuple]] = defaultdict(list)
    context.dealt_at = dealt_at = {}  # this chunk's coups only
    selected_ids: set[int] = set()
    paytable_ids: set[int] = set()
    # Every coup of the shoe is read (integrity counts from the first card); those selected are judged.
    shoe_of: dict[int, int] = {}  # coup -> shoe: the wagers' read joins nothing
    for row in values_rows(
        Coup.objects.filter(AnyOf(F("shoe_id"), shoe_ids))
        .annotate(
            is_selected=ExpressionWrapper(selected, output_field=BooleanField()),
            # Dealt after its shoe was closed, or recorded after the close was (compared in the
            # database: no timestamps to decode for a year of coups). Recorded time is compared with
            # the close's recorded time, not its dealt time: a floor replaying hours after an outage
            # records its coups, then the close, all after the shuffle it reports.
            after_close=ExpressionWrapper(
                Q(dealt_at__gt=F("shoe__closed_at")) | Q(recorded_at__gt=F("shoe__close_recorded_at")),
                output_field=BooleanField(),
            ),
        )
        .order_by("shoe_id", "number", "pk")
        # Protection's columns first (the rows are handed over as read), then the rule checks' own.
        .values_list(*COUP_COLUMNS, "shoe_id", "number", "after_close", "reported_winner", "recorded_at", "is_selected")
    ):
        coups_by_shoe[row[6]].append(row)
        dealt_at[row[0]] = row[4]
        shoe_of[row[0]] = row[6]
        if row[11]:
            selected_ids.add(row[0])
            paytable_ids.add(row[5])
    # Every wager of the chunk's coups, read once for both: protection adds up all of them (as
    # recorded), the rule checks judge those of the selected coups that stand after corrections and
    # voids (the replaced versions' findings clear).
    wagers_by_coup: dict[int, list[tuple]] = defaultdict(list)
    wagers_by_shoe: dict[int, list[tuple]] = defaultdict(list)
    # By the chunk's coup ids (an index probe per coup) rather than by joining the coups again (a
    # scan of the month's wagers per chunk); on PostgreSQL also by their gaming days, the partition
    # key (set on every row there; older SQLite rows may have none), so only their months are read.
    wagers = Wager.objects.filter(AnyOf(F("coup_id"), shoe_of))
    if shoe_of and connection.vendor == "postgresql":
        days = [row[3] for coups in coups_by_shoe.values() for row in coups]
        wagers = wagers.filter(gaming_day__range=(min(days), max(days)))
    standing = Standing(shoe_of)  # the chunk's corrections, read once
    # Each row as read goes to both (protection's WAGER_COLUMNS, then the version it belongs to).
    for row in values_rows(wagers.order_by("coup_id", "seat", "bet").values_list(*WAGER_COLUMNS, "correction_id")):
        coup_id = row[1]
        wagers_by_shoe[shoe_of[coup_id]].append(row)
        if coup_id in selected_ids and standing(coup_id, row[10]):
            wagers_by_coup[coup_id].append(row)
    ledger = _ledger_commission(shoe_ids)
    earlier = {
        fingerprint: (pk, coup_id, cleared_at, message)
        for pk, fingerprint, coup_id, cleared_at, message in values_rows(
            RuleViolation.objects.filter(AnyOf(F("shoe_id"), shoe_ids), found_by=COUP_CHECK).values_list(
                "pk", "fingerprint", "coup_id", "cleared_at", "message"
            )
        )
    }
    context.load_tables({shoe["table_id"] for shoe in shoes.values()})
    context.load_paytables(paytable_ids)

    found: dict[str, tuple[Finding, dict]] = {}
    for shoe_id in shoe_ids:
        shoe = shoes[shoe_id]
        judged = _shoe_findings(shoe, coups_by_shoe[shoe_id], selected_ids, wagers_by_coup, ledger, context)
        for coup, findings in judged:
            where = {"table_id": shoe["table_id"], "shoe_id": shoe_id, "gaming_day": coup[3]}
            for finding in findings:
                found.setdefault(finding.fingerprint, (finding, where))
    done = _write(found, earlier, selected_ids, shoes=len(shoe_ids))
    protection.shoes(shoe_ids, coups_by_shoe, wagers_by_shoe, sequences=sequences)
    return done


def _ledger_commission(shoe_ids: list[int]) -> dict[int, int]:
    """The ledger's commission per wager of the shoes: its accrual, net of any reversal of that
    accrual. One read of the shoes' accruals and reversals (no ordering, no join); an accrual a
    reversal names that is not among them is read by id."""
    ledger: dict[int, int] = defaultdict(int)
    wager_of: dict[int, int] = {}  # accrual -> its wager
    reversals: list[tuple[int, int]] = []  # (entry reversed, amount)
    for pk, kind, wager_id, reverses_id, amount in values_rows(
        CommissionEntry.objects.filter(AnyOf(F("shoe_id"), shoe_ids), kind__in=(EntryKind.ACCRUED, EntryKind.REVERSAL))
        .order_by()
        .values_list("pk", "kind", "wager_id", "reverses_id", "amount_minor")
    ):
        if kind == EntryKind.ACCRUED:
            ledger[wager_id] += amount
            wager_of[pk] = wager_id
        else:
            reversals.append((reverses_id, amount))
    elsewhere = {reverses_id for reverses_id, _ in reversals} - wager_of.keys()
    if elsewhere:
        accruals = CommissionEntry.objects.filter(pk__in=elsewhere, kind=EntryKind.ACCRUED).order_by()
        wager_of.update(accruals.values_list("pk", "wager_id"))
    for reverses_id, amount in reversals:
        if reverses_id in wager_of:  # a reversal of an accrual (not of a collection)
            ledger[wager_of[reverses_id]] += amount
    return ledger


def _shoe_findings(shoe, coups, selected_ids, wagers_by_coup, ledger, context):
    """(coup row, findings) for each selected coup of one shoe, judged in number order."""
    decks = shoe["decks"]
    seen = Counter(shoe["burn_cards"] or ())
    burn_codes = set(seen)
    # Cards only accumulate: when the whole shoe breaks no capacity rule, no coup of it does, and
    # the per-coup counting below is skipped (one engine call per shoe instead of one per coup).
    whole_shoe = Counter(seen)
    for coup in coups:
        whole_shoe.update(coup[1])
        whole_shoe.update(coup[2])
    over_capacity = overdealt = False
    try:
        for finding in game.check_cards_seen(decks, whole_shoe):
            over_capacity |= finding.code == "card_over_capacity"
            overdealt |= finding.code == "shoe_overdealt"
    except (ValueError, game.InvalidCard):
        logger.warning("shoe %s: cards that name no card", shoe["id"])
    last_number = None
    for index, coup in enumerate(coups):
        pk, player_codes, banker_codes, _, _, paytable_id, _, number, after_close, reported, recorded_at, _ = coup
        codes = [*player_codes, *banker_codes]
        if over_capacity or overdealt:
            seen.update(codes)
        previous_number, last_number = last_number, number
        if pk not in selected_ids:
            continue
        findings: list[Finding] = []
        # Shoe integrity, counting from the burn up to this coup: a card over capacity is charged to
        # the coup that dealt it (the burn's own excess, if any, to the first coup); an overdealt
        # shoe to every coup past its end.
        if over_capacity:
            charged = set(codes) | (burn_codes if index == 0 else set())
            for code in sorted(charged):
                for finding in context.card_seen(decks, code, seen[code], pk):
                    findings.append(Finding(f"card_over_capacity:coup{pk}:{code}", finding, pk))
        if overdealt:
            for finding in _cards_seen(decks, seen, pk):
                if finding.code == "shoe_overdealt":
                    findings.append(Finding(f"shoe_overdealt:coup{pk}", finding, pk))
        gap = game.check_coup_number(number, previous_number)
        if gap is not None:
            findings.append(Finding(f"coup_number_gap:coup{pk}", gap, pk))
        if after_close:
            findings.append(
                Finding(f"coup_after_shoe_closed:coup{pk}", game.coup_after_shoe_closed(number, shoe["sequence"]), pk)
            )
        if context.table_closed_at(shoe["table_id"], recorded_at):
            findings.append(
                Finding(
                    f"play_at_closed_table:coup{pk}",
                    game.play_at_closed_table(number, context.table_codes[shoe["table_id"]]),
                    pk,
                )
            )
        findings.extend(
            _coup_findings(
                pk, player_codes, banker_codes, reported, shoe, paytable_id, wagers_by_coup.get(pk, ()), ledger, context
            )
        )
        yield coup, findings


def _coup_findings(pk, player_codes, banker_codes, reported, shoe, paytable_id, wagers, ledger, context):
    try:
        # The draw rules and the reported winner.
        verdict, evaluation = context.coup_verdict(player_codes, banker_codes, reported or None)
    except (ValueError, game.InvalidCard):
        logger.warning("coup %s: cards that name no card: %s / %s", pk, player_codes, banker_codes)
        return []
    findings = []
    for finding in verdict:
        key = finding.code
        if finding.code == "hand_size":  # one per hand: the message names it first
            key = f"hand_size:{finding.message.split(' ', 1)[0].lower()}"
        findings.append(Finding(f"{key}:coup{pk}", finding, pk))
    if not wagers or evaluation is None:
        return findings
    table_id = shoe["table_id"]
    facts = context.relevant_facts(paytable_id, evaluation.facts)
    version, limits = context.limits_at(table_id, context.dealt_at.get(pk))
    # A wager found clean is clean whatever its seat (limits, increments and settlement do not look
    # at the seat): remembered by everything else it was judged on, one lookup per clean wager.
    clean = context.clean_wagers
    sides: dict[int, dict[str, tuple[int, str]]] = {}
    for wager_id, _, seat, bet, currency, amount_minor, paid_minor, _, _, _, _ in wagers:
        if bet == "player" or bet == "banker":
            sides.setdefault(seat, {})[bet] = (amount_minor, currency)
        charged = ledger.get(wager_id, 0)
        key = (table_id, version, paytable_id, facts, bet, currency, amount_minor, paid_minor, charged)
        if key in clean:
            continue
        wrong = context.wager_findings(
            table_id=table_id,
            paytable_id=paytable_id,
            seat=seat,
            bet=bet,
            currency=currency,
            amount_minor=amount_minor,
            paid_minor=paid_minor,
            charged_minor=charged,
            evaluation=evaluation,
            facts=facts,
            version=version,
            limits=limits,
        )
        if not wrong:
            if len(clean) >= _CACHE_LIMIT:
                clean.clear()
            clean.add(key)
            continue
        for finding in wrong:
            findings.append(Finding(f"{finding.code}:wager{wager_id}", finding, pk, wager_id, seat))
    # A seat on both Player and Banker: judged by the engine with no limits, so only that rule can
    # speak (with no limits and no increments, a seat holding other bets breaks no rule: not asked).
    for seat, bets in sides.items():
        if len(bets) > 1:
            lines = [
                game.WagerLine(seat=seat, bet=bet, amount=context.money(amount_minor, currency))
                for bet, (amount_minor, currency) in bets.items()
            ]
            for finding in game.check_wager_limits(game.TableLimits(), lines):
                findings.append(Finding(f"{finding.code}:coup{pk}:seat{seat}", finding, pk, None, seat))
    return findings


def _cards_seen(decks: int, counts, coup_id: int) -> list[game.Violation]:
    try:
        return game.check_cards_seen(decks, counts)
    except (ValueError, game.InvalidCard):
        logger.warning("coup %s: cards that name no card", coup_id)
        return []


def _write(found: dict[str, tuple[Finding, dict]], earlier: dict, selected_ids: set[int], *, shoes: int):
    """Write the difference between what holds now and what was recorded before."""
    totals = CheckTotals(shoes=shoes, coups=len(selected_ids), holding=len(found))
    new, restored, reworded = [], [], []
    for fingerprint, (finding, where) in found.items():
        totals.codes[finding.violation.code] += 1
        recorded = earlier.get(fingerprint)
        if recorded is None:
            violation = finding.violation
            new.append(
                RuleViolation(
                    code=violation.code,
                    message=violation.message,
                    severity=violation.severity,
                    fingerprint=fingerprint,
                    coup_id=finding.coup_id,
                    wager_id=finding.wager_id,
                    seat=finding.seat,
                    found_by=COUP_CHECK,
                    **where,
                )
            )
            continue
        pk, _, cleared_at, message = recorded
        if cleared_at is not None:
            restored.append(pk)
        if message != finding.violation.message:
            reworded.append(RuleViolation(pk=pk, message=finding.violation.message))
    stale = [
        pk
        for fingerprint, (pk, coup_id, cleared_at, _) in earlier.items()
        if coup_id in selected_ids and cleared_at is None and fingerprint not in found
    ]
    if new:
        # A concurrent check of the same coup may have recorded one meanwhile: the unique fingerprint holds.
        RuleViolation.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
        totals.created = len(new)
    if restored:
        totals.restored = RuleViolation.objects.filter(pk__in=restored).update(cleared_at=None)
    if reworded:
        RuleViolation.objects.bulk_update(reworded, ["message"], batch_size=500)
    if stale:
        totals.cleared = violations_clear_missing(
            scope=RuleViolation.objects.filter(pk__in=stale), found_by=COUP_CHECK, fingerprints_found=set()
        )
    return totals
