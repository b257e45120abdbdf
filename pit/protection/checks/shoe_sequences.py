"""`shoe_sequence_repeat` and `new_deck_order_run`: each shoe's dealt order indexed as shingles and
looked up in other shoes, and runs in new-deck order. Design: docs/design/protection-checks.md."""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter, defaultdict
from typing import Literal, overload

from django.conf import settings
from django.db.models import F

from pit import game
from pit.compliance.services import violation_record
from pit.core.rows import AnyOf, values_rows
from pit.game import sequences
from pit.game.sequences import NEW_DECK_RUN_LENGTH, SHINGLE_LENGTH
from pit.protection.checks.rows import PROTECTION_CHECK, CoupsByShoe
from pit.protection.models import CardShingle, IndexedShoe
from pit.protection.persistence import digests_held_by_two_shoes, shingles_matching
from pit.shoes.models import Coup, Shoe

logger = logging.getLogger(__name__)

# Per shoe with any: (per other shoe, its first repeat: (position here, position there, the coup of
# this shoe and of the other that completed the shingle); [(new-deck run, the coup that completed it)]).
SequencesFound = dict[int, tuple[dict[int, tuple[int, int, int, int]], list]]


class SharedDigests:
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
            self.digests = digests_held_by_two_shoes(*self.window)
            self.indexed = set()  # what this run indexed before is in the read
        return self.digests | self.indexed


def sequence_findings(shoes: list[Shoe], coups_by_shoe: CoupsByShoe, shared: SharedDigests | None = None) -> int:
    """Index the shoes' shingles, find them in other shoes, and runs in new-deck order; record them."""
    return sequences_record(sequences_found(shoes, coups_by_shoe, shared))


@overload
def sequences_found(
    shoes: list[Shoe],
    coups_by_shoe: CoupsByShoe,
    shared: SharedDigests | None = None,
    *,
    indexed_only: Literal[False] = False,
) -> SequencesFound: ...
@overload
def sequences_found(
    shoes: list[Shoe],
    coups_by_shoe: CoupsByShoe,
    shared: SharedDigests | None = None,
    *,
    indexed_only: bool,
) -> SequencesFound | None: ...
def sequences_found(
    shoes: list[Shoe],
    coups_by_shoe: CoupsByShoe,
    shared: SharedDigests | None = None,
    *,
    indexed_only: bool = False,
) -> SequencesFound | None:
    """Index the shoes' shingles, then find them in other shoes, and runs in new-deck order. Returns,
    per shoe with any, (per other shoe, its first repeat: (position here, position there, the coup of
    this shoe and of the other that completed the shingle); [(new-deck run, the coup that completed
    it)]), to record with `sequences_record`.

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


def sequences_record(found: SequencesFound) -> int:
    """Record what `sequences_found` found, shoe by shoe in id order. Returns the findings."""
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
    shared: SharedDigests | None,
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
    for row in shingles_matching(sorted(digests), first_day, last_day) if digests else ():
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
    dealt: dict[int, tuple[list[str], list[tuple]]], shared: SharedDigests, first_day: dt.date, last_day: dt.date
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
    for row in shingles_matching(sorted(digests), first_day, last_day) if digests else ():
        now[row[2]].append(row)
    for position_of in positions.values():
        for digest in [digest for digest in position_of if digest not in now]:
            del position_of[digest]
    return positions, lambda shoe_id, digest: now[digest]


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
