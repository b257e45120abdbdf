"""Game protection checks, run with the rule checks (the per-coup task and the nightly sweep call
`protection_check_shoes` from `pit.compliance.checks`): each finding is a RuleViolation with an
engine-registered code, recorded once per fingerprint, reviewed by pit bosses like any other.

- `shoe_sequence_repeat`: every shoe's dealt order is indexed as shingles of `SHINGLE_LENGTH`
  consecutive cards (CardShingle); a shingle of a shoe found in another shoe of the pit on its
  gaming days or `PIT_PROTECTION_REPEAT_DAYS` either side is a repeat, charged to the later shoe
  (by id) at the coup that completed its first repeated shingle.
- `new_deck_order_run`: `NEW_DECK_RUN_LENGTH` or more cards in a row in new-deck order within a shoe.
- `side_bet_advantage_play`: each coup's exact side-bet expectations from the cards seen before it
  are stored (SideBetExpectation); per table, gaming day and seat, the seat's side bets placed on
  positive-expectation coups are compared with what betting at random would give (each bet's share
  of positive coups at the table that day): a Poisson-binomial tail below
  PIT_PROTECTION_SIDE_BET_P_VALUE, with at least SIDE_BET_MIN_HITS such bets, is a finding.
- `win_deviation`: the house's win against theoretical (handle x house edge per bet; standard
  deviation sqrt(sum over coups of (sum of stake x the bet's sd per unit)^2), a bound since wagers
  on one coup move together) of the table and of each seat, over the shoe, the gaming day and (in
  the nightly sweep) the 7 gaming days ending on it, beyond PIT_PROTECTION_Z_SHOE / _DAY / _WEEK
  standard deviations either way, once per scope.
- `coup_rate_high`: more than PIT_PROTECTION_MAX_COUPS_PER_HOUR coups dealt at one table within 60
  minutes (by their dealt time), once per table and clock hour (UTC) of the coup that went over.
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from decimal import Decimal, localcontext

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.core.collection import collection_paused
from pit.core.money import exponent, from_minor
from pit.core.rows import AnyOf, values_rows
from pit.game import counting, sequences
from pit.game.sequences import NEW_DECK_RUN_LENGTH, SHINGLE_LENGTH
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.protection.models import CardShingle, IndexedShoe, SideBetExpectation
from pit.shoes.models import Coup, Shoe, Wager, WagerResult
from pit.tables.models import Table

logger = logging.getLogger(__name__)

PROTECTION_CHECK = "game_protection"
SIDE_BET_MIN_HITS = 3
EVIDENCE_SHOWN = 12


SHOES_PER_CHUNK = 50
DAY_LEVEL_WEEK = 7

# A coup and a wager as game protection reads them: the rule checks' sweep reads these first, then
# columns of its own, and hands its rows over as they are.
COUP_COLUMNS = ("pk", "player_cards", "banker_cards", "gaming_day", "dealt_at", "paytable_id")
WAGER_COLUMNS = (
    "pk",
    "coup_id",
    "seat",
    "bet",
    "currency",
    "amount_minor",
    "paid_minor",
    "payout_minor",
    "commission_minor",
    "result",
)


class _Paytables:
    """Each paytable's engine rules and house edges, read once per run (not once per shoe)."""

    def __init__(self) -> None:
        self.rules: dict[int, game.Paytable] = {}
        self.edges: dict[int, dict[str, tuple[Decimal, Decimal]]] = {}
        # (paytable, bet, stake) -> (stake x house edge, stake x standard deviation per unit)
        self.products: dict[tuple[int, str, int], tuple[Decimal, Decimal]] = {}

    def load(self, paytable_ids: set[int]) -> None:
        missing = paytable_ids - set(self.rules)
        for pk, rules, house in PaytableConfiguration.objects.filter(pk__in=missing).values_list(
            "pk", "rules", "house_edges"
        ):
            self.rules[pk] = engine_paytable(rules)
            self.edges[pk] = {
                name: (Decimal(figures["house_edge"]), _sqrt(Decimal(figures["variance"])))
                for name, figures in house.items()
            }


class _SideBetDay:
    """One table's gaming day as advantage play tests it: per side bet, how many coups had an
    expectation for it and how many of those were positive; per seat, its side bets on such coups
    (how many of each bet) and those that landed on a positive one (wager ids: the evidence is read
    for a finding only). Added up from any split of the day's coups (chunks, processes)."""

    __slots__ = ("opportunities", "positives", "bets", "hits")

    def __init__(self) -> None:
        self.opportunities: Counter = Counter()
        self.positives: Counter = Counter()
        self.bets: dict[int, Counter] = {}
        self.hits: dict[int, list[int]] = {}

    def add_coup(self, worth: dict[str, bool]) -> None:
        """A coup's side bets: bet -> whether its expectation was positive."""
        for bet, positive in worth.items():
            self.opportunities[bet] += 1
            if positive:
                self.positives[bet] += 1

    def add_wager(self, seat: int, bet: str, wager_id: int, positive: bool) -> None:
        bets = self.bets.get(seat)
        if bets is None:
            bets = self.bets[seat] = Counter()
        bets[bet] += 1
        if positive:
            self.hits.setdefault(seat, []).append(wager_id)

    def add(self, other: _SideBetDay) -> None:
        self.opportunities.update(other.opportunities)
        self.positives.update(other.positives)
        for seat, bets in other.bets.items():
            self.bets.setdefault(seat, Counter()).update(bets)
        for seat, hits in other.hits.items():
            self.hits.setdefault(seat, []).extend(hits)


