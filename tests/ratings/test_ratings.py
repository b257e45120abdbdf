"""Ratings on a small floor with corrections, a void, a late coup, a pause and a seat change: every
figure recomputed here from the rows (not through the rating code) agrees to the cent and to the
exact Fraction of theo; comps follow at stand-up and after a correction; estimates stand apart."""

import datetime as dt
from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest

from pit import game
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.paytables.selectors import engine_paytable
from pit.players.models import SeatSession
from pit.ratings.models import CompEntry, CompKind, SessionRating
from pit.ratings.services import (
    average_bet_estimate,
    comp_balance_minor,
    comp_redeem,
    ratings_refresh,
    reinvestment_rate_set,
)
from pit.shoes.models import Coup, CoupCorrection, Wager
from pit.shoes.services import coup_correct, coup_void
from tests import factories
from tests.ratings import players
from tests.ratings.players import floor_identify, floor_seat, floor_session_event
from tests.shoes import hands

HANDS = [hands.BANKER_NATURAL, hands.PLAYER_NATURAL, hands.TIE, hands.BANKER_SIX, hands.PLAYER_PAIR, hands.DRAGON_7]


def _standing_rows(table, seat):
    """Standing wagers, by hand: per coup the latest correction's wagers, none after a void."""
    latest = {}
    for correction in CoupCorrection.objects.filter(coup__shoe__table=table):
        if correction.coup_id not in latest or correction.sequence > latest[correction.coup_id].sequence:
            latest[correction.coup_id] = correction
    rows = []
    for wager in Wager.objects.filter(coup__shoe__table=table, seat=seat).select_related("coup"):
        last = latest.get(wager.coup_id)
        if last is None and wager.correction_id is None or last is not None and wager.correction_id == last.pk:
            rows.append(wager)
    return rows


def _edge(coup, bet):
    """The engine's exact edge at the composition before the coup, from the shoe's cards by hand."""
    seen = Counter(coup.shoe.burn_cards or ())
    for earlier in Coup.objects.filter(shoe=coup.shoe, number__lt=coup.number):
        seen.update([*earlier.player_cards, *earlier.banker_cards])
    odds = game.exact_odds(engine_paytable(coup.paytable.rules), game.composition_after(coup.shoe.decks, seen))
    return odds.bets[bet].house_edge


def _expected(session, spans):
    def inside(moment):
        return any(start <= moment and (end is None or moment < end) for start, end in spans)

    rows = [w for w in _standing_rows(session.table, session.seat) if inside(w.coup.dealt_at)]
    voided = {c.coup_id for c in CoupCorrection.objects.filter(kind="void")}
    table_coups = [
        c for c in Coup.objects.filter(shoe__table=session.table) if inside(c.dealt_at) and c.pk not in voided
    ]
    handle = sum(w.amount_minor for w in rows)
    coups = {w.coup_id for w in rows}
    won = sum((w.amount_minor if w.result == "lose" else 0) - w.payout_minor + w.commission_minor for w in rows)
    theo = sum((w.amount_minor * _edge(w.coup, w.bet) for w in rows), Fraction(0))
    full = game.exact_odds(engine_paytable(session.table.paytable.rules), 8).bets["banker"].house_edge
    standard = Fraction(handle, len(coups)) * len(table_coups) * full if coups else Fraction(0)
    seconds = sum(int((end - start).total_seconds()) for start, end in spans if end is not None)
    return {
        "handle_minor": handle,
        "coups_played": len(coups),
        "table_coups": len(table_coups),
        "won_minor": won,
        "largest_bet_minor": max((w.amount_minor for w in rows), default=0),
        "commission_owed_minor": sum(w.commission_minor for w in rows),
        "theo": theo,
        "standard": game.fraction_to_decimal(standard, 6),
        "seconds_played": seconds,
    }


