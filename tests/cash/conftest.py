"""A floor for the cash tests: tables in USD (the US preset's reporting currency) and HKD, patrons,
and small helpers that record cash as the cage and the seats do."""

import datetime as dt
from decimal import Decimal

import pytest

from pit.cash.services import CashInput, transaction_record
from pit.players.models import Tier
from pit.players.services import buy_in_record, patron_enrol, session_sit, session_stand
from tests import factories

DAY = dt.date(2026, 3, 2)
START = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)  # gaming day 2026-03-02 (UTC, from 06:00)


def at(minutes: int, day_offset: int = 0) -> dt.datetime:
    return START + dt.timedelta(days=day_offset, minutes=minutes)


@pytest.fixture
def floor(db):
    gold = Tier.objects.create(code="gold", name="Gold")
    patrons = [
        patron_enrol(card_number=f"70000{n}", name=f"Patron {n}", tier=gold, nationality=nation)
        for n, nation in enumerate(("US", "CN", "MO", "HK"), start=1)
    ]
    return {
        "bb1": factories.table("BB1"),
        "bb2": factories.table("BB2"),
        "patrons": patrons,
    }


_references = iter(range(1, 10**6))


def cage(kind: str, amount: str, *, patron=None, description: str = "", minutes: int = 0, day_offset=0, currency="USD"):
    """A cage transaction of the patron (or a described person)."""
    return transaction_record(
        cash=CashInput(
            reference=f"CAGE-{next(_references)}",
            kind=kind,
            at=at(minutes, day_offset),
            currency=currency,
            amount=Decimal(amount),
            location="cage window 1",
            patron=patron,
            description=description,
        )
    )


def seated(table, seat: int, *, patron=None, description: str = "", minutes: int = 0, day_offset: int = 0):
    return session_sit(table=table, seat=seat, at=at(minutes, day_offset), patron=patron, description=description)


def buy(session, amount: str, *, kind: str = "cash", minutes: int = 1, day_offset: int = 0):
    return buy_in_record(
        session=session, kind=kind, amount=Decimal(amount), currency=session.table.currency, at=at(minutes, day_offset)
    )


def stand(session, *, minutes: int, walked: str | None = None, day_offset: int = 0):
    return session_stand(
        session=session, at=at(minutes, day_offset), chips_walked=None if walked is None else Decimal(walked)
    )
