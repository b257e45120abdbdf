"""Every fact stream's links (`StreamLink`, insert-only), a shoe's chain head that only grows, and
(PostgreSQL) the audit trail's triggers that no role can skip (pit.records.guard). The triggers and
functions are frozen as SQL beside this file, one file per database, as core/0002 loads its own:
the links' protection is `manage.py fact_protection_sql records.StreamLink --vendor <vendor>`.
Backwards: nothing (the triggers go with their tables)."""

from pathlib import Path

from django.db import migrations, models

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
        ("records", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="StreamLink",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "stream",
                    models.CharField(
                        help_text="The fact model, app_label.Model.", max_length=100, verbose_name="stream"
                    ),
                ),
                (
                    "seq",
                    models.PositiveBigIntegerField(
                        help_text="Position in the stream's chain, from 1.", verbose_name="seq"
                    ),
                ),
                (
                    "row_id",
                    models.BigIntegerField(help_text="The primary key of the row this links.", verbose_name="row id"),
                ),
                (
                    "hash",
                    models.CharField(
                        help_text="SHA-256 of the previous link's hash and the row's canonical form.",
                        max_length=64,
                        verbose_name="hash",
                    ),
                ),
                ("sealed_at", models.DateTimeField(db_index=True, verbose_name="sealed at")),
            ],
            options={
                "verbose_name": "stream link",
                "verbose_name_plural": "stream links",
                "ordering": ["stream", "seq"],
                "constraints": [
                    models.UniqueConstraint(fields=("stream", "seq"), name="stream_link_seq_unique"),
                    models.UniqueConstraint(fields=("stream", "row_id"), name="stream_link_row_unique"),
                ],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