class _KeptDays:
    """For the tests over a table's day: each table's gaming day's deviation sums and side bets as
    the run's chunks added them up (per shoe and day, from the wagers they read), and how many of the
    table's coups that day they cover. A day is taken from here only when that is all of them
    (`covered`); the others are read."""

    def __init__(self) -> None:
        self.coups: Counter = Counter()
        self.sums: dict[tuple[int, dt.date], dict[int | None, list]] = {}
        self.side_bets: dict[tuple[int, dt.date], _SideBetDay] = {}

    def keep(
        self,
        table_id: int,
        coups: list[tuple],
        by_day: dict[dt.date, dict[int | None, list]],
        side_bets: dict[dt.date, _SideBetDay],
    ) -> None:
        self.coups.update((table_id, row[3]) for row in coups)
        for day, totals in by_day.items():
            _add_totals(self.sums.setdefault((table_id, day), _totals()), totals)
        for day, side_bet_day in side_bets.items():
            self.side_bet_day(table_id, day).add(side_bet_day)

    def side_bet_day(self, table_id: int, day: dt.date) -> _SideBetDay:
        kept = self.side_bets.get((table_id, day))
        if kept is None:
            kept = self.side_bets[table_id, day] = _SideBetDay()
        return kept

    def covered(self, table_id: int, days: Iterable[dt.date]) -> tuple[set[dt.date], set[dt.date]]:
        """(days kept whole, days the table dealt no coup on) among `days`: one count of the table's
        coups on them."""
        days = sorted(set(days))
        counts = (
            dict(
                Coup.objects.filter(shoe__table_id=table_id, gaming_day__in=days)
                .order_by()
                .values_list("gaming_day")
                .annotate(count=Count("pk"))
                .values_list("gaming_day", "count")
            )
            if self.coups
            else {}
        )
        whole = {day for day in days if counts.get(day) and self.coups.get((table_id, day)) == counts[day]}
        empty = {day for day in days if self.coups and not counts.get(day)}
        return whole, empty


def protection_check_shoes(*, shoe_ids: Iterable[int], weekly: bool = False) -> int:
    """Index and check the shoes, a chunk of SHOES_PER_CHUNK at a time in a few queries each (in shoe
    id order, each shoe seeing the index as the shoes before it left it), then the tables' gaming days
    they touched (and, with `weekly`, as the nightly sweep does, the 7 gaming days ending on each),
    each table's days from one read of its wagers. Returns the number of findings that hold (each
    recorded once)."""
    run = ProtectionRun()
    shoe_ids = sorted(set(shoe_ids))
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        with transaction.atomic():
            run.shoes(shoe_ids[start : start + SHOES_PER_CHUNK])
    return run.finish(weekly=weekly)


class ProtectionRun:
    """One run of the protection checks over chunks of shoes given in shoe id order (`shoes`, each
    chunk in the caller's transaction), then over the tables' gaming days they touched (`finish`).
    The rule checks' sweep hands each chunk's coups and wagers over as it read them (one read of a
    chunk for both); alone, a chunk reads its own.

    A sweep fanned out over processes gives its chunks in any order. The shoe sequences' index is
    built shoe after shoe, so with `sequences=IF_INDEXED` a chunk's sequences are found there only
    when every shoe of it is indexed as its cards are (the index is then as the shoes before it left
    it, and stays so while no chunk is indexed), and recorded later, in shoe id order, by
    `sequences_in_order`, which indexes the chunks that were not, and those after them, in order.
    With `sequences=APART` they are left to `sequences_in_order(..., from_start=True)` over every
    chunk (when shoes were never indexed: no chunk of theirs could be taken as indexed). Each
    process's `state()` is `merge`d into the one that runs `sequences_in_order` and `finish`."""

    INLINE, IF_INDEXED, APART = "inline", "if indexed", "apart"  # the shoe sequences of `shoes`'s chunk

    def __init__(self, *, sweep: bool = False) -> None:
        self.holding = 0
        self.table_days: dict[int, set[dt.date]] = defaultdict(set)
        self.paytables = _Paytables()
        self.kept = _KeptDays()
        # A sweep's chunks look up only the digests two shoes could hold (see _SharedDigests).
        self.shared = _SharedDigests() if sweep else None
        # Chunks given in any order: per chunk, its shoe sequences found (None: left to the ordered pass).
        self.found: dict[tuple[int, ...], dict | None] = {}

    def shoes(
        self,
        shoe_ids: list[int],
        coups_by_shoe: dict[int, list[tuple]] | None = None,
        wagers_by_shoe: dict[int, list[tuple]] | None = None,
        *,
        sequences: str = INLINE,
    ) -> None:
        """Check one chunk of shoes. `coups_by_shoe`: per shoe, every coup of it in number order
        (COUP_COLUMNS first); `wagers_by_shoe`: per shoe, every wager of its coups (WAGER_COLUMNS
        first) in coup order. `sequences`: INLINE for chunks given in shoe id order, otherwise
        IF_INDEXED or APART (see the class)."""
        self.holding += _shoes_check(
            shoe_ids,
            self.table_days,
            self.paytables,
            coups_by_shoe,
            wagers_by_shoe,
            kept=self.kept,
            shared=self.shared,
            sequences=sequences,
            found=self.found,
        )

    def never_indexed(self, shoe_ids: list[int]) -> bool:
        """Whether any of these shoes has never had its sequence indexed."""
        indexed = IndexedShoe.objects.filter(AnyOf(F("shoe_id"), shoe_ids)).count()
        return indexed < len(set(shoe_ids))

    def expect_days(self, first_day: dt.date, last_day: dt.date) -> None:
        """A sweep over these gaming days: the digests two shoes hold around them, read now, once
        (for processes forked after this too)."""
        margin = dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
        self.shared.held(first_day - margin, last_day + margin)

    def sequences_in_order(self, chunks: list[list[int]], *, from_start: bool = False) -> None:
        """The chunks' shoe sequences, in shoe id order, each chunk in a transaction of its own. Those
        found (IF_INDEXED) are recorded up to the first chunk that was not indexed as its cards are;
        from it on (`from_start`: from the first), each chunk is read, indexed and looked up again
        (a shoe indexed anew changes what the shoes after it see)."""
        in_order = from_start
        for chunk in chunks:
            found = self.found.get(tuple(chunk), {})
            in_order = in_order or found is None
            with transaction.atomic(), collection_paused():  # as a chunk's check is (pit.compliance.checks)
                if in_order:
                    shoes = Shoe.objects.select_related("table").in_bulk(chunk)
                    coups_by_shoe = _chunk_coups(chunk, COUP_COLUMNS[:4])  # the cards and the gaming day
                    checked = [shoes[shoe_id] for shoe_id in chunk if coups_by_shoe.get(shoe_id)]
                    if checked:
                        self.holding += _sequence_findings(checked, coups_by_shoe, self.shared)
                elif found:
                    self.holding += _sequences_record(found)

    def state(self) -> tuple:
        """What `merge` needs of this run, picklable."""
        sums = {key: dict(totals) for key, totals in self.kept.sums.items()}
        return self.holding, dict(self.table_days), self.kept.coups, sums, self.kept.side_bets, self.found

    def merge(self, state: tuple) -> None:
        holding, table_days, coups, sums, side_bets, found = state
        self.holding += holding
        for table_id, days in table_days.items():
            self.table_days[table_id] |= days
        self.kept.coups.update(coups)
        for key, totals in sums.items():
            _add_totals(self.kept.sums.setdefault(key, _totals()), totals)
        for (table_id, day), side_bet_day in side_bets.items():
            self.kept.side_bet_day(table_id, day).add(side_bet_day)
        self.found.update(found)

    def finish(self, *, weekly: bool) -> int:
        """The tests over a table's whole gaming day (and week), once per table and day, not once per
        shoe. Returns the findings that hold over the whole run."""
        tables = Table.objects.in_bulk(list(self.table_days))
        for table_id, days in sorted(self.table_days.items()):
            days = sorted(days)
            # With `weekly`, the 7 gaming days ending on each: a week's sums are its days' sums.
            wanted = {day - dt.timedelta(days=back) for day in days for back in range(DAY_LEVEL_WEEK if weekly else 1)}
            with transaction.atomic():
                table = tables[table_id]
                whole, empty = self.kept.covered(table_id, wanted)
                self.holding += _advantage_play(table, days, self.kept, whole)
                self.holding += _table_day_deviations(
                    table,
                    days,
                    self.paytables,
                    {day: self.kept.sums.get((table_id, day), {}) for day in whole},
                    sorted(wanted - whole - empty),
                    weekly=weekly,
                )
        return self.holding


