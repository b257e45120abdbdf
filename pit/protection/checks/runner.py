"""One run of the protection checks: chunks of shoes, then the tables' gaming days they touched."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F

from pit.core.collection import collection_paused
from pit.core.rows import AnyOf, values_rows
from pit.protection.checks.coup_rate import coup_rates
from pit.protection.checks.paytables import Paytables
from pit.protection.checks.rows import COUP_COLUMNS, WAGER_COLUMNS, CoupsByShoe, WagerRow, wager_rows
from pit.protection.checks.shoe_sequences import (
    SequencesFound,
    SharedDigests,
    sequence_findings,
    sequences_found,
    sequences_record,
)
from pit.protection.checks.side_bets import advantage_play, side_bet_days, side_bet_expectations
from pit.protection.checks.win_deviation import (
    DAY_LEVEL_WEEK,
    shoe_deviations,
    table_day_deviations,
    wager_deviation_totals,
)
from pit.protection.models import IndexedShoe
from pit.protection.statistics import SideBetDay, deviation_sums, deviation_sums_add
from pit.shoes.models import Coup, Shoe, Wager
from pit.tables.models import Table


class KeptDays:
    """For the tests over a table's day: each table's gaming day's deviation sums and side bets as
    the run's chunks added them up (per shoe and day, from the wagers they read), and how many of the
    table's coups that day they cover. A day is taken from here only when that is all of them
    (`covered`); the others are read."""

    def __init__(self) -> None:
        self.coups: Counter = Counter()
        self.sums: dict[tuple[int, dt.date], dict[int | None, list]] = {}
        self.side_bets: dict[tuple[int, dt.date], SideBetDay] = {}

    def keep(
        self,
        table_id: int,
        coups: Sequence[tuple[Any, ...]],
        by_day: dict[dt.date, dict[int | None, list]],
        side_bets: dict[dt.date, SideBetDay],
    ) -> None:
        self.coups.update((table_id, row[3]) for row in coups)
        for day, totals in by_day.items():
            deviation_sums_add(self.sums.setdefault((table_id, day), deviation_sums()), totals)
        for day, side_bet_day in side_bets.items():
            self.side_bet_day(table_id, day).add(side_bet_day)

    def side_bet_day(self, table_id: int, day: dt.date) -> SideBetDay:
        kept = self.side_bets.get((table_id, day))
        if kept is None:
            kept = self.side_bets[table_id, day] = SideBetDay()
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
        self.paytables = Paytables()
        self.kept = KeptDays()
        # A sweep's chunks look up only the digests two shoes could hold (see SharedDigests).
        self.shared = SharedDigests() if sweep else None
        # Chunks given in any order: per chunk, its shoe sequences found (None: left to the ordered pass).
        self.found: dict[tuple[int, ...], SequencesFound | None] = {}

    def shoes(
        self,
        shoe_ids: list[int],
        coups_by_shoe: CoupsByShoe | None = None,
        wagers_by_shoe: dict[int, list[WagerRow]] | None = None,
        *,
        sequences: str = INLINE,
    ) -> None:
        """Check one chunk of shoes. `coups_by_shoe`: per shoe, every coup of it in number order
        (COUP_COLUMNS first); `wagers_by_shoe`: per shoe, every wager of its coups in coup order.
        `sequences`: INLINE for chunks given in shoe id order, otherwise IF_INDEXED or APART (see
        the class)."""
        self.holding += shoes_check(
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
        assert self.shared is not None, "expect_days is for a sweep's run (sweep=True)"
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
            with transaction.atomic(), collection_paused():  # as a chunk of the rule checks' sweep is
                if in_order:
                    shoes = Shoe.objects.select_related("table").in_bulk(chunk)
                    coups_by_shoe = chunk_coups(chunk, COUP_COLUMNS[:4])  # the cards and the gaming day
                    checked = [shoes[shoe_id] for shoe_id in chunk if coups_by_shoe.get(shoe_id)]
                    if checked:
                        self.holding += sequence_findings(checked, coups_by_shoe, self.shared)
                elif found:
                    self.holding += sequences_record(found)

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
            deviation_sums_add(self.kept.sums.setdefault(key, deviation_sums()), totals)
        for (table_id, day), side_bet_day in side_bets.items():
            self.kept.side_bet_day(table_id, day).add(side_bet_day)
        self.found.update(found)

    def finish(self, *, weekly: bool) -> int:
        """The tests over a table's whole gaming day (and week), once per table and day, not once per
        shoe. Returns the findings that hold over the whole run."""
        tables = Table.objects.in_bulk(list(self.table_days))
        for table_id, touched in sorted(self.table_days.items()):
            days = sorted(touched)
            # With `weekly`, the 7 gaming days ending on each: a week's sums are its days' sums.
            wanted = {day - dt.timedelta(days=back) for day in days for back in range(DAY_LEVEL_WEEK if weekly else 1)}
            with transaction.atomic():
                table = tables[table_id]
                whole, empty = self.kept.covered(table_id, wanted)
                self.holding += advantage_play(table, days, self.kept.side_bets, whole)
                self.holding += table_day_deviations(
                    table,
                    days,
                    self.paytables,
                    {day: self.kept.sums.get((table_id, day), {}) for day in whole},
                    sorted(wanted - whole - empty),
                    weekly=weekly,
                )
        return self.holding


def chunk_coups(shoe_ids: list[int], columns: tuple[str, ...] = COUP_COLUMNS) -> dict[int, list[tuple]]:
    """Per shoe, its coups (`columns`: COUP_COLUMNS or the first of them, then the shoe) in number order."""
    coups_by_shoe: dict[int, list[tuple]] = defaultdict(list)
    for row in values_rows(
        Coup.objects.filter(AnyOf(F("shoe_id"), shoe_ids))
        .order_by("shoe_id", "number", "pk")
        .values_list(*columns, "shoe_id")
    ):
        coups_by_shoe[row[-1]].append(row)
    return coups_by_shoe


def shoes_check(
    shoe_ids: list[int],
    table_days: dict[int, set[dt.date]],
    paytables: Paytables,
    coups_by_shoe: CoupsByShoe | None = None,
    wagers_by_shoe: dict[int, list[WagerRow]] | None = None,
    *,
    kept: KeptDays | None = None,
    shared: SharedDigests | None = None,
    sequences: str = ProtectionRun.INLINE,
    found: dict[tuple[int, ...], SequencesFound | None] | None = None,
) -> int:
    shoes = Shoe.objects.select_related("table").in_bulk(shoe_ids)
    if coups_by_shoe is None:
        coups_by_shoe = chunk_coups(shoe_ids)
    checked = [shoes[shoe_id] for shoe_id in shoe_ids if coups_by_shoe.get(shoe_id)]
    if not checked:
        return 0
    paytables.load({row[5] for coups in coups_by_shoe.values() for row in coups})
    for shoe in checked:
        table_days[shoe.table_id].update(row[3] for row in coups_by_shoe[shoe.pk])
    worth = side_bet_expectations(checked, coups_by_shoe, paytables)
    findings = 0
    if sequences == ProtectionRun.INLINE:
        findings = sequence_findings(checked, coups_by_shoe, shared)
    elif sequences == ProtectionRun.IF_INDEXED:  # recorded in order later
        assert found is not None, "IF_INDEXED keeps what it finds in `found`"
        found[tuple(shoe_ids)] = sequences_found(checked, coups_by_shoe, shared, indexed_only=True)
    findings += coup_rates(checked, coups_by_shoe)
    if wagers_by_shoe is None:
        shoe_of = {row[0]: shoe_id for shoe_id, coups in coups_by_shoe.items() for row in coups}
        wagers_by_shoe = defaultdict(list)
        for wager in wager_rows(
            values_rows(
                Wager.objects.filter(AnyOf(F("coup_id"), shoe_of)).order_by("coup_id").values_list(*WAGER_COLUMNS)
            )
        ):
            wagers_by_shoe[shoe_of[wager.coup_id]].append(wager)
    for shoe in checked:
        coups = coups_by_shoe[shoe.pk]
        wagers = wagers_by_shoe.get(shoe.pk, ())
        # Added up once, by gaming day: the shoe's sums are its days', and its days go on to the
        # tables' days (`finish`).
        by_day = wager_deviation_totals(wagers, paytables, {row[0]: (row[3], row[5]) for row in coups})
        if kept is not None:
            kept.keep(shoe.table_id, coups, by_day, side_bet_days(coups, wagers, worth))
        findings += shoe_deviations(shoe, by_day, max(row[3] for row in coups_by_shoe[shoe.pk]))
    return findings
