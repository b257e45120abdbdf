"""A bank of two tables with a progressive Player Pair meter, a third table outside it, and the signers."""

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.utils import timezone

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.progressives.services import meter_file
from tests import factories

PASSWORD = "a-long-test-password"


@pytest.fixture
def bank(db):
    start = timezone.now() - dt.timedelta(hours=1)
    bb1, bb2, bb3 = factories.table("BB1"), factories.table("BB2"), factories.table("BB3")
    meter = meter_file(
        code="PP1",
        name="Player Pair jackpot",
        bet="player_pair",
        currency="USD",
        effective_from=start,
        base=Decimal("1000.00"),
        reset=Decimal("500.00"),
        rate=Decimal("0.05"),
        tables=[bb1, bb2],
        filing_reference="DGE-2026-117",
    )
    return SimpleNamespace(
        meter=meter,
        start=start,
        bb1=bb1,
        bb2=bb2,
        bb3=bb3,
        shoes={table.code: factories.shoe(table, shuffled_at=start) for table in (bb1, bb2, bb3)},
        boss=user_create_with_role(username="boss", password=PASSWORD, role=Role.PIT_BOSS.value),
        cashier=user_create_with_role(username="cashier", password=PASSWORD, role=Role.CAGE.value),
        accountant=user_create_with_role(username="accountant", password=PASSWORD, role=Role.ACCOUNTANT.value),
    )
