"""SQLite rebuilds a table to change its constraints, which drops the table's triggers: the
corrections migrations keep every trigger of the tables they rebuild (the ledger's append-only
ones, and those other migrations add, e.g. insert-only facts), whatever order they run in."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

TRIGGERS = {
    "shoes_wager": "CREATE TRIGGER shoes_wager_test_no_update BEFORE UPDATE ON shoes_wager "
    "BEGIN SELECT RAISE(ABORT, 'UPDATE refused: 100% insert-only'); END",
    "ledger_commissionentry": "CREATE TRIGGER ledger_test_no_update BEFORE UPDATE ON ledger_commissionentry "
    "BEGIN SELECT RAISE(ABORT, 'UPDATE refused'); END",
}
TEST_TRIGGERS = ("shoes_wager_test_no_update", "ledger_test_no_update")
BEFORE = [("shoes", "0002_shoe_close_recorded_at"), ("ledger", "0003_audit_trail")]


def _triggers() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        return dict(cursor.fetchall())


def test_triggers_of_rebuilt_tables_survive_the_corrections_migrations():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only: PostgreSQL changes constraints in place")
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    try:
        with connection.cursor() as cursor:
            for sql in TRIGGERS.values():
                cursor.execute(sql)
        before = _triggers()
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
        after = _triggers()
        # The triggers on the rebuilt tables survive as they were (later migrations add their own,
        # and replace the ledger's first append-only trigger with the insert-only ones).
        assert {name: after.get(name) for name in TEST_TRIGGERS} == {name: before[name] for name in TEST_TRIGGERS}
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER IF EXISTS shoes_wager_test_no_update")
            cursor.execute("DROP TRIGGER IF EXISTS ledger_test_no_update")
        MigrationExecutor(connection).migrate(latest)
