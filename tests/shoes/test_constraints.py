"""Every named constraint on shoes, coups and wagers is held by the database itself."""

import datetime as dt

import pytest
from django.utils import timezone

from pit.shoes.models import Coup, Shoe, Wager
from tests import factories
from tests.dbcheck import refused
from tests.shoes import hands

pytestmark = pytest.mark.django_db


@pytest.fixture
def shoe():
    return factories.shoe()


@pytest.fixture
def coup(shoe):
    return factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])


def new_shoe(table, **fields):
    values = {
        "sequence": 2,
        "shuffled_at": timezone.now(),
        "cut_card_position": 380,
        "status": "closed",
        "closed_at": timezone.now(),
        **fields,
    }
    return Shoe.objects.create(table=table, **values)


def new_coup(shoe, **fields):
    values = {
        "number": 2,
        "dealt_at": timezone.now(),
        "gaming_day": dt.date(2026, 3, 1),
        "player_cards": ["2H", "5D"],
        "banker_cards": ["4C", "5S"],
        "player_total": 7,
        "banker_total": 9,
        "winner": "banker",
        "natural": True,
        "player_pair": False,
        "banker_pair": False,
        "paytable_id": shoe.table.paytable_id,
        **fields,
    }
    return Coup.objects.create(shoe=shoe, **values)


def new_wager(coup, **fields):
    values = {
        "seat": 2,
        "bet": "player",
        "currency": "USD",
        "amount_minor": 100,
        "result": "lose",
        "payout_minor": 0,
        **fields,
    }
    return Wager.objects.create(coup=coup, **values)


def test_shoe_sequence_unique_per_table(shoe):
    with refused("shoe_sequence_unique_per_table"):
        new_shoe(shoe.table, sequence=1)


def test_shoe_one_dealing_per_table(shoe):
    with refused("shoe_one_dealing_per_table"):
        new_shoe(shoe.table, status="dealing", closed_at=None)


def test_shoe_decks_range(shoe):
    with refused("shoe_decks_range"):
        new_shoe(shoe.table, decks=13)
    with refused("shoe_decks_range"):
        new_shoe(shoe.table, decks=0)


def test_shoe_status_valid(shoe):
    with refused("shoe_status_valid", "shoe_closed_at_iff_closed"):
        new_shoe(shoe.table, status="burning")


def test_shoe_closed_at_iff_closed(shoe):
    with refused("shoe_closed_at_iff_closed"):
        new_shoe(shoe.table, closed_at=None)
    with refused("shoe_closed_at_iff_closed"):
        Shoe.objects.filter(pk=shoe.pk).update(closed_at=timezone.now())


def test_coup_number_unique_per_shoe(coup):
    with refused("coup_number_unique_per_shoe"):
        new_coup(coup.shoe, number=1)


def test_coup_number_positive(shoe):
    with refused("coup_number_positive"):
        new_coup(shoe, number=0)


def test_coup_totals_range(shoe):
    with refused("coup_player_total_range"):
        new_coup(shoe, player_total=10)
    with refused("coup_banker_total_range"):
        new_coup(shoe, banker_total=10)


def test_coup_winner_valid(shoe):
    with refused("coup_winner_valid"):
        new_coup(shoe, winner="dragon")


def test_wager_unique_per_coup_seat_bet(coup):
    with refused("wager_unique_per_coup_seat_bet"):
        new_wager(coup, seat=1, bet="banker")


@pytest.mark.parametrize(
    ("fields", "constraint"),
    [
        ({"amount_minor": 0}, "wager_amount_positive"),
        ({"payout_minor": -1}, "wager_payout_not_negative"),
        ({"commission_minor": -1}, "wager_commission_not_negative"),
        ({"paid_minor": -1}, "wager_paid_not_negative"),
        ({"result": "draw"}, "wager_result_valid"),
    ],
)
def test_wager_checks(coup, fields, constraint):
    with refused(constraint):
        new_wager(coup, **fields)
    new_wager(coup, paid_minor=None)  # a wager the table did not report paying is allowed
