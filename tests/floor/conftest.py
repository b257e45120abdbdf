"""Tables for the simulator tests, one per kind of paytable, with the demo pit's limits."""

import datetime as dt

import pytest

from pit.floor.demo import DEMO_TABLES
from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_create_from_preset
from pit.tables.services import table_create

# A fixed moment so that dealt_at (and so gaming days) are the same on every run.
NOW = dt.datetime(2026, 11, 20, 20, 0, tzinfo=dt.UTC)


@pytest.fixture
def pit_tables(db):
    """The demo pit's tables: commission in the box and deducted, no commission, mini, EZ, side bets, Tiger."""
    tables = []
    for code, name, game_kind, preset, limits in DEMO_TABLES:
        paytable = PaytableConfiguration.objects.filter(preset=preset).first() or paytable_create_from_preset(
            preset=preset
        )
        tables.append(table_create(code=code, name=name, game=game_kind, paytable=paytable, limits=limits))
    return tables
