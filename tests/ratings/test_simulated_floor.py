"""A simulated floor of rated and unrated patrons (table changes, a lent card, an excluded patron),
then corrections and voids: every session's rating recomputed here from the rows, by hand (spans from
the events, what stands from the corrections, each coup's edge from the engine at the cards seen
before it), agrees to the cent and to the exact Fraction of theo."""

from collections import Counter
from fractions import Fraction

import pytest

from pit import game
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.paytables.selectors import engine_paytable
from pit.players.models import SeatSession
from pit.ratings.models import CompEntry, SessionRating
from pit.shoes.models import Coup, CoupCorrection, Wager
from pit.shoes.services import WagerInput, coup_correct, coup_void
from tests.floor.conftest import NOW, pit_tables  # noqa: F401  the demo pit's tables

pytestmark = pytest.mark.django_db


def _spans(session):
    spans, start = [], session.started_at
    for event in session.events.order_by("at", "id"):
        if event.kind == "pause" and start is not None:
            spans.append((start, event.at))
            start = None
        elif event.kind == "resume" and start is None:
            start = event.at
        elif event.kind == "stand":
            if start is not None:
                spans.append((start, event.at))
            return spans, True
    return spans + ([(start, None)] if start is not None else []), False


class Edges:
    """Each coup's exact edges from the engine, at the cards seen before it, by hand."""

    def __init__(self):
        self.cache = {}

    def __call__(self, coup, bet):
        if coup.pk not in self.cache:
            seen = Counter(coup.shoe.burn_cards or ())
            for earlier in Coup.objects.filter(shoe=coup.shoe, number__lt=coup.number):
                seen.update([*earlier.player_cards, *earlier.banker_cards])
            composition = game.composition_after(coup.shoe.decks, seen)
            odds = game.exact_odds(engine_paytable(coup.paytable.rules), composition)
            self.cache[coup.pk] = {name: figures.house_edge for name, figures in odds.bets.items()}
        return self.cache[coup.pk][bet]


def _standing():
    latest = {}
    for correction in CoupCorrection.objects.all():
        if correction.coup_id not in latest or correction.sequence > latest[correction.coup_id].sequence:
            latest[correction.coup_id] = correction
    return [
        wager
        for wager in Wager.objects.select_related("coup__shoe__table", "coup__paytable")
        if (latest.get(wager.coup_id) is None and wager.correction_id is None)
        or (latest.get(wager.coup_id) is not None and wager.correction_id == latest[wager.coup_id].pk)
    ], {pk for pk, c in latest.items() if c.kind == "void"}


@pytest.fixture
def floor(pit_tables, django_capture_on_commit_callbacks):  # noqa: F811
    with django_capture_on_commit_callbacks(execute=True):
        simulate(ServicesFloorClient(), now=NOW, tables=["BB1", "BB2", "MD1"], seed=5, patrons=12, seats=5)
        coups = list(Coup.objects.filter(wagers__isnull=False).distinct().order_by("pk"))
        for coup in coups[5:40:9]:
            first = coup.wagers.order_by("seat", "bet").first()
            coup_correct(
                coup=coup,
                wagers=(WagerInput(seat=first.seat, bet=first.bet, amount=first.amount * 2),),
                reason="misread stake",
            )
        for coup in coups[11:60:17]:
            coup_void(coup=coup, reason="misdeal")


def test_the_simulated_floor_seats_patrons_with_habits(floor):
    sessions = SeatSession.objects.all()
    rated = sessions.filter(patron__isnull=False)
    assert rated.count() > 10 and sessions.filter(patron__isnull=True).count() > 0
    tables_of = {}
    for session in rated:
        tables_of.setdefault(session.patron.card_number, set()).add(session.table_id)
    assert len(tables_of["P-00001"]) >= 2  # the lent card, at two tables
    assert SessionRating.objects.count() == sessions.count()


def test_every_rating_agrees_with_the_rows(floor):
    rows, voided = _standing()
    edges = Edges()
    coups = list(Coup.objects.select_related("shoe__table"))
    checked = 0
    for session in SeatSession.objects.select_related("table"):
        spans, stood = _spans(session)

        def inside(moment, spans=spans):
            return any(start <= moment and (end is None or moment < end) for start, end in spans)

        mine = [
            w
            for w in rows
            if w.coup.shoe.table_id == session.table_id and w.seat == session.seat and inside(w.coup.dealt_at)
        ]
        rating = SessionRating.objects.get(session=session)
        assert rating.final == stood
        assert rating.handle_minor == sum(w.amount_minor for w in mine)
        assert rating.wagers == len(mine)
        assert rating.coups_played == len({w.coup_id for w in mine})
        assert rating.largest_bet_minor == max((w.amount_minor for w in mine), default=0)
        assert rating.won_minor == sum(
            (w.amount_minor if w.result == "lose" else 0) - w.payout_minor + w.commission_minor for w in mine
        )
        assert rating.commission_owed_minor == sum(w.commission_minor for w in mine)
        assert rating.theo == sum((w.amount_minor * edges(w.coup, w.bet) for w in mine), Fraction(0))
        table_coups = [
            c for c in coups if c.shoe.table_id == session.table_id and inside(c.dealt_at) and c.pk not in voided
        ]
        assert rating.table_coups == len(table_coups)
        if stood:
            assert rating.seconds_played == sum(int((end - start).total_seconds()) for start, end in spans)
        checked += 1
    assert checked > 20


def test_comps_add_up_to_the_rate_of_each_stood_session(floor):
    for rating in SessionRating.objects.filter(final=True, patron__isnull=False):
        total = sum(entry.amount_minor for entry in CompEntry.objects.filter(session_id=rating.session_id))
        entry = CompEntry.objects.filter(session_id=rating.session_id).first()
        rate = entry.rate if entry is not None else 0
        assert total == round(Fraction(rate) * max(rating.theo, Fraction(0)))
