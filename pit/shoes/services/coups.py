"""Recording coups: one as the floor posts it, or a batch (a replay of a day), each evaluated and its
wagers settled by the engine; commission owed goes to the ledger in the same transaction. What is
well-formed but breaks a rule is stored and flagged, never refused; the rule checks run after commit."""

import dataclasses
import datetime as dt
from collections import Counter
from typing import cast

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_for
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.persistence import coup_insert, coup_lock, coups_insert
from pit.shoes.services.owed import COUP_FACTS, coups_owe, coups_owed
from pit.shoes.services.reposts import CoupRecord, repost_differences, repost_violation
from pit.shoes.services.settlement import PreparedCoup, Settled, coup_prepare
from pit.shoes.services.shoes import shoe_lock
from pit.shoes.services.values import CoupInput, CoupOutcome, CoupOutcomeStatus
from pit.tables.models import Table

_DAY_OF = "the coup's gaming day (of its dealt time): a late coup of a closed day is refused"


def _coup_day(item: PreparedCoup) -> dt.date:
    """The gaming day a prepared coup is recorded under, as its row will say."""
    dealt_at = item.item.dealt_at or timezone.now()
    if timezone.is_naive(dealt_at):  # as Django stores a naive time: in the default time zone
        dealt_at = timezone.make_aware(dealt_at)
    return gaming_day_for(dealt_at)


def _coups_recorded(shoe: Shoe, numbers: set[int]) -> dict[int, Coup]:
    """The shoe's coups recorded under these numbers, by number. One range over the shoe's
    (shoe, number) index rather than a placeholder per number (a day's batch sends 1,600)."""
    if not numbers:
        return {}
    in_range = Coup.objects.filter(shoe=shoe, number__range=(min(numbers), max(numbers)))
    return {coup.number: coup for coup in in_range if coup.number in numbers}


@day_write(writes=COUP_FACTS, day_of=_DAY_OF)
def coups_record(*, shoe: Shoe, coups: list[CoupInput], actor: Actor = SYSTEM) -> list[CoupOutcome]:
    """Record coups in one transaction, each judged on its own: created, existing (a replay: the same
    cards, wagers, reported winner and dealt time), conflict (same number, anything else differs: its
    differences in `errors`, a violation is recorded, nothing else written) or invalid (nothing written).
    A new coup of a closed gaming day refuses the whole batch (Conflict naming the day; nothing written)."""
    outcomes: list[CoupOutcome | None] = [None] * len(coups)
    with transaction.atomic():
        shoe = shoe_lock(shoe.pk)
        table = shoe.table
        paytable = engine_paytable(table.paytable)
        prepared: dict[int, PreparedCoup] = {}
        settled: Settled = {}
        for index, posting in enumerate(coups):
            try:
                prepared[index] = coup_prepare(posting, table, paytable, settled)
            except ValidationError as exc:
                outcomes[index] = CoupOutcome(CoupOutcomeStatus.INVALID, errors=exc.message_dict)
        existing = _coups_recorded(shoe, {item.item.number for item in prepared.values()})
        recorded_wagers: dict[int, list[Wager]] = {coup.pk: [] for coup in existing.values()}
        if existing:
            for wager in Wager.objects.filter(coup__shoe=shoe, coup__number__range=(min(existing), max(existing))).only(
                "coup_id", "seat", "bet", "amount_minor", "paid_minor"
            ):
                if wager.coup_id in recorded_wagers:
                    recorded_wagers[wager.coup_id].append(wager)
        to_store: list[tuple[int, PreparedCoup]] = []
        in_batch: dict[int, int] = {}
        batch_conflicts: list[tuple[int, PreparedCoup]] = []
        for index, item in prepared.items():
            number = item.item.number
            if number in in_batch and number not in existing:
                # The same number twice in one batch: judged against the first, which is stored now.
                first, posted = prepared[in_batch[number]], CoupRecord.posted(item)
                differences = repost_differences(
                    dataclasses.replace(CoupRecord.posted(first), dealt_at=first.item.dealt_at or posted.dealt_at),
                    posted,
                    table.currency,
                )
                outcomes[index] = CoupOutcome(
                    CoupOutcomeStatus.CONFLICT if differences else CoupOutcomeStatus.EXISTING, errors=differences
                )
                if differences:
                    batch_conflicts.append((index, item))
                continue
            in_batch.setdefault(number, index)
            if number in existing:
                coup = existing[number]
                differences = repost_differences(
                    CoupRecord.recorded(coup, recorded_wagers[coup.pk]), CoupRecord.posted(item), table.currency
                )
                if not differences:
                    outcomes[index] = CoupOutcome(CoupOutcomeStatus.EXISTING, coup=coup)
                else:
                    violation = repost_violation(shoe, coup, item, differences)
                    outcomes[index] = CoupOutcome(
                        CoupOutcomeStatus.CONFLICT, coup=coup, errors=differences, violation=violation
                    )
            else:
                to_store.append((index, item))
        if to_store:
            new = [item for _, item in to_store]
            days_ensure_open(_coup_day(item) for item in new)
            _count_cards(shoe, new)
            stored = coups_insert(shoe, new, actor)  # every row hashed in memory as it is inserted; the head once
            for (index, item), coup in zip(to_store, stored, strict=True):
                outcomes[index] = CoupOutcome(CoupOutcomeStatus.CREATED, coup=coup, wagers=item.wagers)
            coups_owe(shoe, stored)
        # A batch's own duplicate refers to the coup stored for the first of them; if it differs it
        # is flagged as it would be had it been posted after the first (one violation per posting).
        # Every coup has its outcome by now: invalid, or judged above.
        judged = cast("list[CoupOutcome]", outcomes)
        for index, outcome in enumerate(judged):
            duplicate = outcome.status in (CoupOutcomeStatus.EXISTING, CoupOutcomeStatus.CONFLICT)
            if duplicate and outcome.coup is None:
                outcome.coup = judged[in_batch[coups[index].number]].coup
        for index, item in batch_conflicts:
            conflict = judged[index]  # its coup is the first's, stored above
            conflict.violation = repost_violation(shoe, cast(Coup, conflict.coup), item, conflict.errors)
    return judged


