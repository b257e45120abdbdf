"""A small pit built through the services, over two gaming days, for the report tests.

BB1 (big, commission in the box): shoe 1 on 2 Nov with four coups, a reversed accrual, a player
who left (collected at departure), a box short by 5.00 at seat 5 (explained by an accountant);
shoe 2 on 3 Nov, balanced. MB1 (mini, commission deducted): a shoe still dealing on 2 Nov with a
payout the table got wrong (a violation). Figures are checked against the ledger and the wagers.
"""

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

import pytest

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_collect, commission_entry_reverse, reconciliation_explain
from pit.shoes.models import Shoe
from pit.shoes.services import shoe_close
from tests import factories
from tests.factories import wager

BANKER_NATURAL = (["2H", "KD"], ["8C", "KS"])  # Player 2, Banker 8 (natural): Banker wins
PLAYER_NATURAL = (["9H", "KD"], ["5C", "2S"])  # Player 9 (natural) against Banker 7
TIE = (["8H", "KD"], ["8C", "KS"])  # 8 against 8, both natural

DAY_1 = dt.date(2026, 11, 2)
DAY_2 = dt.date(2026, 11, 3)


def at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)


@dataclass
class Pit:
    bb1: object
    mb1: object
    shoe_a: Shoe
    shoe_b: Shoe
    shoe_c: Shoe
    accountant: object


def _coup(shoe, number, hands, when, wagers):
    player, banker = hands
    return factories.coup(shoe, number, player, banker, wagers=wagers, dealt_at=when)


@pytest.fixture
def users(db):
    return {
        role: user_create_with_role(username=role.replace(" ", "_"), password="pw-" + role, role=role)
        for role in (Role.ACCOUNTANT, Role.AUDITOR, Role.PIT_BOSS)
    }


@pytest.fixture
def pit(db, users, django_capture_on_commit_callbacks) -> Pit:
    def step(service, *args, **kwargs):
        # Each service's after-commit work (rule checks, the reconciliation) runs as it would in
        # production: right after that service's own transaction, before the next step.
        with django_capture_on_commit_callbacks(execute=True):
            return service(*args, **kwargs)

    bb1 = step(factories.table, "BB1", game="big", preset="commission_box")
    mb1 = step(factories.table, "MB1", game="mini", preset="commission_deducted")

    shoe_a = step(factories.shoe, bb1, shuffled_at=at(DAY_1, 9))
    step(
        _coup,
        shoe_a,
        1,
        BANKER_NATURAL,
        at(DAY_1, 10),
        [
            wager(1, "banker", "100"),
            wager(2, "banker", "200"),
            wager(3, "player", "50"),
        ],
    )
    step(
        _coup,
        shoe_a,
        2,
        PLAYER_NATURAL,
        at(DAY_1, 10, 5),
        [
            wager(1, "banker", "100"),
            wager(2, "player", "100"),
            wager(3, "tie", "10"),
        ],
    )
    step(
        _coup,
        shoe_a,
        3,
        TIE,
        at(DAY_1, 10, 10),
        [
            wager(1, "banker", "100"),
            wager(2, "player", "25"),
            wager(3, "tie", "10"),
        ],
    )
    step(
        _coup,
        shoe_a,
        4,
        BANKER_NATURAL,
        at(DAY_1, 10, 15),
        [
            wager(1, "banker", "300"),
            wager(2, "banker", "40"),
            wager(5, "banker", "1000"),
            wager(6, "player_pair", "25"),
        ],
    )
    # A mistaken accrual on seat 1 (coup 1) is reversed; the player at seat 2 leaves.
    first_accrual = CommissionEntry.objects.get(shoe=shoe_a, seat=1, kind=EntryKind.ACCRUED, wager__coup__number=1)
    step(commission_entry_reverse, entry=first_accrual, note="Seat 1 was comped on coup 1")
    step(commission_collect, shoe=shoe_a, seat=2)
    step(
        shoe_close,
        shoe=shoe_a,
        closed_at=at(DAY_1, 11),
        box_counts=[
            (1, Decimal("15.00")),
            (2, Decimal("0")),
            (3, Decimal("0")),
            (5, Decimal("45.00")),
        ],
    )

    shoe_b = step(factories.shoe, bb1, shuffled_at=at(DAY_2, 9))
    step(_coup, shoe_b, 1, BANKER_NATURAL, at(DAY_2, 10), [wager(1, "banker", "500"), wager(2, "tie", "25")])
    step(shoe_close, shoe=shoe_b, closed_at=at(DAY_2, 11), box_counts=[(1, Decimal("25.00"))])

    shoe_c = step(factories.shoe, mb1, shuffled_at=at(DAY_1, 8))
    step(
        _coup,
        shoe_c,
        1,
        BANKER_NATURAL,
        at(DAY_1, 8, 30),
        [
            wager(1, "banker", "100", paid="90"),
            wager(2, "player", "100"),
        ],
    )
    shoe_a.refresh_from_db()
    reconciliation_explain(
        reconciliation=shoe_a.reconciliation,
        user=users[Role.ACCOUNTANT],
        note="A 5.00 chip fell under the rail",
    )
    return Pit(bb1, mb1, shoe_a, shoe_b, shoe_c, users[Role.ACCOUNTANT])
