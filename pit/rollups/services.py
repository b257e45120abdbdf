"""Write the daily rollups from the standing detail, one gaming day (or one table-day) at a time.

A table-day's rollup is recomputed whole, by a few aggregate queries over what stands
(`pit.shoes.selectors.wagers_standing`, reversals in the ledger), never incremented: a refresh run
twice, or late, writes the same rows. Refreshes of one gaming day are serialized (a PostgreSQL
advisory lock), so an older snapshot never overwrites a newer one. Only complete gaming days are
rolled up: the live day is read from the detail.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db import transaction
from django.db.models import Count, Max, Sum
from django.utils import timezone

from pit import game
from pit.compliance.services import quarantine_hold
from pit.core.db import advisory_xact_lock, sum_of_squares
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.money import from_minor, settlement_unit, to_minor
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Coup, CoupCorrection, Shoe, Wager, WagerResult
from pit.shoes.selectors import wager_money_sums, wagers_standing

from .models import BetRollup, RolledUpDay, TableDayRollup
from .results import mispay_sums


def _day_lock(day: dt.date) -> None:
    advisory_xact_lock(f"pit.rollups:{day}")


def _deducted(day: dt.date, table_ids) -> dict[tuple, int]:
    """Per (table, paytable, decks, bet): the commission a deducting paytable took off the payouts of
    the day's standing winning wagers, settled again by the engine (a wager stores the net payout)."""
    deducting = [
        pk
        for pk, rules in PaytableConfiguration.objects.values_list("pk", "rules")
        if rules.get("commission_mode") == game.CommissionMode.DEDUCTED
    ]
    totals: dict[tuple, int] = defaultdict(int)
    if not deducting:
        return totals
    wagers = wagers_standing(
        Wager.objects.filter(
            coup__gaming_day=day,
            coup__paytable_id__in=deducting,
            result=WagerResult.WIN,
            coup__shoe__table_id__in=table_ids,
        )
    ).values_list(
        "coup__shoe__table_id",
        "coup__paytable_id",
        "coup__shoe__decks",
        "bet",
        "amount_minor",
        "currency",
        "coup__player_cards",
        "coup__banker_cards",
    )
    paytables: dict[int, game.Paytable] = {}
    for table_id, paytable_id, decks, bet, amount, currency, player, banker in wagers.iterator(chunk_size=2000):
        if paytable_id not in paytables:
            paytables[paytable_id] = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
        evaluation = game.evaluate(game.Coup(player=player, banker=banker))
        settlement = game.settle(
            paytables[paytable_id], bet, from_minor(amount, currency), evaluation, unit=settlement_unit(currency)
        )
        totals[table_id, paytable_id, decks, bet] += to_minor(settlement.deducted, currency)
    return totals


def _detail_marks(day: dt.date, table_ids=None) -> dict[int, dict]:
    """Per table that played on `day`: its coups and the marks of its detail (highest coup,
    correction and accrual-reversal ids), which a rollup keeps and the catch-up compares."""
    coups = Coup.objects.filter(gaming_day=day)
    if table_ids is not None:
        coups = coups.filter(shoe__table_id__in=table_ids)
    marks = {
        row["shoe__table_id"]: {
            "coups": row["coups"],
            "coup_mark": row["mark"],
            "correction_mark": 0,
            "reversal_mark": 0,
        }
        for row in coups.values("shoe__table_id").order_by().annotate(coups=Count("pk"), mark=Max("pk"))
    }
    corrections = CoupCorrection.objects.filter(coup__gaming_day=day, coup__shoe__table_id__in=list(marks))
    for table_id, mark in corrections.values_list("coup__shoe__table_id").order_by().annotate(Max("pk")):
        marks[table_id]["correction_mark"] = mark
    reversals = CommissionEntry.objects.filter(
        kind=EntryKind.REVERSAL,
        reverses__kind=EntryKind.ACCRUED,
        reverses__wager__coup__gaming_day=day,
        shoe__table_id__in=list(marks),
    )
    for table_id, mark in reversals.values_list("shoe__table_id").order_by().annotate(Max("pk")):
        marks[table_id]["reversal_mark"] = mark
    return marks


