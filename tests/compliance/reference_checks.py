"""The sweep's rule checks as they were before they were made bulk (kept only as the reference the
equivalence test compares the bulk path with: tests/compliance/test_sweep_equivalence.py).

The checks run on recorded coups, each a thin use of the game engine's rules.

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
Wagers are judged as they stand after corrections and voids (`pit.shoes.selectors.wagers_standing`).
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violations_clear_missing
from pit.core.money import from_minor, settlement_unit
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.selectors import wagers_standing
from pit.tables.models import Table, TableEvent, TableEventKind, TableLimit, TableLimitVersion, TableStatus
from tests.compliance.reference_protection import protection_check_shoes

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
    totals = _shoes_check(shoe_ids, selected=Q(pk__in=coup_ids))
    # Game protection looks across coups, shoes and days (pit/protection/checks.py).
    return totals.holding + protection_check_shoes(shoe_ids=shoe_ids)


def coups_sweep(*, first_day: dt.date, last_day: dt.date, progress: Callable[[int], None] | None = None) -> CheckTotals:
    """Re-verify every coup of the gaming days `first_day` to `last_day` (inclusive), shoe by shoe.
    `progress` is called with the number of coups checked after each chunk."""
    if last_day < first_day:
        raise ValueError(f"the sweep ends ({last_day}) before it starts ({first_day})")
    in_range = Q(gaming_day__gte=first_day, gaming_day__lte=last_day)
    shoe_ids = list(Coup.objects.filter(in_range).order_by("shoe_id").values_list("shoe_id", flat=True).distinct())
    totals = _shoes_check(shoe_ids, selected=in_range, progress=progress)
    totals.holding += protection_check_shoes(shoe_ids=shoe_ids, weekly=True)
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
        dealt_at: dt.datetime | None = None,
    ) -> tuple[game.Violation, ...]:
        """What the engine finds wrong with one wager: the table's limits and the paytable's
        increments, the payout reported against the settlement, the ledger's commission against it.
        A settlement depends only on the outcome's facts that the paytable's rules name, so those
        (not the cards) are in the key."""
        facts = self.relevant_facts(paytable_id, evaluation.facts)
        version, limits = self.limits_at(table_id, dealt_at)
        key = (table_id, version, paytable_id, seat, bet, currency, amount_minor, paid_minor, charged_minor, facts)
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) >= _CACHE_LIMIT:
                self._memo.clear()
            found = self._memo[key] = tuple(
                self._judge_wager(
                    limits, paytable_id, seat, bet, currency, amount_minor, paid_minor, charged_minor, evaluation
                )
            )
        return found

    def _judge_wager(
        self, limits, paytable_id, seat, bet, currency, amount_minor, paid_minor, charged_minor, evaluation
    ):
        paytable = self.paytables[paytable_id]
        amount = self.money(amount_minor, currency)
        line = game.WagerLine(seat=seat, bet=bet, amount=amount)
        yield from game.check_wager_limits(limits, [line], paytable.bet_increments)
        try:
            settlement = game.settle(paytable, bet, amount, evaluation, unit=settlement_unit(currency))
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


def _shoes_check(shoe_ids: list[int], *, selected: Q, progress: Callable[[int], None] | None = None) -> CheckTotals:
    context = _Context()
    totals = CheckTotals()
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        chunk = shoe_ids[start : start + SHOES_PER_CHUNK]
        with transaction.atomic():
            done = _chunk_check(chunk, selected=selected, context=context)
        totals.add(done)
        if progress is not None:
            progress(done.coups)
    return totals


def _prefixed(q: Q, prefix: str) -> Q:
    """The same condition on coups, seen from a model that points at them through `prefix`."""

    def walk(node):
        if isinstance(node, Q):
            children = [walk(child) for child in node.children]
            return Q(*children, _connector=node.connector, _negated=node.negated)
        name, value = node
        return (f"{prefix}__{name}", value)

    return walk(q)


def _chunk_check(shoe_ids: list[int], *, selected: Q, context: _Context) -> CheckTotals:
    shoes = {
        row["id"]: row
        for row in Shoe.objects.filter(pk__in=shoe_ids).values("id", "table_id", "sequence", "decks", "burn_cards")
    }
    coups_by_shoe: dict[int, list[tuple]] = defaultdict(list)
    context.dealt_at = {}  # this chunk's coups only
    selected_ids: set[int] = set()
    paytable_ids: set[int] = set()
    # Every coup of the shoe is read (integrity counts from the first card); those selected are judged.
    for row in (
        Coup.objects.filter(shoe_id__in=shoe_ids)
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
        .values_list(
            "pk",
            "shoe_id",
            "number",
            "after_close",
            "gaming_day",
            "player_cards",
            "banker_cards",
            "reported_winner",
            "paytable_id",
            "recorded_at",
            "is_selected",
            "dealt_at",
        )
        .iterator(chunk_size=5000)
    ):
        coups_by_shoe[row[1]].append(row[:10])
        context.dealt_at[row[0]] = row[11]
        if row[10]:
            selected_ids.add(row[0])
            paytable_ids.add(row[8])
    wagers_by_coup: dict[int, list[tuple]] = defaultdict(list)
    for row in (
        # Only what stands after corrections and voids is judged (the replaced versions' findings clear).
        wagers_standing(Wager.objects.filter(_prefixed(selected, "coup"), coup__shoe_id__in=shoe_ids))
        .order_by("coup_id", "seat", "bet")
        .values_list("pk", "coup_id", "seat", "bet", "currency", "amount_minor", "paid_minor")
        .iterator(chunk_size=5000)
    ):
        wagers_by_coup[row[1]].append(row)
    # The ledger's commission per wager: its accrual, net of any reversal of that accrual.
    ledger: dict[int, int] = defaultdict(int)
    for kind, wager_id, reversed_wager_id, amount in (
        CommissionEntry.objects.filter(shoe_id__in=shoe_ids)
        .filter(Q(kind=EntryKind.ACCRUED) | Q(kind=EntryKind.REVERSAL, reverses__kind=EntryKind.ACCRUED))
        .values_list("kind", "wager_id", "reverses__wager_id", "amount_minor")
        .iterator(chunk_size=5000)
    ):
        ledger[wager_id if kind == EntryKind.ACCRUED else reversed_wager_id] += amount
    earlier = {
        fingerprint: (pk, coup_id, cleared_at, message)
        for pk, fingerprint, coup_id, cleared_at, message in RuleViolation.objects.filter(
            shoe_id__in=shoe_ids, found_by=COUP_CHECK
        ).values_list("pk", "fingerprint", "coup_id", "cleared_at", "message")
    }
    context.load_tables({shoe["table_id"] for shoe in shoes.values()})
    context.load_paytables(paytable_ids)

    found: dict[str, tuple[Finding, dict]] = {}
    for shoe_id in shoe_ids:
        shoe = shoes[shoe_id]
        judged = _shoe_findings(shoe, coups_by_shoe[shoe_id], selected_ids, wagers_by_coup, ledger, context)
        for coup, findings in judged:
            where = {"table_id": shoe["table_id"], "shoe_id": shoe_id, "gaming_day": coup[4]}
            for finding in findings:
                found.setdefault(finding.fingerprint, (finding, where))
    return _write(found, earlier, selected_ids, shoes=len(shoe_ids))


def _shoe_findings(shoe, coups, selected_ids, wagers_by_coup, ledger, context):
    """(coup row, findings) for each selected coup of one shoe, judged in number order."""
    decks = shoe["decks"]
    seen = Counter(shoe["burn_cards"] or ())
    burn_codes = set(seen)
    # Cards only accumulate: when the whole shoe breaks no capacity rule, no coup of it does, and
    # the per-coup counting below is skipped (one engine call per shoe instead of one per coup).
    whole_shoe = Counter(seen)
    for coup in coups:
        whole_shoe.update(coup[5])
        whole_shoe.update(coup[6])
    over_capacity = overdealt = False
    try:
        for finding in game.check_cards_seen(decks, whole_shoe):
            over_capacity |= finding.code == "card_over_capacity"
            overdealt |= finding.code == "shoe_overdealt"
    except (ValueError, game.InvalidCard):
        logger.warning("shoe %s: cards that name no card", shoe["id"])
    last_number = None
    for index, coup in enumerate(coups):
        pk, _, number, after_close, _, player_codes, banker_codes, reported, paytable_id, recorded_at = coup
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
                for finding in _cards_seen(decks, {code: seen[code]}, pk):
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
        dealt = game.Coup.from_codes(player=player_codes, banker=banker_codes)
    except (ValueError, game.InvalidCard):
        logger.warning("coup %s: cards that name no card: %s / %s", pk, player_codes, banker_codes)
        return []
    findings = []
    # The draw rules and the reported winner.
    for finding in game.verify_coup(dealt, reported or None):
        key = finding.code
        if finding.code == "hand_size":  # one per hand: the message names it first
            key = f"hand_size:{finding.message.split(' ', 1)[0].lower()}"
        findings.append(Finding(f"{key}:coup{pk}", finding, pk))
    if not wagers:
        return findings
    try:
        evaluation = game.evaluate(dealt)
    except ValueError:  # hands that cannot be evaluated were reported by verify_coup already
        return findings
    table_id = shoe["table_id"]
    bets_by_seat: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
    for wager_id, _, seat, bet, currency, amount_minor, paid_minor in wagers:
        bets_by_seat[seat].append((bet, amount_minor, currency))
        for finding in context.wager_findings(
            table_id=table_id,
            paytable_id=paytable_id,
            seat=seat,
            bet=bet,
            currency=currency,
            amount_minor=amount_minor,
            paid_minor=paid_minor,
            charged_minor=ledger.get(wager_id, 0),
            evaluation=evaluation,
            dealt_at=context.dealt_at.get(pk),
        ):
            findings.append(Finding(f"{finding.code}:wager{wager_id}", finding, pk, wager_id, seat))
    # A seat on both Player and Banker: judged with no limits, so only that rule can speak.
    for seat, bets in bets_by_seat.items():
        if len(bets) > 1:
            lines = [
                game.WagerLine(seat=seat, bet=bet, amount=context.money(amount_minor, currency))
                for bet, amount_minor, currency in bets
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
