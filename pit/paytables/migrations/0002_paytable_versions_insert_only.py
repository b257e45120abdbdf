"""Paytable versions are facts (pit.core.immutable): never deleted, and a version that has settled a coup is never edited (a trigger refuses any UPDATE of it), whoever connects. Frozen as SQL beside this file, one file per database (`manage.py fact_protection_sql paytables.PaytableConfiguration
--vendor <vendor>`, and the settled version's trigger), loaded as core/0002 loads its own. Backwards: nothing (the triggers go with
the table)."""

from pathlib import Path

from django.db import migrations

SQL = Path(__file__).parent


def forward(apps, schema_editor):
    connection = schema_editor.connection
    path = SQL / f"{Path(__file__).stem}.{connection.vendor}.sql"
    if not path.exists():
        raise RuntimeError(f"no insert-only triggers for the {connection.vendor} database ({path.name})")
    for statement in connection.ops.prepare_sql_script(path.read_text()):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_facts_insert_only"),
        ("paytables", "0001_initial"),
        ("shoes", "0001_initial"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
