"""A small pit for the table accounting tests: tables and two signers per role, made through services."""
import datetime as dt
from types import SimpleNamespace

import pytest

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
            ("dealer", Role.PIT_BOSS.value), ("boss", Role.PIT_BOSS.value), ("accountant", Role.ACCOUNTANT.value),
        )
    }
    return SimpleNamespace(
        bb1=f.table("BB1", game="big"),
        mb1=f.table("MB1", game="mini", preset="no_commission"),
        actor=Actor(user=users["boss"]),
        **users,
    )
