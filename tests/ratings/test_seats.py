"""The dashboard's table tile shows who sits where: card number and tier colour, unrated players as
such, an excluded patron flagged; a patron who stood up is gone; no name is shown."""

import datetime as dt

import pytest
from django.utils import timezone

from pit.dashboard.selectors import pit_overview
from pit.players.models import Exclusion
from tests import factories
from tests.ratings import players
from tests.ratings.players import floor_seat, floor_session_event

pytestmark = pytest.mark.django_db


def test_the_tile_shows_the_seats():
    now = timezone.now()
    table = factories.table("BB1")
    gold = players.tier("gold", colour="#d4af37")
    alice = players.patron("C-1", "Alice Secret", tier_=gold)
    barred = players.patron("C-2", "Barred Person", tier_=players.tier("silver", colour="#c0c0c0", rank=1))
    Exclusion.objects.create(patron=barred, kind="self", starts_at=now - dt.timedelta(days=10), reason="asked")
    gone = players.patron("C-3")
    floor_seat(table=table, seat=1, at=now - dt.timedelta(minutes=30), patron=alice)
    floor_seat(table=table, seat=2, at=now - dt.timedelta(minutes=20), description="man, grey suit")
    floor_seat(table=table, seat=3, at=now - dt.timedelta(minutes=10), patron=barred)
    left = floor_seat(table=table, seat=5, at=now - dt.timedelta(minutes=40), patron=gone)
    floor_session_event(session=left, kind="stand", at=now - dt.timedelta(minutes=5))
    tile = next(t for t in pit_overview()["tables"] if t["code"] == "BB1")
    assert tile["seats"] == [
        {
            "seat": 1,
            "card": "C-1",
            "rated": True,
            "tier": "Gold",
            "colour": "#d4af37",
            "excluded": False,
            "paused": False,
        },
        {"seat": 2, "card": "", "rated": False, "tier": "", "colour": "", "excluded": False, "paused": False},
        {
            "seat": 3,
            "card": "C-2",
            "rated": True,
            "tier": "Silver",
            "colour": "#c0c0c0",
            "excluded": True,
            "paused": False,
        },
    ]
    assert "Alice" not in str(tile)
