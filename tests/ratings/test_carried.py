"""A rating carried forward (the stored sums plus the new coups', `pit.ratings.services._carried`)
is the rating recomputed whole, after every refresh: coups posted in order, a late one, a correction,
a void, a pause and a resume, an estimate, an identification and a stand-up, on a paytable that
deducts commission (a winning Banker's commission is settled again) and on one that owes it."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.players.models import SeatSession
from pit.ratings import services
from pit.ratings.models import SessionRating
from pit.ratings.services import average_bet_estimate, ratings_refresh, session_rate
from pit.shoes.models import Coup
from pit.shoes.services import coup_correct, coup_void
from tests import factories
from tests.ratings import players
from tests.ratings.players import floor_identify, floor_seat, floor_session_event
from tests.shoes import hands

HANDS = [hands.BANKER_NATURAL, hands.PLAYER_NATURAL, hands.TIE, hands.BANKER_SIX, hands.PLAYER_PAIR, hands.DRAGON_7]
SKIPPED = {"id", "refreshed_at"}


def _figures(rating: SessionRating) -> dict:
    return {
        field.attname: getattr(rating, field.attname)
        for field in SessionRating._meta.concrete_fields
        if field.attname not in SKIPPED
    }


def _agree(table) -> None:
    """Every stored rating of the table is the one recomputed whole from the facts now."""
    for session in SeatSession.objects.filter(table=table):
        stored = SessionRating.objects.get(session=session)
        whole = session_rate(session)
        assert _figures(stored) == _figures(whole), session.seat
        assert stored.theo == whole.theo


@pytest.mark.parametrize("preset", ["commission_deducted", "commission_box"])
def test_a_rating_carried_forward_is_the_rating_recomputed_whole(db, monkeypatch, preset):
    carried = []
    original = services._carried  # noqa: SLF001 (counted, to show the carried path runs)

    def counting(*args):
        found = original(*args)
        carried.extend(found)
        return found

    monkeypatch.setattr(services, "_carried", counting)
    for cached in (services._deducts, services._deducted_minor, services._full_shoe_edge):  # noqa: SLF001
        cached.cache_clear()  # by paytable id, which a rolled-back test gives again to another paytable
    day = current_gaming_day()
    t0 = gaming_day_bounds(day)[0] + dt.timedelta(hours=1)
    minute = dt.timedelta(minutes=1)
    table = factories.table("CF1", preset=preset)
    gold = players.tier("gold")
    a = floor_seat(table=table, seat=1, at=t0, patron=players.patron("C-2001", tier_=gold), buy_in=Decimal("900"))
    b = floor_seat(table=table, seat=2, at=t0, patron=players.patron("C-2002"))
    anon = floor_seat(table=table, seat=5, at=t0, description="woman, red scarf")
    shoe = factories.shoe(table, shuffled_at=t0)

    def refresh() -> None:
        ratings_refresh(table_id=table.pk, gaming_day=day)
        _agree(table)

    def post(number: int) -> Coup:
        wagers = [
            factories.wager(1, "banker" if number % 2 else "player", str(100 * number)),
            factories.wager(2, "banker", "200"),
            factories.wager(5, "player", "25"),
        ]
        if number % 3 == 0:
            wagers.append(factories.wager(1, "tie", "25"))
        coup = factories.coup(shoe, number, *HANDS[number % len(HANDS)], dealt_at=t0 + number * minute, wagers=wagers)
        refresh()
        return coup

    coups = {number: post(number) for number in (1, 2, 3)}
    assert len(carried) >= 6  # coups 2 and 3: the three sessions carried each time
    floor_session_event(session=b, kind="pause", at=t0 + 3 * minute + dt.timedelta(seconds=30))
    coups[4] = post(4)
    coups[6] = post(6)
    coups[5] = post(5)  # dealt before 6, posted after it: recomputed whole
    coup_correct(
        coup=coups[2], wagers=(factories.wager(1, "player", "250"), factories.wager(2, "banker", "200")), reason="stake"
    )
    refresh()
    coup_void(coup=coups[4], reason="misdeal")
    refresh()
    floor_session_event(session=b, kind="resume", at=t0 + 6 * minute + dt.timedelta(seconds=30))
    refresh()
    before = len(carried)
    coups[7] = post(7)
    coups[8] = post(8)
    assert len(carried) >= before + 5  # a, b and the unrated player carried again
    average_bet_estimate(session=anon, average_bet_minor=5000)
    refresh()
    floor_identify(session=anon, patron=players.patron("C-2003"), reason="card found")
    coups[9] = post(9)
    floor_session_event(session=a, kind="stand", at=t0 + 9 * minute + dt.timedelta(seconds=30))
    refresh()
    coups[10] = post(10)
    assert SessionRating.objects.get(session=a).final
    deducted = SessionRating.objects.filter(session=b).values_list("commission_deducted_minor", flat=True).get()
    assert (deducted > 0) == (preset == "commission_deducted")
    assert ratings_refresh(table_id=table.pk, gaming_day=day, whole=True) == 3
    _agree(table)