class ShoeAtOtherTable(Exception):
    """`coup_record(at_table=...)` was given a shoe dealing at another table (`table`); nothing was written."""

    def __init__(self, table: Table):
        super().__init__(f"The shoe deals at table {table.code}.")
        self.table = table


@day_write(writes=COUP_FACTS, day_of=_DAY_OF)
def coup_record(
    *, shoe: Shoe | int, coup: CoupInput, actor: Actor = SYSTEM, at_table: int | None = None
) -> CoupOutcome:
    """Record one coup. ValidationError if malformed (nothing written); Conflict naming the differences
    if its number was recorded with anything else (the violation is committed first); a replay returns
    the existing coup; Shoe.DoesNotExist if there is no such shoe. `at_table`: the id of the one table
    the actor records for (a floor device's own); a shoe of another raises ShoeAtOtherTable.

    The floor posts coups one by one as they are dealt, so this is the path to keep short: one read
    with every lock (`coup_lock`), the inserts, the chain head and the shoe's counters, the outbox
    row; a coup's number seen before goes the batch's way (`coups_record`) to be compared.

    Inside a caller's transaction its block takes no savepoint (two round trips of every coup the
    floor posts): its refusals are raised after the block, before anything is written, and any other
    error fails the caller's transaction with it."""
    shoe_id = shoe if isinstance(shoe, int) else shoe.pk
    try:
        with transaction.atomic(savepoint=False):
            outcome = _coup_record_once(shoe_id, coup, actor, at_table)
    except IntegrityError:
        if connection.in_atomic_block:
            raise  # no savepoint to roll back to: the caller's transaction fails with it
        # Two writers raced past the shoe lock only if the database has none (it always has on
        # PostgreSQL and SQLite); the unique constraint still holds: read what won.
        with transaction.atomic():
            outcome = _coup_record_once(shoe_id, coup, actor, at_table)
    if isinstance(outcome, Exception):
        raise outcome
    if outcome.status == CoupOutcomeStatus.INVALID:
        raise ValidationError(outcome.errors)
    if outcome.status == CoupOutcomeStatus.CONFLICT:
        cards = "other cards" if {"player", "banker"} & set(outcome.errors) else "other values"
        recorded = cast(Coup, outcome.coup)  # a conflict names the coup recorded
        raise Conflict(
            gettext(
                "Coup {coup_number} of {recorded_shoe} was recorded with {cards} "
                "(player {names}, banker {names_2}); the repost differs in {names_3}. "
                "Nothing of it was written; a violation is recorded for the pit boss."
            ).format(
                coup_number=coup.number,
                recorded_shoe=recorded.shoe,
                cards=cards,
                names=" ".join(recorded.player_cards),
                names_2=" ".join(recorded.banker_cards),
                names_3=", ".join(outcome.errors),
            ),
            errors=outcome.errors,
            coup_id=recorded.pk,
            violation_id=getattr(outcome.violation, "pk", None),
        )
    return outcome


def _coup_record_once(shoe_id: int, coup: CoupInput, actor: Actor, at_table: int | None) -> CoupOutcome | Exception:
    """`coup_record`'s block. A refusal (no such shoe, a shoe of another table, a malformed coup) is
    returned, not raised: raised out of a block without a savepoint it would fail the caller's transaction."""
    wagers = len(coup.wagers) if isinstance(coup.wagers, list | tuple) else 0
    try:
        locked = coup_lock(shoe_id, coup.number, wagers)
    except Shoe.DoesNotExist as exc:
        return exc
    if at_table is not None and locked.shoe.table_id != at_table:
        return ShoeAtOtherTable(locked.shoe.table)
    if locked.recorded:
        (outcome,) = coups_record(shoe=locked.shoe, coups=[coup], actor=actor)
        return outcome
    shoe, table = locked.shoe, locked.shoe.table
    try:
        prepared = coup_prepare(coup, table, engine_paytable(table.paytable))
    except ValidationError as exc:
        return exc
    try:
        days_ensure_open([_coup_day(prepared)])
    except Conflict as exc:
        return exc
    _count_cards(shoe, [prepared])
    stored = coup_insert(
        locked, prepared, actor, owed=lambda coup_ids, first_day: coups_owed(shoe, coup_ids, first_day)
    )
    return CoupOutcome(CoupOutcomeStatus.CREATED, coup=stored, wagers=prepared.wagers)


def _count_cards(shoe: Shoe, prepared: list[PreparedCoup]) -> None:
    """The shoe's counters (cards seen, cards dealt, coups recorded) with these coups, in memory."""
    seen = Counter(shoe.cards_seen)
    for item in prepared:
        seen.update(card.code for card in (*item.player, *item.banker))
    shoe.cards_seen = dict(sorted(seen.items()))
    shoe.cards_dealt += sum(len(item.player) + len(item.banker) for item in prepared)
    shoe.coups_recorded += len(prepared)
