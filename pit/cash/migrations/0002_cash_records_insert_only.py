"""Cash rules, exchange rates, cash transactions, cash findings and their audit events are facts
(pit.core.immutable): insert-only, whoever connects. Frozen as SQL beside this file, one file per
database (`manage.py fact_protection_sql cash.<Model> --vendor <vendor>`), loaded as core/0002 loads
its own. Backwards: nothing (the triggers go with the table)."""

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
        ("cash", "0001_cash_rules_rates_transactions_and_findings"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
