"""Reads for the pit boss's dashboard: every table at a glance in a fixed handful of queries.

One query for the tables (with their latest shoe and open violations as subqueries), one for
those shoes, one for their coups' results, one for the gaming day's wagers by table, paytable,
bet and hour, one for the paytables' house edges, one for the floor map's positions, one for the
alarm events and one for the shift notes: eight, however many tables there are.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Sequence
from decimal import Decimal

from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce, TruncHour
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.compliance.selectors import OPEN
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.money import format_money, from_minor
from pit.core.percent import percent_of
from pit.dashboard.models import FloorPosition, ShiftNote
from pit.dashboard.services import shift_before, shift_of
from pit.game.roads import Result, roads, tally
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import paytable_edges
from pit.protection.selectors import alarm_groups, alarms_unreviewed
from pit.ratings.selectors import table_seats
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.selectors import house_win_minor, wager_money_sums, wagers_standing
from pit.tables.models import Table

# Hold against theoretical on the floor map: within HOLD_BAND percentage points of the theoretical
# hold is "near"; further above is "above" (the house wins more than the game gives it), below is
# "below" (the table pays more than the game should: the one to look at).
HOLD_BAND = Decimal("5")


def hold_band(hold_percent: str | None, theoretical_percent: str | None) -> str | None:
    """ "above", "near" or "below" theoretical; None with no handle today."""
    if hold_percent is None or theoretical_percent is None:
        return None
    difference = Decimal(hold_percent) - Decimal(theoretical_percent)
    if difference > HOLD_BAND:
        return "above"
    if difference < -HOLD_BAND:
        return "below"
    return "near"


def floor_positions(tables: Sequence[Table]) -> dict[int, tuple[int, int]]:
    """Table id -> (row, column) on the floor map: placed tables where the operator put them, the
    others after them in code order, filling rows as wide as the widest placed row (at least 4)."""
    cells = {
        table_id: (row, column)
        for table_id, row, column in FloorPosition.objects.values_list("table_id", "row", "column")
    }
    width = max([column for _, column in cells.values()] + [4])
    next_row = max([row for row, _ in cells.values()], default=0) + 1
    unplaced = [table for table in tables if table.pk not in cells]
    for index, table in enumerate(unplaced):
        cells[table.pk] = (next_row + index // width, index % width + 1)
    return cells


def shift_notes(*, now: dt.datetime) -> list[dict]:
    """The notes handed over to this shift (written in the shift before it) and those of this
    shift so far, newest first."""
    day, shift = shift_of(now)
    before_day, before = shift_before(day, shift)
    notes = ShiftNote.objects.filter(
        Q(gaming_day=day, shift=shift) | Q(gaming_day=before_day, shift=before)
    ).select_related("table", "written_by")
    return [
        {
            "id": note.pk,
            "text": note.text,
            "table": note.table.code if note.table is not None else None,
            "by": note.written_by.get_full_name() or note.written_by.get_username(),
            "written_at": note.written_at.isoformat(),
            "written_display": timezone.localtime(note.written_at).strftime("%Y-%m-%d %H:%M"),
            "handed_over": (note.gaming_day, note.shift) != (day, shift),
        }
        for note in notes[:20]
    ]


def _percent(part: Decimal, whole: Decimal) -> str | None:
    shown = percent_of(part, whole)  # the one rounding rule (pit.core.percent)
    return None if shown is None else str(shown)


def pit_overview(*, gaming_day: dt.date | None = None) -> dict:
    """Everything the dashboard shows, JSON-ready (money as decimal strings and display text)."""
    day = gaming_day or current_gaming_day()
    latest_shoe = Shoe.objects.filter(table=OuterRef("pk")).order_by("-sequence").values("pk")[:1]

    def open_count(violations):
        counted = violations.order_by().values("table").annotate(count=Count("pk")).values("count")
        return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))

    open_here = RuleViolation.objects.filter(OPEN, table=OuterRef("pk"))
    tables = list(
        Table.objects.select_related("paytable")
        .annotate(
            latest_shoe_id=Subquery(latest_shoe),
            open_violations=open_count(open_here),
            open_violations_today=open_count(open_here.filter(gaming_day=day)),
        )
        .order_by("code")
    )
    shoe_ids = [table.latest_shoe_id for table in tables if table.latest_shoe_id]
    shoes = Shoe.objects.in_bulk(shoe_ids) if shoe_ids else {}
    results: dict[int, list[Result]] = defaultdict(list)
    if shoe_ids:
        for shoe_id, winner, player_pair, banker_pair in (
            Coup.objects.filter(shoe_id__in=shoe_ids)
            .order_by("shoe_id", "number")
            .values_list("shoe_id", "winner", "player_pair", "banker_pair")
        ):
            results[shoe_id].append(Result(winner, player_pair, banker_pair))

    hourly = (
        wagers_standing(Wager.objects.filter(coup__gaming_day=day))
        .values(
            "coup__shoe__table_id", "coup__paytable_id", "coup__shoe__decks", "bet", hour=TruncHour("coup__dealt_at")
        )
        .annotate(**wager_money_sums())
        .order_by()
    )
    rows = list(hourly)
    paytable_ids = {row["coup__paytable_id"] for row in rows}
    rules = (
        dict(PaytableConfiguration.objects.filter(pk__in=paytable_ids).values_list("pk", "rules"))
        if paytable_ids
        else {}
    )
    day_start, day_end = gaming_day_bounds(day)
    hours = [day_start + dt.timedelta(hours=h) for h in range(24)]
    # table -> hour index -> [handle, win, theoretical]
    by_hour: dict[int, dict[int, list[Decimal]]] = defaultdict(lambda: defaultdict(lambda: [Decimal(0)] * 3))
    for row in rows:
        table_id = row["coup__shoe__table_id"]
        index = int((row["hour"] - day_start).total_seconds() // 3600)
        handle = Decimal(row["handle"])
        win = Decimal(house_win_minor(row))
        edges = paytable_edges(rules=rules[row["coup__paytable_id"]], decks=row["coup__shoe__decks"])
        theoretical = handle * edges.get(row["bet"], (Decimal(0), Decimal(0)))[0]
        cell = by_hour[table_id][index]
        cell[0] += handle
        cell[1] += win
        cell[2] += theoretical

    now = timezone.now()
    positions = floor_positions(tables)
    alarms_at: dict[int, int] = defaultdict(int)
    for group in alarm_groups(alarms_unreviewed()):
        alarms_at[group["table_id"]] += 1
    last_hour = min(23, int((min(now, day_end) - day_start).total_seconds() // 3600)) if now >= day_start else 23
    tiles, series = [], []
    seats = table_seats(tables, now=now)
    for table in tables:
        currency = table.currency
        shoe = shoes.get(table.latest_shoe_id)
        shoe_results = results.get(table.latest_shoe_id, [])
        hours_of_table = by_hour.get(table.pk, {})
        handle = sum((cell[0] for cell in hours_of_table.values()), Decimal(0))
        win = sum((cell[1] for cell in hours_of_table.values()), Decimal(0))
        theoretical = sum((cell[2] for cell in hours_of_table.values()), Decimal(0))
        theoretical_minor = int(theoretical.to_integral_value())
        points, running_handle, running_win = [], Decimal(0), Decimal(0)
        for index in range(last_hour + 1):
            hour_cell = hours_of_table.get(index)
            if hour_cell:
                running_handle += hour_cell[0]
                running_win += hour_cell[1]
            points.append(
                {
                    "hour": timezone.localtime(hours[index]).strftime("%H:%M"),
                    "hold": _percent(running_win, running_handle) if running_handle else None,
                }
            )
        series.append({"table": table.code, "points": points})
        hold_percent, theoretical_percent = _percent(win, handle), _percent(theoretical, handle)
        tiles.append(
            {
                "id": table.pk,
                "code": table.code,
                "name": table.name,
                "game": table.get_game_display(),
                "status": table.status,
                "status_display": table.get_status_display(),
                "paytable": str(table.paytable),
                "currency": currency,
                "position": {"row": positions[table.pk][0], "column": positions[table.pk][1]},
                # Unreviewed alarms at the table, one per event (pit.protection.selectors.alarm_groups).
                "alarms": alarms_at.get(table.pk, 0),
                "hold_band": hold_band(hold_percent, theoretical_percent),
                # Open and still holding (pit.compliance.selectors.OPEN): all, and today's apart.
                "open_violations": table.open_violations,
                "open_violations_today": table.open_violations_today,
                # Who sits where (pit.ratings.selectors.table_seats): card number, tier colour, rated, excluded.
                "seats": seats.get(table.pk, []),
                "shoe": None
                if shoe is None
                else {
                    "id": shoe.pk,
                    "sequence": shoe.sequence,
                    "status": shoe.status,
                    "coups": shoe.coups_recorded,
                    "cards_dealt": shoe.cards_dealt,
                    "cards_left_before_cut": shoe.cards_left_before_cut,
                    "cut_card_position": shoe.cut_card_position,
                    "total_cards": shoe.total_cards,
                    "tally": tally(shoe_results),
                    **roads(shoe_results),  # bead plate, big road, big eye boy, small road, cockroach pig
                },
                "today": {
                    "handle": str(from_minor(int(handle), currency)),
                    "win": str(from_minor(int(win), currency)),
                    "theoretical_win": str(from_minor(theoretical_minor, currency)),
                    "hold_percent": hold_percent,
                    "theoretical_hold_percent": theoretical_percent,
                    "handle_display": format_money(int(handle), currency),
                    "win_display": format_money(int(win), currency),
                    "theoretical_win_display": format_money(theoretical_minor, currency),
                },
            }
        )
    return {
        "gaming_day": day.isoformat(),
        "generated_at": now.isoformat(),
        "tables": tiles,
        "hold_chart": series,
        "shift_notes": shift_notes(now=now),
    }
