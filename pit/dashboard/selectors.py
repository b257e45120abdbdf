"""Reads for the pit boss's dashboard: every table at a glance in a fixed handful of queries.

One query for the tables (with their latest shoe and open violations as subqueries), one for
those shoes, one for their coups' results, one for the gaming day's wagers by table, paytable,
bet and hour, and one for the paytables' house edges: five, however many tables there are.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal

from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, TruncHour
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.compliance.selectors import OPEN
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.money import format_money, from_minor
from pit.core.percent import percent_of
from pit.game.roads import Result, roads, tally
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import paytable_edges
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.selectors import house_win_minor, wager_money_sums, wagers_standing
from pit.tables.models import Table


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
    last_hour = min(23, int((min(now, day_end) - day_start).total_seconds() // 3600)) if now >= day_start else 23
    tiles, series = [], []
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
                # Open and still holding (pit.compliance.selectors.OPEN): all, and today's apart.
                "open_violations": table.open_violations,
                "open_violations_today": table.open_violations_today,
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
                    "hold_percent": _percent(win, handle),
                    "theoretical_hold_percent": _percent(theoretical, handle),
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
    }
