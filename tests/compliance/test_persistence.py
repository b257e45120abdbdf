"""The rule checks' reads whose statement differs by database answer the same on PostgreSQL."""

import pytest

from pit.compliance import persistence
from pit.compliance.checks.chunk import CoupRow
from pit.protection.checks.rows import COUP_COLUMNS, WAGER_COLUMNS, WagerRow
from pit.shoes.models import Coup, Wager
from tests import factories
from tests.protection.test_sequences import dealt


def test_the_rule_checks_coup_rows_begin_with_the_columns_protection_reads():
    assert CoupRow._fields[: len(COUP_COLUMNS)] == COUP_COLUMNS
    assert WagerRow._fields == WAGER_COLUMNS


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_chunks_wagers_by_their_partitions_are_those_by_their_coups_alone():
    shoes = [factories.shoe(factories.table(code)) for code in ("BB1", "BB2")]
    for shoe in shoes:
        for number, (player, banker) in enumerate(dealt(shoe.pk, 6), start=1):
            factories.coup(
                shoe,
                number,
                player,
                banker,
                wagers=[factories.wager(1, "banker", "25"), factories.wager(2, "player", "10", paid="0")],
            )
    coup_ids = list(Coup.objects.filter(shoe=shoes[0]).values_list("pk", flat=True))
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))

    by_partition = persistence.chunk_wagers_postgresql(coup_ids, days[0], days[-1])

    assert by_partition == persistence.chunk_wagers_sqlite(coup_ids, days[0], days[-1])
    assert len(by_partition) == Wager.objects.filter(coup_id__in=coup_ids).count() == 12
    assert all(isinstance(row, WagerRow) for row in by_partition)
    assert [(row.coup_id, row.seat) for row in by_partition] == sorted((row.coup_id, row.seat) for row in by_partition)
