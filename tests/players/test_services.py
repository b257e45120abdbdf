"""Players: patrons and their versions, exclusions, seat sessions with their breaks, money at the seat,
the sessions' played spans and wagers, and the two alarms (an excluded patron seated, one card at two
tables), injected and on an honest floor."""

import datetime as dt
import random
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.core.errors import Conflict
from pit.core.immutable import ImmutableRecordError
from pit.players import selectors
from pit.players.models import (
    BuyIn,
    ChipsWalked,
    Exclusion,
    Patron,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionIdentification,
    Tier,
)
from pit.players.services import (
    buy_in_record,
    buy_in_reverse,
    exclusion_lift,
    exclusion_record,
    patron_enrol,
    patron_version_record,
    session_identify,
    session_pause,
    session_resume,
    session_sit,
    session_stand,
    walk_record,
    walk_reverse,
)
from pit.protection.selectors import ALARM_CODES, alarms_unreviewed
from pit.shoes.services import coup_correct, coup_void
from tests import factories as f
from tests.admin.conftest import BANKER_WINS

pytestmark = pytest.mark.django_db
T0 = (timezone.now() - dt.timedelta(hours=6)).replace(microsecond=0)
CODES = ("excluded_patron_seated", "patron_at_two_tables")


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


@pytest.fixture
def gold(db):
    return Tier.objects.create(code="gold", name="Gold", colour="#d4af37", rank=3)


@pytest.fixture
def li(gold):
    return patron_enrol(card_number="100234", name="Li Wei", tier=gold, nationality="mo")


@pytest.fixture
def bb1(db):
    return f.table("BB1")


def counts():
    models = (Patron, PatronVersion, Exclusion, SeatSession, SessionEvent, SessionIdentification, BuyIn, ChipsWalked)
    return {model.__name__: model.objects.count() for model in models} | {"violations": RuleViolation.objects.count()}


# ------------------------------------------------------------------------------------------ patrons
def test_a_patron_is_enrolled_with_a_first_version_and_changes_by_new_versions(li, gold):
    first = selectors.patron_current(li)
    assert (first.name, first.nationality, first.status, first.tier) == ("Li Wei", "MO", "active", gold)
    platinum = Tier.objects.create(code="platinum", name="Platinum", rank=4)
    second = patron_version_record(
        patron=li, name="Li Wei", tier=platinum, nationality="MO", status="active", reason="tier review"
    )
    assert selectors.patron_current(li) == second
    assert list(PatronVersion.objects.filter(patron=li).values_list("tier__code", flat=True)) == ["platinum", "gold"]
    with pytest.raises(ImmutableRecordError):
        first.delete()
    with pytest.raises(ValidationError) as caught:
        patron_version_record(
            patron=li, name="Li Wei", tier=platinum, nationality="MO", status="active", reason="again"
        )
    assert "__all__" in caught.value.message_dict


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"card_number": ""}, "card_number"),
        ({"card_number": "１２３"}, "card_number"),
        ({"card_number": "12 34"}, "card_number"),
        ({"name": " "}, "name"),
        ({"nationality": "MAC"}, "nationality"),
        ({"status": "gone"}, "status"),
        ({"tier": None}, "tier"),
    ],
)
def test_enrolment_refuses_bad_input_naming_the_field_and_writes_nothing(gold, given, field):
    before = counts()
    with pytest.raises(ValidationError) as caught:
        patron_enrol(**{"card_number": "100999", "name": "Ana", "tier": gold, "nationality": "HK", **given})
    assert field in caught.value.message_dict
    assert counts() == before


def test_a_card_number_is_enrolled_once(li, gold):
    with pytest.raises(Conflict, match="100234 is enrolled already"):
        patron_enrol(card_number="100234", name="Someone Else", tier=gold, nationality="CN")
    assert Patron.objects.count() == 1


# ---------------------------------------------------------------------------------------- sessions
def test_played_spans_take_the_breaks_out_and_end_at_the_stand_up(li, bb1):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    assert selectors.session_spans(session) == [(at(0), None)]
    session_pause(session=session, at=at(30))
    assert selectors.session_spans(session) == [(at(0), at(30))]
    assert selectors.seated_now(bb1) == {1: session}  # a break keeps the seat
    session_resume(session=session, at=at(45))
    session_stand(session=session, at=at(90), chips_walked=Decimal("1250.00"))
    assert selectors.session_spans(session) == [(at(0), at(30)), (at(45), at(90))]
    assert selectors.seated_now(bb1) == {}
    walk = ChipsWalked.objects.get()
    assert (walk.amount_minor, walk.how, walk.at, walk.currency) == (125000, "counted", at(90), bb1.currency)