def _chunk_coups(shoe_ids: list[int], columns: tuple[str, ...] = COUP_COLUMNS) -> dict[int, list[tuple]]:
    """Per shoe, its coups (`columns`: COUP_COLUMNS or the first of them, then the shoe) in number order."""
    coups_by_shoe: dict[int, list[tuple]] = defaultdict(list)
    for row in values_rows(
        Coup.objects.filter(AnyOf(F("shoe_id"), shoe_ids))
        .order_by("shoe_id", "number", "pk")
        .values_list(*columns, "shoe_id")
    ):
        coups_by_shoe[row[-1]].append(row)
    return coups_by_shoe


def _shoes_check(
    shoe_ids: list[int],
    table_days: dict[int, set[dt.date]],
    paytables: _Paytables,
    coups_by_shoe: dict[int, list[tuple]] | None = None,
    wagers_by_shoe: dict[int, list[tuple]] | None = None,
    *,
    kept: _KeptDays | None = None,
    shared: _SharedDigests | None = None,
    sequences: str = ProtectionRun.INLINE,
    found: dict[tuple[int, ...], dict | None] | None = None,
) -> int:
    shoes = Shoe.objects.select_related("table").in_bulk(shoe_ids)
    if coups_by_shoe is None:
        coups_by_shoe = _chunk_coups(shoe_ids)
    checked = [shoes[shoe_id] for shoe_id in shoe_ids if coups_by_shoe.get(shoe_id)]
    if not checked:
        return 0
    paytables.load({row[5] for coups in coups_by_shoe.values() for row in coups})
    for shoe in checked:
        table_days[shoe.table_id].update(row[3] for row in coups_by_shoe[shoe.pk])
    worth = _side_bet_expectations(checked, coups_by_shoe, paytables)
    findings = 0
    if sequences == ProtectionRun.INLINE:
        findings = _sequence_findings(checked, coups_by_shoe, shared)
    elif sequences == ProtectionRun.IF_INDEXED:  # recorded in order later
        found[tuple(shoe_ids)] = _sequences_found(checked, coups_by_shoe, shared, indexed_only=True)
    findings += _coup_rates(checked, coups_by_shoe)
    if wagers_by_shoe is None:
        shoe_of = {row[0]: shoe_id for shoe_id, coups in coups_by_shoe.items() for row in coups}
        wagers_by_shoe = defaultdict(list)
        for row in values_rows(
            Wager.objects.filter(AnyOf(F("coup_id"), shoe_of)).order_by("coup_id").values_list(*WAGER_COLUMNS)
        ):
            wagers_by_shoe[shoe_of[row[1]]].append(row)
    for shoe in checked:
        coups = coups_by_shoe[shoe.pk]
        wagers = wagers_by_shoe.get(shoe.pk, ())
        # Added up once, by gaming day: the shoe's sums are its days', and its days go on to the
        # tables' days (`finish`).
        by_day = _deviation_totals(wagers, paytables, {row[0]: (row[3], row[5]) for row in coups})
        if kept is not None:
            kept.keep(shoe.table_id, coups, by_day, _side_bet_days(coups, wagers, worth))
        totals = _totals()
        for day_totals in by_day.values():
            _add_totals(totals, day_totals)
        findings += _deviation_findings(
            shoe.table,
            shoe,
            f"Shoe {shoe.sequence} at table {shoe.table.code}",
            f"shoe{shoe.pk}",
            settings.PIT_PROTECTION_Z_SHOE,
            totals,
            max(row[3] for row in coups_by_shoe[shoe.pk]),
        )
    return findings


