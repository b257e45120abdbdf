"""Every fact table and audit-event table insert-only (pit.core.immutable): the triggers, frozen as
SQL beside this file, one file per database (`0002_facts_insert_only.<vendor>.sql`), made by
`manage.py fact_protection_sql --vendor <vendor>` over every protected model. After every app's
first migration: the tables exist, and no later migration rebuilds them (SQLite drops a rebuilt
table's triggers). Backwards: nothing (the triggers go with their tables)."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).parent


def forward(apps, schema_editor):
    connection = schema_editor.connection
    path = SQL / f"{Path(__file__).stem}.{connection.vendor}.sql"
    if not path.exists():
        # pit keeps its facts insert-only with triggers; another engine would hold them unguarded.
        raise RuntimeError(f"no insert-only triggers for the {connection.vendor} database ({path.name})")
    for statement in connection.ops.prepare_sql_script(path.read_text()):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0002_initial"),
        ("accounts", "0002_initial"),
        ("api", "0001_initial"),
        ("archive", "0001_initial"),
        ("compliance", "0001_initial"),
        ("core", "0001_initial"),
        ("dealers", "0001_initial"),
        ("ledger", "0001_initial"),
        ("paytables", "0001_initial"),
        ("protection", "0001_initial"),
        ("records", "0001_initial"),
        ("reports", "0001_initial"),
        ("rollups", "0001_initial"),
        ("shoes", "0001_initial"),
        ("tables", "0001_initial"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
