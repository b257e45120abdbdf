"""Table-limit changes on a simulated floor, as a well-run pit makes them around the play the dealer
recorded: on a share of its gaming days (RAISE_SHARE) a table's Player and Banker minimum is doubled
for the day's last shoe, announced while players are seated, and put back once the shoe is over.

Where the jurisdiction keeps seated players on the minimum they sat down under (grandfathering,
e.g. OAC 3772-11-04), the raise takes effect as soon as its notice allows (COMAR 36.05.03.21: 30
minutes), and the seated players go on betting the old minimum (it is announced when no player sits
down at the table after it takes effect: the simulated players bet the minimum they find); elsewhere
it is announced at least the notice before the shoe ends and takes effect when it does. Either way
the day's sweep of the rule checks, which judges each wager by the limits of its time and each
grandfathered seat by the limits it sat down under, finds no limit violation.

The lapse `kept_raise` (a raise never put back) is found by the rule checks: the next gaming day's
players bet the old minimum under the raised one, `wager_under_minimum` at that table. A raise is
made only on a day the table plays again after, so that every lapse has play to be found in.
"""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

from pit import game
from pit.compliance.checks import coups_sweep
from pit.core.gaming_day import gaming_day_bounds
from pit.core.jurisdictions import jurisdiction
from pit.core.money import from_minor
from pit.floor.simulator import InjectedFault
from pit.shoes.models import Coup, Shoe, Wager
from pit.tables.models import LimitChange, Table, TableLimitVersion
from pit.tables.services import table_limits_apply_due, table_limits_set

RAISE_SHARE = 0.1  # of the table-days with play after them
LIMIT_FAULT_CODES = {"kept_raise": "wager_under_minimum"}
MINUTE = dt.timedelta(minutes=1)


def _limits(table: Table) -> dict[str, tuple[Decimal, Decimal]]:
    return {
        limit.bet: (from_minor(limit.minimum_minor, table.currency), from_minor(limit.maximum_minor, table.currency))
        for limit in table.limits.all()
    }


def _posted(table: Table, since: dt.datetime) -> None:
    """The limits in force posted from before the first play (a table set up after the days it
    played, as a simulated one is, would judge the earlier play by the first change)."""
    if not TableLimitVersion.objects.filter(table=table, effective_from__lte=since).exists() and table.limits.exists():
        table_limits_set(table=table, limits=_limits(table), effective_from=since, now=since)


def _sessions(shoe: Shoe, gap: dt.timedelta) -> list[tuple[dt.datetime, dt.datetime]]:
    """Each seat's continuous play in the shoe, (first wager, last wager): its wagers with no gap
    longer than the jurisdiction's continuous-play gap."""
    plays: dict[int, list[dt.datetime]] = {}
    for seat, moment in (
        Wager.objects.filter(coup__shoe=shoe).order_by("coup__dealt_at").values_list("seat", "coup__dealt_at")
    ):
        plays.setdefault(seat, []).append(moment)
    sessions = []
    for moments in plays.values():
        start = previous = moments[0]
        for moment in moments[1:]:
            if moment - previous > gap:
                sessions.append((start, previous))
                start = moment
            previous = moment
        sessions.append((start, previous))
    return sessions


def _announced(shoe: Shoe, moments: list[dt.datetime], ended: dt.datetime, notice: dt.timedelta, rules):
    """When the raise is announced: where seated players keep their minimum, at the first coup from a
    third into the shoe whose notice ends after every seat still playing then sat down (a simulated
    player who sat down later would bet the minimum found, which a pit would not accept under the
    raised one); elsewhere the notice and ten minutes before the shoe ends. None: no moment of the
    shoe will do."""
    latest = ended - notice - MINUTE
    if not rules.grandfathering:
        return next((moment for moment in moments if moment >= ended - notice - 10 * MINUTE and moment <= latest), None)
    sessions = _sessions(shoe, dt.timedelta(minutes=rules.continuous_play_minutes))
    for moment in moments[len(moments) // 3 :]:
        effective = moment + notice
        if moment > latest:
            return None
        if all(start < effective for start, end in sessions if end >= effective):
            return moment
    return None


def simulate_limit_changes(*, seed: int = 0, faults: dict[str, float] | None = None, user=None) -> list[InjectedFault]:
    """The evening raises of the play recorded so far, and the sweep of the days they touched. Safe
    to run twice: a table-day with a limit change announced is left as it is."""
    rates = {**dict.fromkeys(LIMIT_FAULT_CODES, 0.0), **(faults or {})}
    rules = jurisdiction()
    notice = dt.timedelta(minutes=rules.limit_notice_minutes)
    played = sorted(set(Coup.objects.values_list("shoe__table_id", "gaming_day")))
    days_of: dict[int, list[dt.date]] = {}
    for table_id, day in played:
        days_of.setdefault(table_id, []).append(day)
    injected: list[InjectedFault] = []
    swept: set[dt.date] = set()
    for table_id, days in sorted(days_of.items()):
        table = Table.objects.get(pk=table_id)
        first = Coup.objects.filter(shoe__table=table).order_by("dealt_at").values_list("dealt_at", flat=True).first()
        if first is None:
            continue
        _posted(table, first - dt.timedelta(days=1))
        for day, next_day in zip(days, days[1:], strict=False):
            rng = random.Random(f"pit-floor-limits:{seed}:{table.code}:{day}")
            if rng.random() >= RAISE_SHARE:
                continue
            start, end = gaming_day_bounds(day)
            if LimitChange.objects.filter(table=table, announced_at__gte=start, announced_at__lt=end).exists():
                continue
            shoes = Shoe.objects.filter(
                table=table, shuffled_at__gte=start, shuffled_at__lt=end, closed_at__isnull=False
            )
            last = shoes.order_by("-shuffled_at").first()
            if last is None:
                continue
            moments = list(Coup.objects.filter(shoe=last).order_by("dealt_at").values_list("dealt_at", flat=True))
            if not moments:
                continue
            ended = moments[-1] + MINUTE
            announced = _announced(last, moments, ended, notice, rules)
            if announced is None:
                continue  # a shoe too short for the notice, or players sitting down all through it
            table_limits_apply_due(table=table, now=announced)
            before = _limits(table)
            raised = {
                bet: (low * 2, max(high, low * 2)) if bet in game.MAIN_BETS else (low, high)
                for bet, (low, high) in before.items()
            }
            table_limits_set(
                table=table,
                limits=raised,
                effective_from=None if rules.grandfathering else ended,
                user=user,
                now=announced,
            )
            if rng.random() < rates["kept_raise"]:
                injected.append(
                    InjectedFault(
                        "kept_raise",
                        LIMIT_FAULT_CODES["kept_raise"],
                        table.code,
                        last.sequence,
                        gaming_day=next_day,
                        detail=f"the raised minimum of {day} kept; {next_day}'s players bet the old one",
                    )
                )
            else:
                table_limits_set(table=table, limits=before, user=user, now=ended + MINUTE)
            swept |= {day, next_day}
    for day in sorted(swept):
        coups_sweep(first_day=day, last_day=day)
    return injected
