"""Game protection checks, run with the rule checks (the per-coup task and the nightly sweep call
`protection_check_shoes` from `pit.compliance.checks`): each finding is a RuleViolation with an
engine-registered code, recorded once per fingerprint, reviewed by pit bosses like any other.

- `shoe_sequence_repeat`: every shoe's dealt order is indexed as shingles of `SHINGLE_LENGTH`
  consecutive cards (CardShingle); a shingle of a shoe found in another shoe of the pit on the same
  or the previous `PIT_PROTECTION_REPEAT_DAYS` gaming days is a repeat, charged to the later shoe
  (by id) at the coup that completed its first repeated shingle.
- `new_deck_order_run`: `NEW_DECK_RUN_LENGTH` or more cards in a row in new-deck order within a shoe.
"""
from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction

from pit import game
from pit.compliance.services import violation_record
from pit.game import sequences
from pit.game.sequences import NEW_DECK_RUN_LENGTH, SHINGLE_LENGTH
from pit.protection.models import CardShingle
from pit.shoes.models import Coup, Shoe

logger = logging.getLogger(__name__)

PROTECTION_CHECK = "game_protection"


def protection_check_shoes(*, shoe_ids: Iterable[int]) -> int:
    """Index and check each shoe; returns the number of findings that hold (each recorded once)."""
    holding = 0
    for shoe_id in sorted(set(shoe_ids)):
        with transaction.atomic():
            holding += _shoe_check(shoe_id)
    return holding


def _shoe_check(shoe_id: int) -> int:
    shoe = Shoe.objects.select_related("table").get(pk=shoe_id)
    coups = list(
        Coup.objects.filter(shoe_id=shoe_id).order_by("number", "pk").values_list(
            "pk", "player_cards", "banker_cards", "gaming_day"
        )
    )
    if not coups:
        return 0
    try:
        codes, owners = sequences.concatenated((player, banker) for _, player, banker, _ in coups)
    except (ValueError, game.InvalidCard):
        logger.warning("shoe %s: cards that name no card; its sequence is not indexed", shoe_id)
        return 0
    coup_of = [coups[index] for index in owners]
    shingles = sequences.shingles(codes)
    _index(shoe, shingles, coup_of)

    findings = 0
    first_day = coups[0][3] - dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
    last_day = coups[-1][3] + dt.timedelta(days=settings.PIT_PROTECTION_REPEAT_DAYS)
    position_of = {}
    for position, digest in shingles:
        position_of.setdefault(digest, position)
    matches = (
        CardShingle.objects.filter(
            digest__in=list(position_of), gaming_day__gte=first_day, gaming_day__lte=last_day
        )
        .exclude(shoe_id=shoe_id)
        .order_by("shoe_id", "position")
        .values_list("shoe_id", "position", "digest", "coup_id")
    )
    first_match: dict[int, tuple[int, int, int]] = {}
    for other_id, other_position, digest, other_coup_id in matches:
        first_match.setdefault(other_id, (position_of[digest], other_position, other_coup_id))
    others = Shoe.objects.select_related("table").in_bulk(list(first_match))
    for other_id, (position, other_position, other_coup_id) in first_match.items():
        other = others[other_id]
        # Charged to the later shoe, at the coup that completed its first repeated shingle.
        if shoe_id > other_id:
            later, earlier, at, earlier_at = shoe, other, position, other_position
            coup_id = coup_of[position + SHINGLE_LENGTH - 1][0]
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
            finding=finding, fingerprint=f"shoe_sequence_repeat:shoe{later.pk}:shoe{earlier.pk}",
            table=later.table, shoe=later, coup=coup, gaming_day=coup.gaming_day, found_by=PROTECTION_CHECK,
        )
        findings += 1

    for run in sequences.new_deck_runs(codes):
        coup = Coup.objects.get(pk=coup_of[run.start + NEW_DECK_RUN_LENGTH - 1][0])
        violation_record(
            finding=sequences.new_deck_order_run(run),
            fingerprint=f"new_deck_order_run:shoe{shoe_id}:card{run.start}",
            table=shoe.table, shoe=shoe, coup=coup, gaming_day=coup.gaming_day, found_by=PROTECTION_CHECK,
        )
        findings += 1
    return findings


def _index(shoe: Shoe, shingles: list[tuple[int, int]], coup_of: list[tuple]) -> None:
    """Bring the shoe's shingles in the index up to date: new positions added, positions whose
    cards changed (a coup corrected or posted late) rewritten, positions past the end removed."""
    stored = dict(CardShingle.objects.filter(shoe=shoe).values_list("position", "digest"))
    wanted = dict(shingles)
    changed = [position for position, digest in stored.items() if wanted.get(position) != digest]
    if changed:
        CardShingle.objects.filter(shoe=shoe, position__in=changed).delete()
    CardShingle.objects.bulk_create(
        [
            CardShingle(
                shoe=shoe, table_id=shoe.table_id, position=position, digest=digest,
                gaming_day=coup_of[position][3], coup_id=coup_of[position + SHINGLE_LENGTH - 1][0],
            )
            for position, digest in shingles
            if stored.get(position) != digest
        ],
        batch_size=1000,
    )
