"""`win_deviation`: the house's win against theoretical, of the table and each seat, over the shoe,
the gaming day and the week. Design: docs/design/protection-checks.md."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal

from django.conf import settings

from pit.compliance.services import violation_record
from pit.core.money import exponent, from_minor
from pit.core.rows import values_rows
from pit.game import counting
from pit.protection.checks.paytables import Paytables
from pit.protection.checks.rows import PROTECTION_CHECK, WAGER_COLUMNS, WagerRow
from pit.protection.statistics import deviation_sums, deviation_sums_add, deviation_totals, z_score
from pit.shoes.models import Shoe, Wager, WagerResult
from pit.tables.models import Table

DAY_LEVEL_WEEK = 7


def wager_deviation_totals(
    wagers: Iterable[WagerRow], paytables: Paytables, coup_of: dict[int, tuple[dt.date, int]]
) -> dict[dt.date, dict[int | None, list]]:
    """The deviation sums of wagers in coup order, per gaming day (`coup_of`: each coup's day and paytable)."""
    return deviation_totals(wagers, coup_of, edges=paytables.edges, products=paytables.products, lose=WagerResult.LOSE)


def shoe_deviations(shoe: Shoe, by_day: dict[dt.date, dict[int | None, list]], last_day: dt.date) -> int:
    """The shoe's win against theoretical: its sums are its days' sums (`by_day`)."""
    totals = deviation_sums()
    for day_totals in by_day.values():
        deviation_sums_add(totals, day_totals)
    return deviation_findings(
        shoe.table,
        shoe,
        f"Shoe {shoe.sequence} at table {shoe.table.code}",
        f"shoe{shoe.pk}",
        settings.PIT_PROTECTION_Z_SHOE,
        totals,
        last_day,
    )


def table_day_deviations(
    table: Table,
    days: list[dt.date],
    paytables: Paytables,
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
                wager = WagerRow._make(row)
                rows.append(wager)
                coup_of[wager.coup_id] = (day, paytable_id)
        paytables.load({paytable_id for _, paytable_id in coup_of.values()})
        day_totals.update(wager_deviation_totals(rows, paytables, coup_of))
    findings = 0
    for day in days:
        findings += deviation_findings(
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
            week = deviation_sums()
            for back in range(DAY_LEVEL_WEEK - 1, -1, -1):
                deviation_sums_add(week, day_totals.get(day - dt.timedelta(days=back), {}))
            findings += deviation_findings(
                table,
                None,
                f"Table {table.code} over gaming days {start} to {day}",
                f"week{day}",
                settings.PIT_PROTECTION_Z_WEEK,
                week,
                day,
            )
    return findings


def deviation_findings(
    table: Table, shoe: Shoe | None, title: str, key: str, threshold, totals: dict[int | None, list], day: dt.date
) -> int:
    """Record the scope's win beyond `threshold` standard deviations of theoretical, for the table
    and for each seat."""
    scale = Decimal(1).scaleb(-exponent(table.currency))
    findings = 0
    for who, (win, theoretical, variance, count) in sorted(totals.items(), key=lambda i: (i[0] is not None, i[0])):
        if count < settings.PIT_PROTECTION_Z_MIN_WAGERS or variance <= 0:
            continue
        z, deviation = z_score(win, theoretical, variance)
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
