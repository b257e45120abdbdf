"""Every named constraint of the tables app is held by the database itself."""

import pytest
from django.utils import timezone

from pit.tables.models import Table, TableEvent, TableLimit
from tests import factories
from tests.dbcheck import refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    return factories.table(limits={})


def test_table_status_valid(table):
    with refused("table_status_valid"):
        Table.objects.filter(pk=table.pk).update(status="ajar")


def test_table_game_valid(table):
    with refused("table_game_valid"):
        Table.objects.filter(pk=table.pk).update(game="craps")


def test_table_code_unique(table):
    with refused("code"):
        Table.objects.create(code=table.code, name="again", game="big", paytable=table.paytable)


def test_table_limit_unique_per_bet(table):
    TableLimit.objects.create(table=table, bet="player", minimum_minor=100, maximum_minor=1000)
    with refused("table_limit_unique_per_bet"):
        TableLimit.objects.create(table=table, bet="player", minimum_minor=200, maximum_minor=2000)


def test_table_limit_minimum_positive(table):
    with refused("table_limit_minimum_positive"):
        TableLimit.objects.create(table=table, bet="player", minimum_minor=0, maximum_minor=1000)


def test_table_limit_max_gte_min(table):
    with refused("table_limit_max_gte_min"):
        TableLimit.objects.create(table=table, bet="player", minimum_minor=1000, maximum_minor=999)


def test_table_event_kind_valid(table):
    with refused("table_event_kind_valid"):
        TableEvent.objects.create(table=table, kind="paused", at=timezone.now())
