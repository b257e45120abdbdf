"""A small pit for the admin tests, made through the services: three tables, shoes with coups
(one breaking the third-card rule), a closed shoe reconciled with a variance, and users per role."""

from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from pit.accounts.models import Role
from pit.accounts.services import device_create, user_create_with_role
from pit.compliance.models import RuleViolation
from pit.shoes.services import shoe_close
from tests import factories as f

PASSWORD = "a-long-test-password-0123"

# Dealt cards: (player, banker), each a valid coup unless said otherwise.
PLAYER_NATURAL = (["9S", "KH"], ["5D", "2C"])  # 9-7, player wins, natural
BANKER_WINS = (["2H", "3D", "KC"], ["7S", "KD"])  # 5-7, banker wins
TIE = (["8H", "QS"], ["8D", "JC"])  # 8-8 natural tie
PAIRS = (["4H", "4S"], ["2D", "2C"])  # 8-4, player wins, both pairs
BANKER_DREW_ON_NATURAL = (["9C", "KS"], ["5H", "2S", "3H"])  # banker took a card it must not take


def other_suits(cards):
    """The same hands in other suits (same totals, pairs and rule findings), so that no ten cards
    in a row repeat another shoe's: game protection would flag a replayed shoe (tests/protection)."""
    rotate = str.maketrans("SHDC", "HDCS")
    return tuple([code.translate(rotate) for code in hand] for hand in cards)


def deal(shoe, number, cards, wagers=(), **kwargs):
    player, banker = cards
    return f.coup(shoe, number, player, banker, wagers=wagers, **kwargs)


def build_pit(django_capture_on_commit_callbacks):
    """The pit every admin test looks at (the rule checks run after commit, as in production)."""
    with django_capture_on_commit_callbacks(execute=True):
        bb1 = f.table("BB1", game="big")
        mb1 = f.table("MB1", game="mini", preset="no_commission")
        f.table("MB2", game="mini", preset="no_commission", open_=False)
        # BB1: shoe 1 dealt and closed with a box count 2.00 short; shoe 2 dealing.
        shoe1 = f.shoe(bb1)
        deal(shoe1, 1, BANKER_WINS, wagers=[f.wager(1, "banker", "100"), f.wager(2, "player", "50")])
        deal(shoe1, 2, BANKER_WINS, wagers=[f.wager(1, "banker", "100"), f.wager(3, "banker", "40")])
        deal(shoe1, 3, PLAYER_NATURAL, wagers=[f.wager(2, "player", "50")])
        shoe_close(shoe=shoe1, box_counts=[(1, Decimal("8.00")), (3, Decimal("2.00"))])
        shoe2 = f.shoe(bb1)
        for number, cards in enumerate([PLAYER_NATURAL, BANKER_WINS, TIE, PAIRS, BANKER_DREW_ON_NATURAL], 1):
            deal(shoe2, number, cards, wagers=[f.wager(2, "player", "25")])
        # MB1: one shoe dealing, a few coups.
        shoe3 = f.shoe(mb1, decks=6, cut_card_position=300)
        for number, cards in enumerate([TIE, PAIRS, BANKER_WINS, PLAYER_NATURAL, BANKER_WINS, BANKER_WINS, TIE], 1):
            deal(shoe3, number, other_suits(cards), wagers=[f.wager(1, "banker", "10"), f.wager(2, "tie", "5")])
    return SimpleNamespace(bb1=bb1, mb1=mb1, shoe1=shoe1, shoe2=shoe2, shoe3=shoe3)


@pytest.fixture
def pit(db, django_capture_on_commit_callbacks):
    return build_pit(django_capture_on_commit_callbacks)


@pytest.fixture
def violation(pit):
    """The open violation of shoe 2's coup 5 (the banker drew on a natural)."""
    return RuleViolation.objects.filter(coup__shoe=pit.shoe2, coup__number=5).order_by("pk").first()


def make_user(role: str | None, username: str | None = None):
    """A staff user in a role's group; `floor device` is a staff user in the empty floor-device group
    (devices authenticate by key; a user put in that group must get nothing in the admin)."""
    username = username or (role or "staff").replace(" ", "_")
    if role == Role.FLOOR_DEVICE:
        user = get_user_model().objects.create_user(username=username, password=PASSWORD, is_staff=True)
        user.groups.add(Group.objects.get(name=role))
        return user
    return user_create_with_role(username=username, password=PASSWORD, role=role)


@pytest.fixture
def pit_boss(db):
    return make_user(Role.PIT_BOSS)


@pytest.fixture
def accountant(db):
    return make_user(Role.ACCOUNTANT)


@pytest.fixture
def auditor(db):
    return make_user(Role.AUDITOR)


@pytest.fixture
def device(pit):
    made, _key = device_create(table=pit.bb1, name="shoe reader 1")
    return made


def build_more(django_capture_on_commit_callbacks):
    """As many rows again of every kind: a second big table with a reconciled shoe and devices."""
    with django_capture_on_commit_callbacks(execute=True):
        bb2 = f.table("BB2", game="big")
        f.table("MB3", game="mini", preset="no_commission", open_=False)
        f.table("MB4", game="mini", preset="tie_9_to_1")
        shoe = f.shoe(bb2)
        for number in range(1, 16):
            cards = BANKER_WINS if number % 2 else BANKER_DREW_ON_NATURAL
            deal(shoe, number, cards, wagers=[f.wager(1, "banker", "100"), f.wager(2, "banker", "50")])
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("1.00")), (2, Decimal("1.00"))])
        f.shoe(bb2)
        for n in range(3):
            device_create(table=bb2, name=f"terminal {n}")
        build_players(bb2)


def build_players(table):
    """Patrons at the table: a rated session with a break, a buy-in and a reversal, an unrated one
    identified later, a stood-up one, and an exclusion lifted (every page of the players' admin)."""
    import datetime as dt

    from django.utils import timezone

    from pit.players.models import Tier
    from pit.players.services import (
        buy_in_record,
        buy_in_reverse,
        exclusion_lift,
        exclusion_record,
        patron_enrol,
        session_identify,
        session_pause,
        session_sit,
        session_stand,
    )

    start = timezone.now() - dt.timedelta(hours=2)
    gold = Tier.objects.create(code="gold", name="Gold", colour="#d4af37", rank=3)
    li = patron_enrol(card_number="100234", name="Li Wei", tier=gold, nationality="MO")
    ana = patron_enrol(card_number="100235", name="Ana Lopes", tier=gold, nationality="PT")
    exclusion = exclusion_record(
        patron=ana, kind="self", starts_at=start - dt.timedelta(days=30), ends_at=None, reason="asked at the desk"
    )
    exclusion_lift(exclusion=exclusion, at=start - dt.timedelta(days=1), reason="lifted on appeal")
    seated = session_sit(table=table, seat=1, at=start, patron=li)
    session_pause(session=seated, at=start + dt.timedelta(minutes=20))
    cash = buy_in_record(session=seated, kind="cash", amount=Decimal("5000"), currency=table.currency, at=start)
    buy_in_reverse(buy_in=cash, reason="keyed twice")
    unrated = session_sit(table=table, seat=2, at=start, description="man, grey suit")
    session_identify(session=unrated, patron=ana, reason="card shown at the cage")
    stood = session_sit(table=table, seat=3, at=start, patron=ana)
    session_stand(session=stood, at=start + dt.timedelta(minutes=30), chips_walked=Decimal("700"))