def _write(day: dt.date, table_ids=None) -> int:
    """Recompute the rollups of `day` (every table, or only `table_ids`) from the detail; returns the
    table-days written. Call inside a transaction holding the day's lock."""
    marks = _detail_marks(day, table_ids)
    stale = TableDayRollup.objects.filter(gaming_day=day)
    if table_ids is not None:
        stale = stale.filter(table_id__in=table_ids)
    stale.delete()
    if not marks:
        return 0
    played = list(marks)
    reversed_ = dict(
        CommissionEntry.objects.filter(
            kind=EntryKind.REVERSAL,
            reverses__kind=EntryKind.ACCRUED,
            reverses__wager__in=wagers_standing(Wager.objects.filter(coup__gaming_day=day)).values("pk"),
            reverses__wager__coup__gaming_day=day,
            shoe__table_id__in=played,
        )
        .values_list("shoe__table_id")
        .order_by()
        .annotate(Sum("amount_minor"))
    )
    rollups = TableDayRollup.objects.bulk_create(
        [
            TableDayRollup(table_id=table_id, gaming_day=day, reversed_minor=reversed_.get(table_id, 0), **figures)
            for table_id, figures in sorted(marks.items())
        ]
    )
    by_table = {rollup.table_id: rollup for rollup in rollups}
    deducted = _deducted(day, played)
    bets = (
        wagers_standing(Wager.objects.filter(coup__gaming_day=day, coup__shoe__table_id__in=played))
        .values("coup__shoe__table_id", "coup__paytable_id", "coup__shoe__decks", "bet")
        .order_by()
        .annotate(wagers=Count("pk"), **wager_money_sums(), **mispay_sums(), squares=sum_of_squares("amount_minor"))
    )
    BetRollup.objects.bulk_create(
        [
            BetRollup(
                table_day=by_table[row["coup__shoe__table_id"]],
                paytable_id=row["coup__paytable_id"],
                decks=row["coup__shoe__decks"],
                bet=row["bet"],
                wagers=row["wagers"],
                handle_minor=row["handle"],
                payouts_minor=row["payouts"],
                commission_minor=row["commission"],
                lost_minor=row["lost"],
                paid_minor=row["paid"],
                overpaid_minor=row["overpaid"],
                underpaid_minor=row["underpaid"],
                squares=row["squares"] or 0,
                deducted_minor=deducted.get(
                    (row["coup__shoe__table_id"], row["coup__paytable_id"], row["coup__shoe__decks"], row["bet"]), 0
                ),
            )
            for row in bets
        ],
        batch_size=1000,
    )
    return len(rollups)


# A gaming day is rolled up this long after its end at the earliest: a coup of the day still being
# written when it ended (the write owes no refresh: its day was live) has committed by then.
COMPLETE_AFTER = dt.timedelta(minutes=10)


def _complete(day: dt.date) -> bool:
    return gaming_day_bounds(day)[1] + COMPLETE_AFTER <= timezone.now()


@transaction.atomic
def rollup_day_rebuild(*, day: dt.date) -> int:
    """Roll up a whole complete gaming day from the detail (every table) and mark it covered;
    returns the table-days written. An incomplete day is left to the detail (0)."""
    if not _complete(day):
        return 0
    _day_lock(day)
    written = _write(day)
    RolledUpDay.objects.update_or_create(gaming_day=day)
    return written


@transaction.atomic
def rollup_table_day_refresh(*, table_id: int, day: dt.date) -> int:
    """Recompute one table's rollup of a covered day (its detail changed). Days not covered yet are
    left to the catch-up or `rebuild_rollups`, which roll up the whole day."""
    _day_lock(day)
    if not RolledUpDay.objects.filter(gaming_day=day).exists():
        return 0
    return _write(day, [table_id])


def rollups_shoe_refresh(*, shoe_id: int) -> int:
    """What a write to a shoe owes: refresh the rollups of the complete days its coups belong to.
    A coup of the live day costs one small query and writes nothing; a quarantined shoe (its chain
    broken) refreshes nothing, and a `derivation_quarantined` finding says so."""
    shoe = Shoe.objects.select_related("table").filter(pk=shoe_id).first()
    if shoe is None:
        return 0
    days = list(
        Coup.objects.filter(shoe_id=shoe_id, gaming_day__lt=current_gaming_day())
        .values_list("gaming_day", flat=True)
        .distinct()
        .order_by("gaming_day")
    )
    if days and quarantine_hold(
        shoe_ids=[shoe_id],
        derived="rollups",
        what=f"The rollups' refresh of {shoe}",
        table=shoe.table,
        gaming_day=days[-1],
        shoe=shoe,
    ):
        return 0
    return sum(rollup_table_day_refresh(table_id=shoe.table_id, day=day) for day in days)


def rollups_catch_up(*, days: int) -> dict[str, int]:
    """The safety net (beat): the last `days` complete gaming days are rolled up if not yet, and a
    table-day whose detail marks differ from its rollup's (a write that owed no refresh, a refresh
    parked as failed) is recomputed. Cheap: one aggregate of marks per day."""
    today = current_gaming_day()
    counts = {"days": 0, "table_days": 0}
    for offset in range(days, 0, -1):
        day = today - dt.timedelta(days=offset)
        if not _complete(day):
            continue
        if not RolledUpDay.objects.filter(gaming_day=day).exists():
            rollup_day_rebuild(day=day)
            counts["days"] += 1
            continue
        detail = _detail_marks(day)
        kept = {
            row["table_id"]: {key: value for key, value in row.items() if key != "table_id"}
            for row in TableDayRollup.objects.filter(gaming_day=day).values(
                "table_id", "coups", "coup_mark", "correction_mark", "reversal_mark"
            )
        }
        for table_id in sorted(detail.keys() | kept.keys()):
            if detail.get(table_id) != kept.get(table_id):
                rollup_table_day_refresh(table_id=table_id, day=day)
                counts["table_days"] += 1
    return counts


def rollups_rebuild(*, date_from: dt.date, date_to: dt.date) -> dict[str, int]:
    """Roll up every complete gaming day of a range (`manage.py rebuild_rollups`)."""
    counts = {"days": 0, "table_days": 0}
    day = date_from
    while day <= date_to and _complete(day):
        counts["table_days"] += rollup_day_rebuild(day=day)
        counts["days"] += 1
        day += dt.timedelta(days=1)
    return counts
