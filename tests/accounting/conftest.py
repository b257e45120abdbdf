"""A small pit for the table accounting tests: tables and two signers per role, made through services."""

import datetime as dt
from types import SimpleNamespace

import pytest

from pit.accounting.services import drop_record, inventory_record, slip_issue, slip_receive, slip_request
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.core.actors import Actor
from tests import factories as f

DAY = dt.date(2026, 11, 20)
PASSWORD = "a-long-test-password-0123"

# A tray of $25, $100 and $500 chips (denominations in cents).
TRAY = {"2500": 40, "10000": 30, "50000": 10}  # $1,000 + $3,000 + $5,000 = $9,000


@pytest.fixture
def pit(db):
    users = {
        name: user_create_with_role(username=name, password=PASSWORD, role=role)
        for name, role in (
            ("dealer", Role.PIT_BOSS.value),
            ("boss", Role.PIT_BOSS.value),
            ("accountant", Role.ACCOUNTANT.value),
            ("cashier", Role.CAGE.value),
        )
    }
    return SimpleNamespace(
        bb1=f.table("BB1", game="big"),
        mb1=f.table("MB1", game="mini", preset="no_commission"),
        actor=Actor(user=users["boss"]),  # requests slips and records counts, the dealer signing by password
        cage_actor=Actor(user=users["cashier"]),  # issues them (segregation of duties: another person)
        table_actor=Actor(user=users["dealer"]),  # receives them at the table (a third person)
        secrets={"dealer": PASSWORD},
        **users,
    )


def day_of_play(pit, table, day, *, opener, closer, fills=(), credits=(), drop, shift=1):
    """Counts and slips of one table and period, all in $100 chips (denominations in cents)."""

    def count(kind, pieces):
        inventory_record(
            table=table,
            gaming_day=day,
            shift=shift,
            kind=kind,
            chips={"10000": pieces},
            dealer=pit.dealer,
            pit_boss=pit.boss,
            secrets=pit.secrets,
            actor=pit.actor,
        )

    count("opener", opener)
    for kind, amounts in (("fill", fills), ("credit", credits)):
        for index, pieces in enumerate(amounts):
            slip = slip_request(
                kind=kind,
                number=f"{kind}-{table.code}-{day}-{shift}-{index}",
                table=table,
                gaming_day=day,
                shift=shift,
                reason="tray",
                chips={"10000": pieces},
                actor=pit.actor,
            )
            slip_issue(slip=slip, chips={"10000": pieces}, actor=pit.cage_actor)
            slip_receive(slip=slip, chips={"10000": pieces}, actor=pit.table_actor)
    count("closer", closer)
    drop_record(table=table, gaming_day=day, shift=shift, cash={"10000": drop}, actor=pit.actor)
