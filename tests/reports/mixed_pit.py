"""A pit of two currencies whose table codes interleave (A1 USD, B1 JPY, C1 USD), one of them
without cents, over two gaming days, with a shoe still dealing: for tests that recompute every
subtotal and total from the rows in the database, independently of the report code.

Import the fixture into a test module: `from tests.reports.mixed_pit import mixed_pit  # noqa: F401`.
"""

from dataclasses import dataclass
from decimal import Decimal

import pytest

from pit.shoes.models import Shoe
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager
from tests.reports.conftest import BANKER_NATURAL, DAY_1, DAY_2, PLAYER_NATURAL, TIE, at

YEN_LIMITS = {"player": ("100", "1000000"), "banker": ("100", "1000000"), "tie": ("100", "100000")}


@dataclass
class MixedPit:
    a1: object
    b1: object
    c1: object
    dealing: Shoe  # A1's second shoe on DAY_1, still dealing


@pytest.fixture
def mixed_pit(db, django_capture_on_commit_callbacks) -> MixedPit:
    def step(service, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return service(*args, **kwargs)

    def coup(shoe, number, hands, when, wagers):
        player, banker = hands
        return step(factories.coup, shoe, number, player, banker, wagers=wagers, dealt_at=when)

    a1 = step(factories.table, "A1", preset="commission_box")
    b1 = step(factories.table, "B1", preset="commission_box", currency="JPY", limits=YEN_LIMITS)
    c1 = step(factories.table, "C1", game="mini", preset="commission_deducted")

    # DAY_1. A1: 5.00 + 12.50 owed, seat 1 counted 1.00 short; a Player win of 75 paid 100.
    shoe = step(factories.shoe, a1, shuffled_at=at(DAY_1, 9))
    coup(
        shoe,
        1,
        BANKER_NATURAL,
        at(DAY_1, 10),
        [wager(1, "banker", "100"), wager(2, "banker", "250"), wager(3, "player", "50")],
    )
    coup(
        shoe,
        2,
        PLAYER_NATURAL,
        at(DAY_1, 10, 5),
        [wager(1, "banker", "100"), wager(2, "player", "75", paid="100"), wager(3, "tie", "10")],
    )
    step(shoe_close, shoe=shoe, closed_at=at(DAY_1, 11), box_counts=[(1, Decimal("4.00")), (2, Decimal("12.50"))])
    dealing = step(factories.shoe, a1, shuffled_at=at(DAY_1, 11, 30))
    coup(dealing, 1, BANKER_NATURAL, at(DAY_1, 12), [wager(1, "banker", "200"), wager(2, "player", "30")])

    # B1 (yen): 127 + 50 owed (2,530 x 5% = 126.5, half up), seat 1 counted 3 over; a tie pays 8:1.
    shoe = step(factories.shoe, b1, shuffled_at=at(DAY_1, 9))
    coup(shoe, 1, BANKER_NATURAL, at(DAY_1, 10), [wager(1, "banker", "2530"), wager(2, "banker", "1000")])
    coup(shoe, 2, TIE, at(DAY_1, 10, 5), [wager(1, "banker", "500"), wager(2, "tie", "300")])
    step(shoe_close, shoe=shoe, closed_at=at(DAY_1, 11), box_counts=[(1, Decimal("130")), (2, Decimal("50"))])

    # C1 (commission deducted from the payout): nothing goes to a box.
    shoe = step(factories.shoe, c1, shuffled_at=at(DAY_1, 9))
    coup(shoe, 1, BANKER_NATURAL, at(DAY_1, 10), [wager(1, "banker", "100", paid="95"), wager(2, "player", "40")])
    step(shoe_close, shoe=shoe, closed_at=at(DAY_1, 11), box_counts=[])

    # DAY_2: B1 pays a Player natural.
    shoe = step(factories.shoe, b1, shuffled_at=at(DAY_2, 9))
    coup(shoe, 1, PLAYER_NATURAL, at(DAY_2, 10), [wager(1, "player", "1200"), wager(2, "banker", "800")])
    step(shoe_close, shoe=shoe, closed_at=at(DAY_2, 11), box_counts=[])
    dealing.refresh_from_db()
    return MixedPit(a1, b1, c1, dealing)
