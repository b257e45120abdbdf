"""The commission ledger refuses UPDATE and DELETE in the database itself, on PostgreSQL and SQLite.

PostgreSQL: row-level BEFORE UPDATE/DELETE triggers raise. TRUNCATE (a whole-table reset, used
only by test flushes and operators) is a statement-level operation the row triggers do not see.
SQLite: BEFORE UPDATE/DELETE triggers that RAISE(ABORT).
"""

from django.db import migrations

TABLE = "ledger_commissionentry"
MESSAGE = "the commission ledger is append-only: corrections are new reversing entries"

POSTGRES_FORWARD = f"""
CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '%% refused on %%: {MESSAGE}', TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
"""
POSTGRES_BACKWARD = f"""
DROP TRIGGER IF EXISTS {TABLE}_append_only ON {TABLE};
DROP FUNCTION IF EXISTS ledger_refuse_change();
"""
SQLITE_FORWARD = [
    f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, 'UPDATE refused on {TABLE}: {MESSAGE}'); END;",
    f"CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, 'DELETE refused on {TABLE}: {MESSAGE}'); END;",
]
SQLITE_BACKWARD = [f"DROP TRIGGER IF EXISTS {TABLE}_no_update;", f"DROP TRIGGER IF EXISTS {TABLE}_no_delete;"]


def forward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(POSTGRES_FORWARD)
    elif vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)
    else:
        raise RuntimeError(f"no append-only trigger for the {vendor} database: add one before using it")


def backward(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in [POSTGRES_BACKWARD] if vendor == "postgresql" else SQLITE_BACKWARD:
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
