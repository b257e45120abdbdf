"""Fixtures of the API tests: two tables, a device key for each, staff of each role with a token."""

import pytest
from rest_framework.test import APIClient

from pit.accounts.services import device_create, staff_token_create, user_create_with_role
from tests import factories


@pytest.fixture
def table(db):
    return factories.table("BB1")


@pytest.fixture
def other_table(db):
    return factories.table("BB2")


def _device_client(table, name="shoe reader"):
    device, key = device_create(table=table, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    client.device = device
    client.key = key
    return client


@pytest.fixture
def device(table):
    """An API client authenticated as a floor device of BB1 (`.device`, `.key`)."""
    return _device_client(table)


@pytest.fixture
def other_device(other_table):
    return _device_client(other_table, "terminal")


def _staff_client(role: str, username: str):
    user = user_create_with_role(username=username, password="a-long-password-123", role=role)
    _, key = staff_token_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.user = user
    return client


@pytest.fixture
def pit_boss(db):
    return _staff_client("pit boss", "boss")


@pytest.fixture
def accountant(db):
    return _staff_client("accountant", "counter")


@pytest.fixture
def auditor(db):
    return _staff_client("auditor", "auditor")


@pytest.fixture
def anonymous():
    return APIClient()


@pytest.fixture
def shoe(table):
    return factories.shoe(table)


def wagers7(player="100.00", banker="100.00"):
    """Seven wagers, one per seat of the default layout."""
    return [
        {"seat": 1, "bet": "player", "amount": player},
        {"seat": 2, "bet": "banker", "amount": banker},
        {"seat": 3, "bet": "tie", "amount": "25.00"},
        {"seat": 5, "bet": "player", "amount": "50.00"},
        {"seat": 6, "bet": "banker", "amount": "250.00"},
        {"seat": 7, "bet": "player_pair", "amount": "10.00"},
        {"seat": 8, "bet": "banker", "amount": "75.00"},
    ]


def counts() -> dict[str, int]:
    """Rows of everything the API can write, to assert that a refused request wrote nothing."""
    from pit.accounts.models import Device
    from pit.api.models import IdempotencyKey
    from pit.compliance.models import RuleViolation
    from pit.core.models import OutboxMessage
    from pit.ledger.models import BoxCount, CommissionEntry, Reconciliation
    from pit.shoes.models import Coup, Shoe, Wager
    from pit.tables.models import TableEvent

    models = (
        Device,
        IdempotencyKey,
        RuleViolation,
        BoxCount,
        CommissionEntry,
        Reconciliation,
        Coup,
        Shoe,
        Wager,
        TableEvent,
        OutboxMessage,
    )
    return {model.__name__: model.objects.count() for model in models}


def coup_body(number=1, player=("5H", "KD", "2C"), banker=("6S", "TD"), wagers=None, **extra) -> dict:
    """A correctly dealt coup: Player 7 (drew a 2), Banker 6 stands on a Player third card of 2."""
    body = {
        "number": number,
        "player": list(player),
        "banker": list(banker),
        "wagers": wagers7() if wagers is None else wagers,
    }
    body.update(extra)
    return body