class _SharedDigests:
    """For a sweep: the digests that two or more shoes hold in the index, read once for a window of
    WINDOW_DAYS gaming days (one GROUP BY over it, instead of every chunk looking up each of its
    thousands of digests), and those this run has indexed since. A digest of a chunk that is in
    neither is held by that chunk's shoe alone, and is not looked up. (A shoe indexed meanwhile by
    another process finds its own repeats: they are charged to it, the later shoe.)"""

    WINDOW_DAYS = 31

    def __init__(self) -> None:
        self.window: tuple[dt.date, dt.date] | None = None
        self.digests: set[int] = set()
        self.indexed: set[int] = set()

    def candidates(self, digests: set[int], first_day: dt.date, last_day: dt.date) -> set[int]:
        return digests & self.held(first_day, last_day)

    def held(self, first_day: dt.date, last_day: dt.date) -> set[int]:
        """The digests two or more shoes hold, in the window around these days."""
        if self.window is None or first_day < self.window[0] or last_day > self.window[1]:
            self.window = (first_day, max(last_day, first_day + dt.timedelta(days=self.WINDOW_DAYS - 1)))
            table = CardShingle._meta.db_table
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT digest FROM {table} WHERE gaming_day BETWEEN %s AND %s "  # noqa: S608
                    "GROUP BY digest HAVING min(shoe_id) <> max(shoe_id)",
                    list(self.window),
                )
                self.digests = {digest for (digest,) in cursor.fetchall()}
            self.indexed = set()  # what this run indexed before is in the read
        return self.digests | self.indexed


def _sequence_findings(
    shoes: list[Shoe], coups_by_shoe: dict[int, list[tuple]], shared: _SharedDigests | None = None
) -> int:
    """Index the shoes' shingles, find them in other shoes, and runs in new-deck order; record them."""
    return _sequences_record(_sequences_found(shoes, coups_by_shoe, shared))


def _sequences_found(
    shoes: list[Shoe],
    coups_by_shoe: dict[int, list[tuple]],
    shared: _SharedDigests | None = None,
    *,
    indexed_only: bool = False,
) -> dict[int, tuple[dict[int, tuple[int, int, int, int]], list]] | None:
    """Index the shoes' shingles, then find them in other shoes, and runs in new-deck order. Returns,
    per shoe with any, (per other shoe, its first repeat: (position here, position there, the coup of
    this shoe and of the other that completed the shingle); [(new-deck run, the coup that completed
    it)]), to record with `_sequences_record`.

    Each shoe sees the index as checking the shoes one by one, in id order, would: a later shoe of
    this chunk as it was stored before this run, an earlier one as indexed now. In a sweep, a chunk
    whose every shoe's cards are as they were indexed (IndexedShoe) is not indexed again: its
    shingles are in the index as they would be, and only those two shoes hold are read. With
    `indexed_only`, any other chunk is left alone: None."""
    dealt: dict[int, tuple[list[str], list[tuple]]] = {}  # shoe -> (cards in dealt order, each card's coup)
    for shoe in shoes:
        coups = coups_by_shoe[shoe.pk]
        try:
            codes, owners = sequences.concatenated((row[1], row[2]) for row in coups)
        except (ValueError, game.InvalidCard):
            logger.warning("shoe %s: cards that name no card; its sequence is not indexed", shoe.pk)
            continue
        dealt[shoe.pk] = (codes, [coups[index] for index in owners])
    if not dealt:
        return {}
    days = [row[3] for shoe_id in dealt for row in coups_by_shoe[shoe_id]]
    margin = dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
    first_day, last_day = min(days) - margin, max(days) + margin
    digests = {shoe_id: sequences.dealt_digest(codes) for shoe_id, (codes, _) in dealt.items()}
    if shared is not None and digests == dict(
        IndexedShoe.objects.filter(AnyOf(F("shoe_id"), dealt)).values_list("shoe_id", "digest")
    ):
        positions, now = _sequences_as_indexed(dealt, shared, first_day, last_day)
    elif indexed_only:
        return None
    else:
        positions, now = _sequences_indexed(shoes, dealt, shared, first_day, last_day)
        IndexedShoe.objects.bulk_create(
            [IndexedShoe(shoe_id=shoe_id, digest=digest) for shoe_id, digest in digests.items()],
            update_conflicts=True,
            unique_fields=["shoe"],
            update_fields=["digest"],
        )
    found = {}
    for shoe in shoes:
        if shoe.pk not in dealt:
            continue
        codes, coup_of = dealt[shoe.pk]
        coups = coups_by_shoe[shoe.pk]
        first_day, last_day = coups[0][3] - margin, coups[-1][3] + margin
        position_of = positions[shoe.pk]
        visible = sorted((row for digest in position_of for row in now(shoe.pk, digest)), key=lambda row: row[:2])
        first_match: dict[int, tuple[int, int, int, int]] = {}
        for other_id, other_position, digest, day, other_coup_id in visible:
            if other_id != shoe.pk and first_day <= day <= last_day and other_id not in first_match:
                position = position_of[digest]
                first_match[other_id] = (
                    position,
                    other_position,
                    coup_of[position + SHINGLE_LENGTH - 1][0],
                    other_coup_id,
                )
        runs = [(run, coup_of[run.start + NEW_DECK_RUN_LENGTH - 1][0]) for run in sequences.new_deck_runs(codes)]
        if first_match or runs:
            found[shoe.pk] = (first_match, runs)
    return found


def _sequences_record(found: dict[int, tuple[dict[int, tuple[int, int, int, int]], list]]) -> int:
    """Record what `_sequences_found` found, shoe by shoe in id order. Returns the findings."""
    if not found:
        return 0
    shoes = Shoe.objects.select_related("table").in_bulk(
        {*found, *(other_id for first_match, _ in found.values() for other_id in first_match)}
    )
    findings = 0
    for shoe_id, (first_match, runs) in sorted(found.items()):
        shoe = shoes[shoe_id]
        findings += _repeats(shoe, first_match, shoes)
        for run, coup_id in runs:
            coup = Coup.objects.get(pk=coup_id)
            violation_record(
                finding=sequences.new_deck_order_run(run),
                fingerprint=f"new_deck_order_run:shoe{shoe.pk}:card{run.start}",
                table=shoe.table,
                shoe=shoe,
                coup=coup,
                gaming_day=coup.gaming_day,
                found_by=PROTECTION_CHECK,
            )
            findings += 1
    return findings


