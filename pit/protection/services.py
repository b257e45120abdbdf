"""Writes of game protection that no coup triggers: a table whose feed went silent."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from pit.compliance.services import violation_record
from pit.core.gaming_day import gaming_day_for
from pit.game import sequences
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import TableStatus

FEED_CHECK = "game_protection"


def stale_feeds_check(*, now: dt.datetime | None = None) -> int:
    """Record `stale_feed` for every open table whose dealing shoe has sent no coup (or, before its
    first coup, was started) more than PIT_PROTECTION_STALE_FEED_MINUTES ago: once per silence,
    the fingerprint naming the last coup heard. Returns the number of silent shoes."""
    now = now or timezone.now()
    limit = dt.timedelta(minutes=settings.PIT_PROTECTION_STALE_FEED_MINUTES)
    shoes = (
        Shoe.objects.filter(status=ShoeStatus.DEALING, table__status=TableStatus.OPEN)
        .select_related("table")
        .annotate(last_heard=Max("coups__recorded_at"))
    )
    silent = 0
    for shoe in shoes:
        last_heard = shoe.last_heard or shoe.recorded_at
        if now - last_heard <= limit:
            continue
        silent += 1
        last_coup = Coup.objects.filter(shoe=shoe).order_by("-recorded_at", "-pk").first()
        minutes = int((now - last_heard).total_seconds() // 60)
        violation_record(
            finding=sequences.stale_feed(minutes, last_coup.number if last_coup else None),
            fingerprint=f"stale_feed:shoe{shoe.pk}:after{last_coup.pk if last_coup else 'start'}",
            table=shoe.table,
            shoe=shoe,
            coup=last_coup,
            gaming_day=gaming_day_for(now),
            found_by=FEED_CHECK,
        )
    return silent