def test_a_stand_up_from_a_break_closes_no_second_span(li, bb1):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    session_pause(session=session, at=at(30))
    session_stand(session=session, at=at(50))
    assert selectors.session_spans(session) == [(at(0), at(30))]


@pytest.mark.parametrize(
    ("steps", "field_or_conflict"),
    [
        ([("pause", -5)], "at"),  # before the sit-down
        ([("resume", 5)], "at"),  # no break to come back from
        ([("pause", 5), ("pause", 10)], "at"),  # on a break already
        ([("pause", 20), ("resume", 10)], "at"),  # before the last event
        ([("stand", 20), ("pause", 30)], Conflict),  # nothing after the stand-up
        ([("stand", 20), ("stand", 30)], Conflict),
    ],
)
def test_events_out_of_order_are_refused_and_write_nothing(li, bb1, steps, field_or_conflict):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    services = {"pause": session_pause, "resume": session_resume, "stand": session_stand}
    for kind, minutes in steps[:-1]:
        services[kind](session=session, at=at(minutes))
    before = counts()
    kind, minutes = steps[-1]
    if field_or_conflict is Conflict:
        with pytest.raises(Conflict, match="stood up"):
            services[kind](session=session, at=at(minutes))
    else:
        with pytest.raises(ValidationError) as caught:
            services[kind](session=session, at=at(minutes))
        assert field_or_conflict in caught.value.message_dict
    assert counts() == before


def test_one_seat_holds_one_session_at_a_time(li, bb1, gold):
    held = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    before = counts()
    with pytest.raises(Conflict) as caught:
        session_sit(table=bb1, seat=1, at=at(10), description="man, grey suit")
    assert caught.value.message.startswith(f"Seat 1 at table BB1 is held by session {held.pk}")
    assert caught.value.errors == {"seat": ["Seat 1 is taken."]}
    with pytest.raises(Conflict):  # nor slipped in before the recorded one
        session_sit(table=bb1, seat=1, at=at(-10), description="man, grey suit")
    assert counts() == before
    session_stand(session=held, at=at(20))
    # The next player may sit at the very moment the first stood; another seat is free meanwhile.
    other = session_sit(table=bb1, seat=2, at=at(5), description="woman, red scarf")
    nxt = session_sit(table=bb1, seat=1, at=at(20), description="man, grey suit")
    assert selectors.seated_now(bb1) == {1: nxt, 2: other}


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"seat": 4}, "seat"),  # BB1 has no seat 4
        ({"at": "2026-11-20T06:00:00Z"}, "at"),
        ({"at": dt.datetime(2026, 11, 20, 6)}, "at"),  # no offset
        ({"at": timezone.now() + dt.timedelta(hours=1)}, "at"),
        ({"patron": None, "description": ""}, "description"),
    ],
)
def test_a_sit_down_refuses_bad_input_and_writes_nothing(li, bb1, given, field):
    before = counts()
    with pytest.raises(ValidationError) as caught:
        session_sit(**{"table": bb1, "seat": 1, "at": at(0), "patron": li, **given})
    assert field in caught.value.message_dict
    assert counts() == before


def test_a_suspended_card_is_seated_unrated_only(li, bb1, gold):
    patron_version_record(patron=li, name="Li Wei", tier=gold, nationality="MO", status="suspended", reason="fraud")
    with pytest.raises(ValidationError) as caught:
        session_sit(table=bb1, seat=1, at=at(0), patron=li)
    assert "suspended" in caught.value.message_dict["card_number"][0]


def test_an_unrated_session_is_identified_once_attributably(li, bb1, gold):
    session = session_sit(table=bb1, seat=1, at=at(0), description="man, grey suit")
    assert selectors.session_patron(session) is None
    identification = session_identify(session=session, patron=li, reason="card shown at the cage")
    assert selectors.session_patron(SeatSession.objects.get(pk=session.pk)) == li
    assert identification.reason == "card shown at the cage"
    assert list(selectors.sessions_of_patron(li)) == [session]
    other = patron_enrol(card_number="100235", name="Ana", tier=gold, nationality="HK")
    with pytest.raises(Conflict, match="identified already as card 100234"):
        session_identify(session=session, patron=other, reason="no, it was Ana")
    rated = session_sit(table=bb1, seat=2, at=at(0), patron=other)
    with pytest.raises(Conflict, match="rated already"):
        session_identify(session=rated, patron=li, reason="swap")
    with pytest.raises(ValidationError):
        session_identify(session=session, patron=other, reason=" ")