def _sequences_indexed(
    shoes: list[Shoe],
    dealt: dict[int, tuple[list[str], list[tuple]]],
    shared: _SharedDigests | None,
    first_day: dt.date,
    last_day: dt.date,
):
    """Bring the chunk's shingles in the index up to date, and look up those found elsewhere.
    Returns (per shoe, each such digest's first position in it; the rows (shoe, position, digest,
    day, coup) a shoe sees of a digest, as a function of the shoe and the digest)."""
    chunk = {shoe.pk for shoe in shoes}
    before: dict[int, dict[int, int]] = defaultdict(dict)  # shoe -> position -> digest, as stored
    for shoe_id, position, digest in values_rows(
        CardShingle.objects.filter(AnyOf(F("shoe_id"), chunk)).values_list("shoe_id", "position", "digest")
    ):
        before[shoe_id][position] = digest
    shingles = {shoe_id: sequences.shingles(codes) for shoe_id, (codes, _) in dealt.items()}
    # A digest can only tie two shoes of the chunk together when two of them hold it (now or as
    # stored): only those are looked at below, and only their stored rows are read, before the index
    # is brought up to date.
    holders: Counter = Counter()
    for shoe_id in chunk:
        held = set(before[shoe_id].values())
        if shoe_id in shingles:
            held.update(digest for _, digest in shingles[shoe_id])
        holders.update(held)
    tied = [digest for digest, count in holders.items() if count > 1]
    stored: dict[int, list[tuple]] = defaultdict(list)  # digest -> (shoe, position, digest, day, coup) as stored
    if tied:
        for row in values_rows(
            CardShingle.objects.filter(AnyOf(F("shoe_id"), chunk), AnyOf(F("digest"), tied)).values_list(
                "shoe_id", "position", "digest", "gaming_day", "coup_id"
            )
        ):
            stored[row[2]].append(row)
    new: list[CardShingle] = []
    for shoe in shoes:
        if shoe.pk in dealt:
            new += _index(shoe, shingles[shoe.pk], dealt[shoe.pk][1], before[shoe.pk])
    CardShingle.objects.bulk_create(new, batch_size=1000)

    digests = {digest for found in shingles.values() for _, digest in found}
    if shared is not None:
        shared.indexed.update(row.digest for row in new)
        digests = shared.candidates(digests, first_day, last_day)
    # Where each digest was found: in the index now, and (for this chunk's shoes) as stored before.
    now: dict[int, list[tuple]] = defaultdict(list)
    for row in _shingles_matching(sorted(digests), first_day, last_day) if digests else ():
        now[row[2]].append(row)
    seen_elsewhere = now.keys() | stored.keys()
    positions: dict[int, dict[int, int]] = {}
    for shoe_id, found in shingles.items():
        position_of = positions[shoe_id] = {}
        for position, digest in found:
            if digest in seen_elsewhere:
                position_of.setdefault(digest, position)

    def seen_by(shoe_id: int, digest: int) -> list[tuple]:
        return [row for row in now.get(digest, ()) if row[0] not in chunk or row[0] < shoe_id] + [
            row for row in stored.get(digest, ()) if row[0] > shoe_id
        ]

    return positions, seen_by


def _sequences_as_indexed(
    dealt: dict[int, tuple[list[str], list[tuple]]], shared: _SharedDigests, first_day: dt.date, last_day: dt.date
):
    """As `_sequences_indexed`, for a chunk whose every shoe is indexed as its cards are now (so the
    index is as it was before this chunk, and a later shoe of the chunk is seen as stored): only the
    chunk's shingles that two shoes hold are read, no digest is computed."""
    positions: dict[int, dict[int, int]] = {shoe_id: {} for shoe_id in dealt}
    for shoe_id, position, digest in values_rows(
        CardShingle.objects.filter(AnyOf(F("shoe_id"), dealt), AnyOf(F("digest"), shared.held(first_day, last_day)))
        .order_by("shoe_id", "position")
        .values_list("shoe_id", "position", "digest")
    ):
        positions[shoe_id].setdefault(digest, position)
    digests = {digest for position_of in positions.values() for digest in position_of}
    now: dict[int, list[tuple]] = defaultdict(list)
    for row in _shingles_matching(sorted(digests), first_day, last_day) if digests else ():
        now[row[2]].append(row)
    for position_of in positions.values():
        for digest in [digest for digest in position_of if digest not in now]:
            del position_of[digest]
    return positions, lambda shoe_id, digest: now[digest]


def _shingles_matching(digests: list[int], first_day: dt.date, last_day: dt.date) -> list[tuple]:
    """(shoe, position, digest, gaming day, coup) of every indexed shingle with one of `digests` that
    more than one shoe holds (the shoes asking were indexed first, so a digest only one shoe holds
    can match nothing: a re-run reads the few repeats, not every shingle again)."""
    if connection.vendor == "postgresql":
        # One array parameter, not one placeholder per digest, written as the array's text (the
        # digests are ints: joined in C, not dumped one by one by the driver).
        table = CardShingle._meta.db_table
        sql = (
            f"SELECT shoe_id, position, digest, gaming_day, coup_id FROM {table} "  # noqa: S608
            "WHERE digest = ANY(%(digests)s::bigint[]) AND gaming_day BETWEEN %(first)s AND %(last)s "
            f"AND digest IN (SELECT digest FROM {table} WHERE digest = ANY(%(digests)s::bigint[]) "
            "AND gaming_day BETWEEN %(first)s AND %(last)s GROUP BY digest HAVING count(DISTINCT shoe_id) > 1)"
        )
        array = "{" + ",".join(map(str, digests)) + "}"
        with connection.cursor() as cursor:
            cursor.execute(sql, {"digests": array, "first": first_day, "last": last_day})
            return cursor.fetchall()
    rows = []
    for start in range(0, len(digests), 500):
        rows += CardShingle.objects.filter(
            digest__in=digests[start : start + 500], gaming_day__gte=first_day, gaming_day__lte=last_day
        ).values_list("shoe_id", "position", "digest", "gaming_day", "coup_id")
    holders = defaultdict(set)
    for row in rows:
        holders[row[2]].add(row[0])
    return [row for row in rows if len(holders[row[2]]) > 1]