@pytest.fixture
def floor(db, django_capture_on_commit_callbacks):
    day = current_gaming_day() - dt.timedelta(days=1)  # a day whose moments have all passed
    t0 = gaming_day_bounds(day)[0] + dt.timedelta(hours=2)
    table = factories.table("BB1")
    gold = players.tier("gold")
    reinvestment_rate_set(tier=gold, rate=Decimal("0.25"), starts_on=day)
    alice, bob = players.patron("C-1001", "Alice", tier_=gold), players.patron("C-1002", "Bob", nationality="HK")
    minute = dt.timedelta(minutes=1)
    with django_capture_on_commit_callbacks(execute=True):
        a1 = floor_seat(table=table, seat=1, at=t0, patron=alice, buy_in=Decimal("5000"))
        b2 = floor_seat(table=table, seat=2, at=t0, patron=bob)
        anon = floor_seat(table=table, seat=5, at=t0, description="man, grey suit")
        shoe = factories.shoe(table, shuffled_at=t0)
        coups = []
        for number in range(1, 13):
            at = t0 + number * minute
            wagers = []
            if number <= 6:
                wagers.append(factories.wager(1, "banker" if number % 2 else "player", str(100 * number)))
            else:
                wagers.append(factories.wager(3, "banker", str(50 * number)))  # Alice moved to seat 3
            wagers.append(factories.wager(2, "tie" if number % 4 == 0 else "banker", "200"))
            wagers.append(factories.wager(5, "player", "25"))
            if number == 7:
                continue  # dealt, posted late (below)
            if number == 4:
                floor_session_event(session=b2, kind="pause", at=at - dt.timedelta(seconds=10))
            if number == 8:
                floor_session_event(session=b2, kind="resume", at=at - dt.timedelta(seconds=10))
            coups.append(factories.coup(shoe, number, *HANDS[number % len(HANDS)], dealt_at=at, wagers=wagers))
            if number == 6:
                floor_session_event(session=a1, kind="stand", at=at + dt.timedelta(seconds=30))
                a3 = floor_seat(table=table, seat=3, at=at + dt.timedelta(seconds=40), patron=alice)
        late_wagers = [factories.wager(3, "banker", "350"), factories.wager(2, "banker", "200")]
        factories.coup(shoe, 7, *HANDS[7 % len(HANDS)], dealt_at=t0 + 7 * minute, wagers=late_wagers)
        by_number = {c.number: c for c in Coup.objects.filter(shoe=shoe)}
        coup_correct(
            coup=by_number[2],
            wagers=(factories.wager(1, "player", "250"), factories.wager(2, "banker", "200")),
            reason="misread stake",
        )
        coup_void(coup=by_number[9], reason="misdeal")
        floor_session_event(session=a3, kind="stand", at=t0 + 13 * minute)
        floor_identify(session=anon, patron=bob, reason="card found after the shoe")
    return {
        "table": table,
        "a1": a1,
        "a3": a3,
        "b2": b2,
        "anon": anon,
        "t0": t0,
        "alice": alice,
        "bob": bob,
        "day": day,
    }


def test_every_figure_agrees_with_the_rows(floor):
    t0, minute = floor["t0"], dt.timedelta(minutes=1)
    a1_end = t0 + 6 * minute + dt.timedelta(seconds=30)
    pause, resume = t0 + 4 * minute - dt.timedelta(seconds=10), t0 + 8 * minute - dt.timedelta(seconds=10)
    expected_spans = {
        "a1": [(t0, a1_end)],
        "a3": [(t0 + 6 * minute + dt.timedelta(seconds=40), t0 + 13 * minute)],
    }
    for name, spans in expected_spans.items():
        session = floor[name]
        rating = SessionRating.objects.get(session=session)
        expected = _expected(session, spans)
        assert rating.final
        assert rating.theo == expected["theo"]
        assert rating.theo_minor == game.fraction_to_decimal(expected["theo"], 6)
        assert rating.standard_theo_minor == expected["standard"]
        for field in (
            "handle_minor",
            "coups_played",
            "table_coups",
            "won_minor",
            "largest_bet_minor",
            "commission_owed_minor",
            "seconds_played",
        ):
            assert getattr(rating, field) == expected[field], (name, field)
    # Bob's open session, paused from before coup 4 to before coup 8: rated up to the latest coup.
    b2 = SessionRating.objects.get(session=floor["b2"])
    last = Coup.objects.filter(shoe__table=floor["table"]).order_by("-dealt_at").first().dealt_at
    expected = _expected(floor["b2"], [(t0, pause), (resume, None)])
    assert not b2.final and b2.as_of == last
    assert b2.seconds_played == int((pause - t0).total_seconds()) + int((last - resume).total_seconds())
    assert b2.theo == expected["theo"] and b2.handle_minor == expected["handle_minor"]
    assert b2.table_coups == expected["table_coups"] == 7  # 1-3 and 8-12, the void (9) out
    # The anonymous session identified as Bob's is his.
    assert SessionRating.objects.get(session=floor["anon"]).patron == floor["bob"]


def test_a_refresh_run_again_writes_the_same_rating(floor):
    before = {r.session_id: (r.theo, r.handle_minor, r.won_minor) for r in SessionRating.objects.all()}
    assert ratings_refresh(table_id=floor["table"].pk, gaming_day=floor["day"], whole=True) == 4
    after = {r.session_id: (r.theo, r.handle_minor, r.won_minor) for r in SessionRating.objects.all()}
    assert after == before
    assert ratings_refresh(table_id=floor["table"].pk, gaming_day=floor["day"]) == 0  # nothing new