# -------------------------------------------------------------------------------- money at the seat
def test_buy_ins_and_walks_in_the_tables_currency_and_reversed_with_a_reason(li, bb1):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    cash = buy_in_record(session=session, kind="cash", amount=Decimal("5000"), currency=bb1.currency, at=at(1))
    marker = buy_in_record(session=session, kind="marker", amount=Decimal("10000.50"), currency=bb1.currency, at=at(2))
    walk = walk_record(session=session, how="estimated", amount=Decimal("300"), currency=bb1.currency, at=at(30))
    reversal = buy_in_reverse(buy_in=marker, reason="keyed on the wrong seat")
    assert (reversal.amount_minor, reversal.kind, reversal.at, reversal.reverses) == (1000050, "marker", at(2), marker)
    assert walk_reverse(walk=walk, reason="never left the seat").amount_minor == 30000
    with pytest.raises(Conflict):
        buy_in_reverse(buy_in=marker, reason="again")
    with pytest.raises(ValidationError):
        buy_in_reverse(buy_in=reversal, reason="undo the undo")
    assert cash.amount_minor == 500000
    assert list(BuyIn.objects.order_by("pk").values_list("amount_minor", "reverses_id")) == [
        (500000, None),
        (1000050, None),
        (1000050, marker.pk),
    ]


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"currency": "EUR"}, "currency"),
        ({"amount": Decimal("0")}, "amount"),
        ({"amount": Decimal("10.001")}, "amount"),
        ({"amount": 10.5}, "amount"),
        ({"kind": "cheque"}, "kind"),
        ({"at": at(-1)}, "at"),  # before the sit-down
        ({"at": at(200)}, "at"),  # after the stand-up
    ],
)
def test_a_buy_in_refuses_bad_input_and_writes_nothing(li, bb1, given, field):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    session_stand(session=session, at=at(100))
    before = counts()
    with pytest.raises(ValidationError) as caught:
        buy_in_record(
            **{"session": session, "kind": "cash", "amount": Decimal("100"), "currency": bb1.currency, "at": at(5)}
            | given
        )
    assert field in caught.value.message_dict
    assert counts() == before


# ----------------------------------------------------------------------------- wagers and sessions
def test_a_sessions_wagers_are_its_seats_standing_ones_in_its_played_spans(li, bb1, django_capture_on_commit_callbacks):
    session = session_sit(table=bb1, seat=1, at=at(10), patron=li)
    session_pause(session=session, at=at(30))
    session_resume(session=session, at=at(40))
    session_stand(session=session, at=at(60))
    with django_capture_on_commit_callbacks(execute=True):
        shoe = f.shoe(bb1, shuffled_at=at(0))
        coups = {}
        # number, minute dealt, the seat 1 stake: before, inside, on the break, at the pause, after
        for number, minute in enumerate((5, 15, 20, 30, 35, 45, 60, 65), start=1):
            coups[minute] = f.coup(
                shoe,
                number,
                *BANKER_WINS,
                dealt_at=at(minute),
                wagers=[f.wager(1, "banker", str(100 * number)), f.wager(2, "player", "25")],
            )
    standing = selectors.session_wagers(session)
    assert sorted(w.amount_minor for w in standing) == [20000, 30000, 60000]  # minutes 15, 20, 45
    # A correction of one coup's stake and a void of another: only what stands is the session's.
    coup_correct(coup=coups[15], wagers=(f.wager(1, "banker", "250"),), reason="misread stake")
    coup_void(coup=coups[20], reason="misdeal")
    assert sorted(w.amount_minor for w in selectors.session_wagers(session)) == [25000, 60000]
    assert list(selectors.sessions_for_coup(coups[45])) == [session]
    assert list(selectors.sessions_for_coup(coups[35])) == []  # on the break
    assert list(selectors.sessions_for_coup(coups[60])) == []  # dealt as they stood


