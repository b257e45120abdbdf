"""Reads of the daily rollups: which gaming days a report may read from them, and their sums.

A day is read from rollups only when it is complete, covered (`RolledUpDay`) and no refresh of it is
owed: no `rollups.shoe_refresh` waiting in the outbox (a write commits its outbox row with it, and the
task deletes the row only after the rollup it wrote committed) nor parked as failed. So a report
that reads rollups for those days and the detail for the others shows exactly the detail's figures.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from django.db.models import F

from pit.core.gaming_day import current_gaming_day
from pit.core.models import FailedTask, FailedTaskState, OutboxMessage
from pit.core.queues import REFRESH_TASK
from pit.shoes.models import Coup

from .models import BetRollup, RolledUpDay, TableDayRollup


def _owed_shoes() -> set[int]:
    args = [
        *OutboxMessage.objects.filter(task_name=REFRESH_TASK).values_list("args", flat=True),
        *FailedTask.objects.filter(task_name=REFRESH_TASK)
        .exclude(state=FailedTaskState.SUCCEEDED)
        .values_list("args", flat=True),
    ]
    return {arg[0] for arg in args if arg}


def rolled_up_days(*, date_from: dt.date, date_to: dt.date) -> set[dt.date]:
    """The days of the range a report may read from rollups (see the module docstring)."""
    covered = set(
        RolledUpDay.objects.filter(
            gaming_day__range=(date_from, date_to), gaming_day__lt=current_gaming_day()
        ).values_list("gaming_day", flat=True)
    )
    owed = _owed_shoes()
    if covered and owed:
        covered -= set(
            Coup.objects.filter(shoe_id__in=owed, gaming_day__in=covered)
            .values_list("gaming_day", flat=True)
            .distinct()
        )
    return covered


def day_segments(
    *, date_from: dt.date, date_to: dt.date, rolled_up: set[dt.date]
) -> Iterator[tuple[bool, dt.date, dt.date]]:
    """The range cut into runs of consecutive days: (read from rollups?, first day, last day)."""
    start, day = date_from, date_from
    while day <= date_to:
        following = day + dt.timedelta(days=1)
        if following > date_to or (following in rolled_up) != (day in rolled_up):
            yield day in rolled_up, start, day
            start = following
        day = following


def table_result_items(
    *, date_from: dt.date, date_to: dt.date, tables: Iterable[str] = (), game: str = ""
) -> Iterator[tuple[tuple[dt.date, str, str], int, dict[str, Any]]]:
    """The rollups of a range as the table results' streams give their items, keyed by (day,
    currency, table code) with the stream's number, in the order those streams merge: per table-day
    the coups (0), the wagers per paytable, decks and bet (1), the reversals (3), the deducted
    commission (4). Open violations (2) are not rolled up; the report reads them as always."""
    scope: dict[str, Any] = {"gaming_day__range": (date_from, date_to)}
    if tables:
        scope["table__code__in"] = list(tables)
    if game:
        scope["table__game"] = game
    days = TableDayRollup.objects.filter(**scope)
    table_days = {
        row["pk"]: row
        for row in days.values(
            "pk",
            "gaming_day",
            "coups",
            "reversed_minor",
            "table_id",
            code=F("table__code"),
            currency=F("table__currency"),
            table_game=F("table__game"),
        )
    }
    bets: dict[int, list[Mapping[str, Any]]] = {pk: [] for pk in table_days}
    for row in BetRollup.objects.filter(**{f"table_day__{name}": value for name, value in scope.items()}).values(
        "table_day_id",
        "paytable_id",
        "decks",
        "bet",
        "wagers",
        "handle_minor",
        "payouts_minor",
        "commission_minor",
        "lost_minor",
        "paid_minor",
        "overpaid_minor",
        "underpaid_minor",
        "squares",
        "deducted_minor",
    ):
        bets[row["table_day_id"]].append(row)
    for pk in sorted(table_days, key=lambda pk: _key(table_days[pk])):
        head = table_days[pk]
        key = _key(head)
        day, currency, code = key
        yield (
            key,
            0,
            {
                "day": day,
                "table": code,
                "game": head["table_game"],
                "currency": currency,
                "table_id": head["table_id"],
                "coups": head["coups"],
            },
        )
        deducted = 0
        for bet in sorted(bets[pk], key=lambda row: (row["paytable_id"], row["decks"], row["bet"])):
            deducted += bet["deducted_minor"]
            yield (
                key,
                1,
                {
                    "day": day,
                    "table_currency": currency,
                    "table": code,
                    "paytable": bet["paytable_id"],
                    "decks": bet["decks"],
                    "bet_type": bet["bet"],
                    "wagers": bet["wagers"],
                    "handle": bet["handle_minor"],
                    "payouts": bet["payouts_minor"],
                    "commission": bet["commission_minor"],
                    "lost": bet["lost_minor"],
                    "paid": bet["paid_minor"],
                    "overpaid": bet["overpaid_minor"],
                    "underpaid": bet["underpaid_minor"],
                    "squares": bet["squares"],
                },
            )
        yield key, 3, {"day": day, "table_currency": currency, "table": code, "reversed": head["reversed_minor"]}
        yield key, 4, {"day": day, "currency": currency, "table": code, "deducted": deducted}


def _key(row: Mapping[str, Any]) -> tuple[dt.date, str, str]:
    return row["gaming_day"], row["currency"], row["code"]
