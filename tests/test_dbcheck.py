"""`refused` checks which constraint failed, on SQLite as on PostgreSQL."""

import pytest

from pit.tables.models import Table, TableLimit
from tests import factories
from tests.dbcheck import refused

pytestmark = pytest.mark.django_db


def test_a_unique_constraint_is_told_from_another_of_the_same_table():
    table = factories.table(limits={})
    TableLimit.objects.create(table=table, bet="player", minimum_minor=100, maximum_minor=1000)
    with refused("table_limit_unique_per_bet"):
        TableLimit.objects.create(table=table, bet="player", minimum_minor=100, maximum_minor=1000)
    with pytest.raises(AssertionError), refused("table_limit_minimum_positive"):
        TableLimit.objects.create(table=table, bet="player", minimum_minor=100, maximum_minor=1000)


def test_a_unique_field_is_named():
    table = factories.table(limits={})
    with pytest.raises(AssertionError), refused("name"):
        Table.objects.create(code=table.code, name="again", game="big", paytable=table.paytable)
