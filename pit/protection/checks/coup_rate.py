"""`coup_rate_high`: more coups dealt at one table within 60 minutes than
PIT_PROTECTION_MAX_COUPS_PER_HOUR, once per table and clock hour (UTC)."""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from pit.compliance.services import violation_record
from pit.core.rows import values_rows
from pit.game import sequences
from pit.protection.checks.rows import PROTECTION_CHECK, CoupsByShoe
from pit.protection.statistics import hours_over
from pit.shoes.models import Coup, Shoe


def coup_rates(shoes: list[Shoe], coups_by_shoe: CoupsByShoe) -> int:
    """More coups than PIT_PROTECTION_MAX_COUPS_PER_HOUR dealt within 60 minutes at a table: each
    table's coups around the chunk's shoes read once."""
    maximum = settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR
    hour = dt.timedelta(hours=1)
    spans: dict[int, list[dt.datetime]] = {}
    for shoe in shoes:
        dealt = [row[4] for row in coups_by_shoe[shoe.pk]]
        low, high = min(dealt) - hour, max(dealt)
        span = spans.setdefault(shoe.table_id, [low, high])
        span[0], span[1] = min(span[0], low), max(span[1], high)
    at_table: dict[int, list[tuple]] = {}
    for table_id, (low, high) in spans.items():
        at_table[table_id] = values_rows(
            Coup.objects.filter(shoe__table_id=table_id, dealt_at__gt=low, dealt_at__lte=high)
            .order_by("dealt_at", "pk")
            .values_list("pk", "dealt_at")
        )
    findings = 0
    for shoe in shoes:
        rows = at_table[shoe.table_id]
        dealt = [row[4] for row in coups_by_shoe[shoe.pk]]
        times = [moment for _, moment in rows]
        # The table's coups dealt after an hour before the shoe's first, up to its last (as one query would).
        table_coups = rows[bisect.bisect_right(times, min(dealt) - hour) : bisect.bisect_right(times, max(dealt))]
        if len(table_coups) > maximum:
            findings += _coup_rate(shoe, coups_by_shoe[shoe.pk], table_coups)
    return findings


def _coup_rate(shoe: Shoe, coups: Sequence[tuple[Any, ...]], table_coups: list[tuple]) -> int:
    maximum = settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR
    over = hours_over(table_coups, {row[0] for row in coups}, maximum, dt.timedelta(hours=1))
    for pk, count, clock_hour in over:
        coup = Coup.objects.get(pk=pk)
        violation_record(
            finding=sequences.coup_rate_high(count, maximum),
            fingerprint=f"coup_rate_high:table{shoe.table_id}:{clock_hour}",
            table=shoe.table,
            shoe=shoe,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by=PROTECTION_CHECK,
        )
    return len(over)
