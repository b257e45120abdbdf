"""Progressive meters, their configurations, bank tables, payouts and readings are facts
(pit.core.immutable): insert-only, whoever connects (`manage.py fact_protection_sql progressives.<Model>
--vendor <vendor>`). Beside them, frozen in the same files: the meter never goes down except by a
recorded payout (a reading below the last is refused unless it is a payout's reset; a payout pays the
last reading), and on PostgreSQL the winning coup's key checked at commit (coups are partitioned).
Backwards: nothing (the triggers go with the tables)."""

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
        ("archive", "0002_partitioned_by_month"),
        ("progressives", "0001_progressive_meters"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop, elidable=False)]