def test_comps_follow_the_rating_and_a_correction_adjusts(floor, django_capture_on_commit_callbacks):
    a1 = SessionRating.objects.get(session=floor["a1"])
    earned = CompEntry.objects.get(session=floor["a1"], kind=CompKind.EARNED)
    target = a1.theo / 4
    assert earned.amount_minor == round(target)  # half even, as Python rounds a Fraction
    coup = Coup.objects.get(shoe__table=floor["table"], number=5)
    with django_capture_on_commit_callbacks(execute=True):
        coup_correct(
            coup=coup,
            wagers=(factories.wager(1, "banker", "5000"), factories.wager(2, "banker", "200")),
            reason="misread",
        )
    a1 = SessionRating.objects.get(session=floor["a1"])
    entries = CompEntry.objects.filter(session=floor["a1"]).order_by("id")
    assert [e.kind for e in entries] == ["earned", "adjusted"]
    assert sum(e.amount_minor for e in entries) == round(a1.theo / 4)
    assert CompEntry.objects.get(session=floor["a1"], kind="earned").amount_minor == earned.amount_minor


def test_redemption_never_takes_the_balance_below_zero(floor):
    alice = floor["alice"]
    balance = comp_balance_minor(alice, "USD")
    assert balance > 0
    with pytest.raises(Conflict) as refused:
        comp_redeem(patron=alice, currency="USD", amount_minor=balance + 1, reason="dinner")
    assert refused.value.details["balance"] == str(balance)
    assert CompEntry.objects.filter(kind="redeemed").count() == 0
    comp_redeem(patron=alice, currency="USD", amount_minor=balance, reason="dinner")
    assert comp_balance_minor(alice, "USD") == 0


def test_an_estimate_stands_where_nothing_is_recorded_and_beside_the_record(floor, django_capture_on_commit_callbacks):
    table = floor["table"]
    with django_capture_on_commit_callbacks(execute=True):
        seated = floor_seat(table=table, seat=7, at=floor["t0"], description="woman, red scarf")
        average_bet_estimate(session=seated, average_bet_minor=30000)
        average_bet_estimate(session=floor["b2"], average_bet_minor=25000)
    estimated = SessionRating.objects.get(session=seated)
    assert estimated.estimated and estimated.handle_minor == 0
    full = Fraction(estimated.game_edge)
    assert estimated.standard_theo_minor == game.fraction_to_decimal(30000 * estimated.table_coups * full, 6)
    recorded = SessionRating.objects.get(session=floor["b2"])
    assert not recorded.estimated and recorded.estimated_average_bet_minor == 25000
    assert SeatSession.objects.count() == 5


def test_the_patron_reports_add_up_the_ratings(floor):
    from pit.reports.catalog import REPORTS
    from pit.reports.definitions import ReportFilters

    filters = ReportFilters(date_from=floor["day"], date_to=floor["day"])
    rows = list(REPORTS["patron-day"].rows(filters))
    by_card = {row["card_number"]: row for row in rows}
    ratings = SessionRating.objects.filter(patron=floor["alice"])
    alice = by_card["C-1001"]
    assert alice["sessions"] == 2
    assert alice["handle"] == Decimal(sum(r.handle_minor for r in ratings)) / 100
    assert alice["theo"] == sum(r.theo_minor for r in ratings) / 100
    assert alice["buy_ins"] == Decimal("5000.00")
    assert alice["comps"] == Decimal(sum(e.amount_minor for e in CompEntry.objects.filter(patron=floor["alice"]))) / 100
    assert by_card["C-1002"]["sessions"] == 2  # his own and the one identified as his
    top = list(REPORTS["top-patrons"].rows(filters))
    assert [row["rank"] for row in top] == [1, 2] and top[0]["theo"] >= top[1]["theo"]
    nationalities = {row["nationality"]: row for row in REPORTS["play-by-nationality"].rows(filters)}
    assert nationalities["CN"]["patrons"] == 1 and nationalities["HK"]["sessions"] == 2


def test_a_refresh_in_a_tasks_audit_context_writes_the_same_rating(floor):
    """A worker runs every task inside an audit context (pit.accounts.audit): the refresh's reads,
    several statements in one round trip, come back whole there too."""
    from pit.accounts.audit import audit_context

    before = {r.session_id: (r.theo, r.handle_minor, r.won_minor) for r in SessionRating.objects.all()}
    with audit_context(actor="system", task="pit.ratings.tasks.table_day_refresh"):
        assert ratings_refresh(table_id=floor["table"].pk, gaming_day=floor["day"], whole=True) == 4
    after = {r.session_id: (r.theo, r.handle_minor, r.won_minor) for r in SessionRating.objects.all()}
    assert after == before
