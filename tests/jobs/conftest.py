"""Builders shared by the job tests."""

import datetime as dt
from decimal import Decimal

import pytest
from django.utils import timezone

from pit.compliance.models import RuleViolation
from tests import factories

# Cards that make a correctly dealt coup with no third card: Player 9 (a natural) over Banker 0.
PLAYER_NATURAL = (["9S", "KH"], ["TS", "KD"])
# Banker 8 natural over Player 0: a winning Banker bet owes 5% into the box.
BANKER_NATURAL = (["TH", "QH"], ["8C", "KC"])


def findings(**filters) -> list[tuple[str, str]]:
    """(code, message) of the violations found by the coup checks, in a stable order."""
    rows = RuleViolation.objects.filter(found_by="coup_verification", **filters).order_by("fingerprint")
    return [(row.code, row.message) for row in rows]


@pytest.fixture
def dealt_at():
    """A moment well inside a gaming day (noon), yesterday."""
    day = timezone.localdate() - dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(12), tzinfo=timezone.get_current_timezone())


@pytest.fixture
def box_table(db):
    return factories.table("BB1", preset="commission_box")


@pytest.fixture
def box_shoe(box_table):
    return factories.shoe(box_table)


def amount(text: str) -> Decimal:
    return Decimal(text)