def test_a_coup_posted_late_lands_in_the_session_that_held_its_moment(gold, bb1, django_capture_on_commit_callbacks):
    ana = patron_enrol(card_number="200001", name="Ana", tier=gold, nationality="HK")
    ben = patron_enrol(card_number="200002", name="Ben", tier=gold, nationality="CN")
    first = session_sit(table=bb1, seat=1, at=at(0), patron=ana)
    session_stand(session=first, at=at(30))
    second = session_sit(table=bb1, seat=1, at=at(30), patron=ben)
    with django_capture_on_commit_callbacks(execute=True):
        shoe = f.shoe(bb1, shuffled_at=at(-1))
        f.coup(shoe, 1, *BANKER_WINS, dealt_at=at(40), wagers=[f.wager(1, "banker", "100")])
        late = f.coup(shoe, 2, *BANKER_WINS, dealt_at=at(20), wagers=[f.wager(1, "banker", "500")])
    assert list(selectors.sessions_for_coup(late)) == [first]
    assert [w.amount_minor for w in selectors.session_wagers(first)] == [50000]
    assert [w.amount_minor for w in selectors.session_wagers(second)] == [10000]


# ------------------------------------------------------------------------------------------- alarms
def open_alarms(code):
    return list(alarms_unreviewed(code=code))


def test_the_codes_are_alarms():
    assert set(CODES) <= set(ALARM_CODES)


def test_an_excluded_patron_seated_is_an_alarm_at_once(li, bb1, gold):
    exclusion = exclusion_record(patron=li, kind="self", starts_at=at(-600), ends_at=None, reason="asked at the desk")
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    (alarm,) = open_alarms("excluded_patron_seated")
    assert (alarm.table, alarm.seat, alarm.severity, alarm.found_by) == (bb1, 1, "high", "players")
    assert alarm.fingerprint == f"excluded_patron_seated:session{session.pk}:exclusion{exclusion.pk}"
    assert "card 100234" in alarm.message and "self-exclusion" in alarm.message
    # At identification too: an unrated player turns out to be an excluded patron.
    bad = patron_enrol(card_number="300001", name="Bad", tier=gold, nationality="MO")
    exclusion_record(patron=bad, kind="trespass", starts_at=at(-60), ends_at=at(600), reason="fight")
    unrated = session_sit(table=bb1, seat=2, at=at(5), description="man, grey suit")
    assert len(open_alarms("excluded_patron_seated")) == 1
    session_identify(session=unrated, patron=bad, reason="face known to security")
    assert len(open_alarms("excluded_patron_seated")) == 2


def test_an_exclusion_recorded_while_seated_is_an_alarm_and_a_lifted_or_ended_one_is_none(li, bb1, gold):
    session = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    assert open_alarms("excluded_patron_seated") == []
    exclusion_record(patron=li, kind="regulatory", starts_at=at(10), ends_at=None, reason="court order")
    assert len(open_alarms("excluded_patron_seated")) == 1
    session_stand(session=session, at=at(20))
    ana = patron_enrol(card_number="200001", name="Ana", tier=gold, nationality="HK")
    ended = exclusion_record(patron=ana, kind="self", starts_at=at(-600), ends_at=at(-60), reason="a month off")
    lifted = exclusion_record(patron=ana, kind="self", starts_at=at(-50), ends_at=None, reason="for life")
    exclusion_lift(exclusion=lifted, at=at(-10), reason="revoked by the regulator's letter")
    assert selectors.patron_excluded_at(ana, at(-20)) == lifted
    assert selectors.patron_excluded_at(ana, at(-100)) == ended
    assert selectors.patron_excluded_at(ana, at(0)) is None
    session_sit(table=bb1, seat=2, at=at(0), patron=ana)
    assert len(open_alarms("excluded_patron_seated")) == 1
    with pytest.raises(Conflict):
        exclusion_lift(exclusion=lifted, at=at(-5), reason="twice")


def test_one_card_at_two_tables_is_a_finding_cleared_if_the_first_stood_before(li, bb1, gold):
    mb1 = f.table("MB1", game="mini")
    first = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    second = session_sit(table=mb1, seat=3, at=at(30), patron=li)
    (finding,) = open_alarms("patron_at_two_tables")
    assert finding.fingerprint == f"patron_at_two_tables:session{first.pk}:session{second.pk}"
    assert (finding.table, finding.seat) == (mb1, 3)
    assert "BB1 seat 1" in finding.message and "MB1 seat 3" in finding.message
    # The floor swiped at the new table before the old one stood the player up, at the moment of the move.
    session_stand(session=first, at=at(30))
    assert open_alarms("patron_at_two_tables") == []
    assert RuleViolation.objects.get(pk=finding.pk).cleared_at is not None