def _repeats(shoe: Shoe, first_match: dict[int, tuple[int, int, int, int]], shoes: dict[int, Shoe]) -> int:
    for other_id, (position, other_position, coup_id, other_coup_id) in first_match.items():
        other = shoes[other_id]
        # Charged to the later shoe, at the coup that completed its first repeated shingle.
        if shoe.pk > other_id:
            later, earlier, at, earlier_at = shoe, other, position, other_position
        else:
            later, earlier, at, earlier_at = other, shoe, other_position, position
            coup_id = other_coup_id
        coup = Coup.objects.get(pk=coup_id)
        finding = sequences.sequence_repeat(
            SHINGLE_LENGTH,
            at + 1,
            f"table {earlier.table.code} shoe {earlier.sequence} (from its card {earlier_at + 1})",
        )
        violation_record(
            finding=finding,
            fingerprint=f"shoe_sequence_repeat:shoe{later.pk}:shoe{earlier.pk}",
            table=later.table,
            shoe=later,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
    return len(first_match)


def _side_bet_expectations(
    shoes: list[Shoe], coups_by_shoe: dict[int, list[tuple]], paytables: _Paytables
) -> dict[int, dict[str, bool]]:
    """Store, for each coup that has none yet, every side bet's exact expectation from the cards seen
    before it (the burn and the earlier coups, in number order). Returns, per coup, whether each of
    its side bets' expectation is positive, as stored now."""
    worth: dict[int, dict[str, bool]] = {}
    for coup_id, bet, positive in values_rows(
        SideBetExpectation.objects.filter(
            AnyOf(F("coup_id"), [row[0] for shoe in shoes for row in coups_by_shoe[shoe.pk]])
        ).values_list("coup_id", "bet", "positive")
    ):
        bets = worth.get(coup_id)
        if bets is None:
            bets = worth[coup_id] = {}
        bets[bet] = positive
    stored = worth.keys()
    new = []
    for shoe in shoes:
        coups = coups_by_shoe[shoe.pk]
        if all(row[0] in stored for row in coups):
            continue
        seen = Counter(shoe.burn_cards or ())
        for row in coups:
            pk, player, banker, paytable_id = row[0], row[1], row[2], row[5]
            if pk not in stored:
                try:
                    expectations = counting.side_bet_expectations(paytables.rules[paytable_id], shoe.decks, seen)
                except (ValueError, game.InvalidCard):
                    break  # cards the shoe cannot hold, or too few left: nothing after can be counted
                new.extend(
                    SideBetExpectation(
                        coup_id=pk, bet=bet, expectation=game.fraction_to_decimal(value, 12), positive=value > 0
                    )
                    for bet, value in expectations.items()
                )
            seen.update([*player, *banker])
    SideBetExpectation.objects.bulk_create(new, ignore_conflicts=True, batch_size=1000)
    for expectation in new:
        worth.setdefault(expectation.coup_id, {})[expectation.bet] = expectation.positive
    return worth


def _side_bet_days(coups: list[tuple], wagers: Iterable[tuple], worth: dict[int, dict[str, bool]]) -> dict:
    """One shoe's side bets for advantage play, per gaming day (`_SideBetDay`): its coups' side-bet
    expectations, and its wagers (WAGER_COLUMNS) on bets that had one."""
    by_day: dict[dt.date, _SideBetDay] = {}
    day_of = {}
    for row in coups:
        bets = worth.get(row[0])
        if bets:
            day = row[3]
            side_bet_day = by_day.get(day)
            if side_bet_day is None:
                side_bet_day = by_day[day] = _SideBetDay()
            side_bet_day.add_coup(bets)
            day_of[row[0]] = side_bet_day
    for row in wagers:
        bets = worth.get(row[1])
        if bets is not None:
            positive = bets.get(row[3])
            if positive is not None:
                day_of[row[1]].add_wager(row[2], row[3], row[0], positive)
    return by_day


ADVANTAGE_DAYS_PER_READ = 31


def _advantage_play(table: Table, days: list[dt.date], kept: _KeptDays, whole: set[dt.date]) -> int:
    """Test, for each of the gaming days, every seat of the table that bet side bets on it (when a
    coup of the day had a positive side bet at all: otherwise no bet can have landed on one). A day
    the run's chunks kept whole is taken from `kept`; the others' expectations and side bets are
    read in two queries for up to ADVANTAGE_DAYS_PER_READ days."""
    side_bet_days = {day: kept.side_bets[table.pk, day] for day in whole if (table.pk, day) in kept.side_bets}
    missing = [day for day in days if day not in whole]
    for start in range(0, len(missing), ADVANTAGE_DAYS_PER_READ):
        some = missing[start : start + ADVANTAGE_DAYS_PER_READ]
        worth: dict[int, dict[str, bool]] = defaultdict(dict)
        read: dict[dt.date, _SideBetDay] = defaultdict(_SideBetDay)
        day_of = {}
        for day, coup_id, bet, positive in values_rows(
            SideBetExpectation.objects.filter(coup__shoe__table_id=table.pk, coup__gaming_day__in=some).values_list(
                "coup__gaming_day", "coup_id", "bet", "positive"
            )
        ):
            worth[coup_id][bet] = positive
            day_of[coup_id] = day
        for coup_id, bets in worth.items():
            read[day_of[coup_id]].add_coup(bets)
        tested = [day for day in some if day in read and any(read[day].positives.values())]
        if tested:
            for pk, coup_id, seat, bet in values_rows(
                Wager.objects.filter(
                    coup__shoe__table_id=table.pk,
                    coup__gaming_day__in=tested,
                    bet__in=sorted({bet for day in tested for bet in read[day].opportunities}),
                ).values_list("pk", "coup_id", "seat", "bet")
            ):
                positive = worth[coup_id].get(bet)
                if positive is not None:
                    read[day_of[coup_id]].add_wager(seat, bet, pk, positive)
        side_bet_days.update(read)
    return sum(
        _advantage_play_day(table, day, side_bet_days[day])
        for day in days
        if day in side_bet_days and any(side_bet_days[day].positives.values())
    )


def _advantage_play_day(table: Table, day: dt.date, side_bets: _SideBetDay) -> int:
    """One gaming day's test of each seat's side bets against betting at random (each bet's chance
    of landing on a positive coup: its share of the day's coups that were positive for it)."""
    threshold = settings.PIT_PROTECTION_SIDE_BET_P_VALUE
    findings = 0
    chance = {bet: side_bets.positives[bet] / count for bet, count in side_bets.opportunities.items()}
    for seat, bets in sorted(side_bets.bets.items()):
        hits = side_bets.hits.get(seat, ())
        if len(hits) < SIDE_BET_MIN_HITS:
            continue
        chances = [chance[bet] for bet, count in sorted(bets.items()) for _ in range(count)]
        p_value = counting.tail_probability(chances, len(hits))
        if p_value >= threshold:
            continue
        # The evidence, in the order the coups were dealt: the first EVIDENCE_SHOWN hits.
        shown = list(
            Wager.objects.filter(pk__in=hits, coup__gaming_day=day)
            .order_by("coup__dealt_at", "coup_id", "pk")
            .values_list("coup_id", "bet", "amount_minor", "currency", "coup__number", "coup__shoe__sequence")[
                :EVIDENCE_SHOWN
            ]
        )
        expectation = {
            (coup_id, bet): value
            for coup_id, bet, value in SideBetExpectation.objects.filter(
                coup_id__in={row[0] for row in shown}, bet__in={row[1] for row in shown}
            ).values_list("coup_id", "bet", "expectation")
        }
        evidence = "; ".join(
            f"shoe {sequence} coup {number} {bet} {expectation[coup_id, bet]:+.4f} a unit, staked "
            f"{from_minor(amount, currency)}"
            for coup_id, bet, amount, currency, number, sequence in shown
        ) + ("" if len(hits) <= EVIDENCE_SHOWN else f"; and {len(hits) - EVIDENCE_SHOWN} more")
        finding = counting.advantage_play(seat, len(hits), sum(bets.values()), sum(chances), p_value, evidence)
        first = Coup.objects.select_related("shoe__table").get(pk=shown[0][0])
        recorded = violation_record(
            finding=finding,
            fingerprint=f"side_bet_advantage_play:table{table.pk}:{day}:seat{seat}",
            table=first.shoe.table,
            shoe=first.shoe,
            coup=first,
            seat=seat,
            gaming_day=day,
            found_by=PROTECTION_CHECK,
        )
        if recorded.message != finding.message:  # more coups of the day: the evidence grows
            RuleViolation.objects.filter(pk=recorded.pk).update(message=finding.message)
        findings += 1
    return findings


def _table_day_deviations(
    table: Table,
    days: list[dt.date],
    paytables: _Paytables,
    kept: dict[dt.date, dict[int | None, list]],
    missing: list[dt.date],
    *,
    weekly: bool,
) -> int:
    """The table's gaming days (and with `weekly` the 7 gaming days ending on each: a week of wagers,
    read by the nightly sweep, not after every coup): a week's sums are its days' sums (each coup
    falls on one day). The days' sums the run's chunks `kept` whole are taken as they are; the days
    `missing` are read in one query (the others had no coup)."""
    day_totals = dict(kept)
    if missing:
        read = set(missing)
        rows, coup_of = [], {}
        for day, paytable_id, *row in values_rows(
            Wager.objects.filter(
                coup__shoe__table_id=table.pk, coup__gaming_day__gte=missing[0], coup__gaming_day__lte=missing[-1]
            )
            .order_by("coup_id")
            .values_list("coup__gaming_day", "coup__paytable_id", *WAGER_COLUMNS)
        ):
            if day in read:
                rows.append(row)
                coup_of[row[1]] = (day, paytable_id)
        paytables.load({paytable_id for _, paytable_id in coup_of.values()})
        day_totals.update(_deviation_totals(rows, paytables, coup_of))
    findings = 0
    for day in days:
        findings += _deviation_findings(
            table,
            None,
            f"Table {table.code} on gaming day {day}",
            f"day{day}",
            settings.PIT_PROTECTION_Z_DAY,
            day_totals.get(day, {}),
            day,
        )
        if weekly:
            start = day - dt.timedelta(days=DAY_LEVEL_WEEK - 1)
            week = _totals()
            for back in range(DAY_LEVEL_WEEK - 1, -1, -1):
                _add_totals(week, day_totals.get(day - dt.timedelta(days=back), {}))
            findings += _deviation_findings(
                table,
                None,
                f"Table {table.code} over gaming days {start} to {day}",
                f"week{day}",
                settings.PIT_PROTECTION_Z_WEEK,
                week,
                day,
            )
    return findings


def _totals() -> dict[int | None, list]:
    """Deviation sums per table (None) and per seat: house win, theoretical win, variance (minor
    units), wagers."""
    return defaultdict(lambda: [0, Decimal(0), Decimal(0), 0])


def _add_totals(into: dict[int | None, list], totals: dict[int | None, list]) -> None:
    for who, sums in totals.items():
        target = into[who]
        for index in range(4):
            target[index] += sums[index]


def _deviation_totals(
    rows: Iterable[tuple], paytables: _Paytables, coup_of: dict[int, tuple[dt.date, int]]
) -> dict[dt.date, dict[int | None, list]]:
    """Per gaming day (`coup_of`: each coup's gaming day and paytable), per table (None) and per
    seat: house win, theoretical win, variance (minor units), wagers, from wager rows (WAGER_COLUMNS)
    in coup order.

    Wagers on one coup are not independent (seats on the same side win together; Player and Banker
    bets move against each other): a coup's standard deviation is bounded by the sum of its wagers'
    (stake x the bet's standard deviation per unit), and coups are independent."""
    by_day: dict[dt.date, dict[int | None, list]] = {}
    totals: dict[int | None, list] = _totals()
    # The current coup's spread, of the whole table and of each seat.
    spread_table, spread_seats = Decimal(0), {}
    products = paytables.products
    lose = WagerResult.LOSE
    last_coup = None
    # Written out: the hottest loop of the sweep's protection. Each wager goes to its seat's sums;
    # the table's are the seats' (but for the spread, squared per coup), added up at the end.
    for row in rows:
        coup_id, seat, amount = row[1], row[2], row[5]
        if coup_id != last_coup:
            totals[None][2] += spread_table * spread_table
            for who, spread in spread_seats.items():
                totals[who][2] += spread * spread
            spread_table, spread_seats = Decimal(0), {}
            last_coup = coup_id
            day, paytable_id = coup_of[coup_id]
            totals = by_day.get(day)
            if totals is None:
                totals = by_day[day] = _totals()
        # A pit repeats the same few stakes: each stake's theoretical and spread computed once.
        key = (paytable_id, row[3], amount)
        product = products.get(key)
        if product is None:
            edge, unit_deviation = paytables.edges[paytable_id].get(row[3], (Decimal(0), Decimal(0)))
            product = products[key] = (amount * edge, amount * unit_deviation)
        theoretical, spread = product
        sums = totals[seat]
        sums[0] += (amount if row[9] == lose else 0) - row[7] + row[8]
        sums[1] += theoretical
        sums[3] += 1
        spread_table += spread
        spread_seats[seat] = spread_seats.get(seat, 0) + spread
    totals[None][2] += spread_table * spread_table
    for who, spread in spread_seats.items():
        totals[who][2] += spread * spread
    for totals in by_day.values():
        table = totals[None]
        for who, sums in totals.items():
            if who is not None:
                table[0] += sums[0]
                table[1] += sums[1]
                table[3] += sums[3]
    return by_day


def _deviation_findings(
    table: Table, shoe: Shoe | None, title: str, key: str, threshold, totals: dict[int | None, list], day: dt.date
) -> int:
    """Record the scope's win beyond `threshold` standard deviations of theoretical, for the table
    and for each seat."""
    scale = Decimal(1).scaleb(-exponent(table.currency))
    findings = 0
    for who, (win, theoretical, variance, count) in sorted(totals.items(), key=lambda i: (i[0] is not None, i[0])):
        if count < settings.PIT_PROTECTION_Z_MIN_WAGERS or variance <= 0:
            continue
        deviation = _sqrt(variance)
        z = (Decimal(win) - theoretical) / deviation
        if abs(z) <= Decimal(str(threshold)):
            continue
        finding = counting.win_deviation(
            title if who is None else f"{title}, seat {who}",
            float(z),
            str(from_minor(win, table.currency)),
            str((theoretical * scale).quantize(scale)),
            str((deviation * scale).quantize(scale)),
            count,
        )
        violation_record(
            finding=finding,
            fingerprint=f"win_deviation:table{table.pk}:{key}" + ("" if who is None else f":seat{who}"),
            table=table,
            shoe=shoe,
            seat=who,
            gaming_day=day,
            found_by=PROTECTION_CHECK,
        )
        findings += 1
    return findings


def _sqrt(value: Decimal) -> Decimal:
    with localcontext() as context:
        context.prec = 34
        return value.sqrt()


def _coup_rates(shoes: list[Shoe], coups_by_shoe: dict[int, list[tuple]]) -> int:
    """More coups than PIT_PROTECTION_MAX_COUPS_PER_HOUR dealt within 60 minutes at a table: each
    table's coups around the chunk's shoes read once."""
    maximum = settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR
    hour = dt.timedelta(hours=1)
    spans: dict[int, list[dt.datetime]] = {}
    for shoe in shoes:
        dealt = [row[4] for row in coups_by_shoe[shoe.pk]]
        low, high = min(dealt) - hour, max(dealt)
        span = spans.setdefault(shoe.table_id, [low, high])
        span[0], span[1] = min(span[0], low), max(span[1], high)
    at_table: dict[int, list[tuple]] = {}
    for table_id, (low, high) in spans.items():
        at_table[table_id] = values_rows(
            Coup.objects.filter(shoe__table_id=table_id, dealt_at__gt=low, dealt_at__lte=high)
            .order_by("dealt_at", "pk")
            .values_list("pk", "dealt_at")
        )
    findings = 0
    for shoe in shoes:
        rows = at_table[shoe.table_id]
        dealt = [row[4] for row in coups_by_shoe[shoe.pk]]
        times = [moment for _, moment in rows]
        # The table's coups dealt after an hour before the shoe's first, up to its last (as one query would).
        table_coups = rows[bisect.bisect_right(times, min(dealt) - hour) : bisect.bisect_right(times, max(dealt))]
        if len(table_coups) > maximum:
            findings += _coup_rate(shoe, coups_by_shoe[shoe.pk], table_coups)
    return findings


def _coup_rate(shoe: Shoe, coups: list[tuple], table_coups: list[tuple]) -> int:
    maximum = settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR
    hour = dt.timedelta(hours=1)
    own = {row[0] for row in coups}
    hours_found: set[str] = set()
    start = 0
    for index, (pk, dealt_at) in enumerate(table_coups):
        while table_coups[start][1] <= dealt_at - hour:
            start += 1
        count = index - start + 1
        if count <= maximum or pk not in own:
            continue
        clock_hour = dealt_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H")
        if clock_hour in hours_found:
            continue
        hours_found.add(clock_hour)
        coup = Coup.objects.get(pk=pk)
        violation_record(
            finding=sequences.coup_rate_high(count, maximum),
            fingerprint=f"coup_rate_high:table{shoe.table_id}:{clock_hour}",
            table=shoe.table,
            shoe=shoe,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
    return len(hours_found)


def _index(shoe: Shoe, shingles: list[tuple[int, int]], coup_of: list[tuple], stored: dict[int, int]) -> list:
    """Bring the shoe's shingles in the index up to date: positions whose cards changed (a coup
    corrected or posted late) or past the end removed now; the new rows to add returned (the caller
    inserts a chunk's in one go)."""
    wanted = dict(shingles)
    changed = [position for position, digest in stored.items() if wanted.get(position) != digest]
    if changed:
        CardShingle.objects.filter(shoe=shoe, position__in=changed).delete()
    return [
        CardShingle(
            shoe=shoe,
            table_id=shoe.table_id,
            position=position,
            digest=digest,
            gaming_day=coup_of[position][3],
            coup_id=coup_of[position + SHINGLE_LENGTH - 1][0],
        )
        for position, digest in shingles
        if stored.get(position) != digest
    ]