def test_a_lent_card_stays_a_finding(li, bb1):
    mb1 = f.table("MB1", game="mini")
    first = session_sit(table=bb1, seat=1, at=at(0), patron=li)
    session_sit(table=mb1, seat=3, at=at(30), patron=li)
    session_stand(session=first, at=at(60))
    assert len(open_alarms("patron_at_two_tables")) == 1


def test_an_honest_floor_raises_neither_alarm(gold):
    """Three gaming days of four tables: patrons sit, take breaks, move tables (standing up first),
    some unrated and identified later, one excluded patron who never comes; no alarm."""
    rng = random.Random(30)
    tables = [f.table(code) for code in ("BB1", "BB2", "MB1", "MB2")]
    patrons = [
        patron_enrol(card_number=f"5{n:05d}", name=f"Patron {n}", tier=gold, nationality=rng.choice(["MO", "CN", "HK"]))
        for n in range(12)
    ]
    exclusion_record(patron=patrons[0], kind="self", starts_at=at(-10_000), ends_at=None, reason="self-excluded")
    free_at = {patron.pk: at(-4320) for patron in patrons[1:]}
    seat_free = {(table.pk, seat): at(-4320) for table in tables for seat in table.seats}
    sessions = 0
    for _ in range(60):
        patron = rng.choice(patrons[1:])
        table = rng.choice(tables)
        seat = rng.choice(table.seats)
        start = max(free_at[patron.pk], seat_free[(table.pk, seat)]) + dt.timedelta(minutes=rng.randint(0, 30))
        if start > at(-60):
            continue
        rated = rng.random() > 0.2
        session = session_sit(
            table=table, seat=seat, at=start, patron=patron if rated else None, description="" if rated else "a guest"
        )
        moment = start + dt.timedelta(minutes=rng.randint(5, 40))
        if rng.random() < 0.5:
            session_pause(session=session, at=moment)
            moment += dt.timedelta(minutes=rng.randint(1, 15))
            session_resume(session=session, at=moment)
        end = moment + dt.timedelta(minutes=rng.randint(5, 40))
        session_stand(session=session, at=end)
        if not rated:
            session_identify(session=session, patron=patron, reason="card found in the lost property")
        free_at[patron.pk] = end  # the next table from the moment they stood up
        seat_free[(table.pk, seat)] = end
        sessions += 1
    assert sessions > 30
    assert RuleViolation.objects.filter(code__in=CODES).count() == 0


# ------------------------------------------------------------------------------- concurrency (PG)
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sit_downs_at_one_seat_at_once_are_one_session():
    import threading

    from django.db import connection

    table = f.table("BB1")
    barrier, outcomes = threading.Barrier(2), []

    def sit(description):
        try:
            barrier.wait(timeout=10)
            outcomes.append(
                session_sit(
                    table=table, seat=1, at=at(0) + dt.timedelta(seconds=len(description)), description=description
                )
            )
        except Conflict as conflict:
            outcomes.append(conflict)
        finally:
            connection.close()

    threads = [threading.Thread(target=sit, args=(name,)) for name in ("man, grey suit", "woman, red scarf!")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(type(outcome).__name__ for outcome in outcomes) == ["Conflict", "SeatSession"]
    assert SeatSession.objects.filter(table=table, seat=1).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_card_swiped_at_two_tables_at_once_is_found():
    import threading

    from django.db import connection

    gold = Tier.objects.create(code="gold", name="Gold")
    patron = patron_enrol(card_number="100234", name="Li Wei", tier=gold, nationality="MO")
    tables = [f.table("BB1"), f.table("BB2")]
    barrier = threading.Barrier(2)

    def sit(table):
        try:
            barrier.wait(timeout=10)
            session_sit(table=table, seat=1, at=at(0), patron=patron)
        finally:
            connection.close()

    threads = [threading.Thread(target=sit, args=(table,)) for table in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert SeatSession.objects.count() == 2
    assert RuleViolation.objects.filter(code="patron_at_two_tables", cleared_at__isnull=True).count() == 1
