"""Every look at a patron by staff (the patron's page, an API lookup) is a fact: `PatronLook`,
insert-only, its triggers frozen as SQL beside this file (`manage.py fact_protection_sql
players.PatronLook --vendor <vendor>`), loaded as 0002 loads its own."""

from pathlib import Path

import django.db.models.deletion
from django.conf import settings
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
        ("players", "0002_patron_records_insert_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PatronLook",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("looked_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="looked at")),
                (
                    "where",
                    models.CharField(
                        help_text="The page or API call, e.g. admin patron page.", max_length=60, verbose_name="where"
                    ),
                ),
                (
                    "personal_shown",
                    models.BooleanField(
                        help_text="Whether the name and nationality were shown.", verbose_name="personal shown"
                    ),
                ),
                (
                    "looked_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="looked by",
                    ),
                ),
                (
                    "patron",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="looks",
                        to="players.patron",
                        verbose_name="patron",
                    ),
                ),
            ],
            options={
                "verbose_name": "patron look",
                "verbose_name_plural": "patron looks",
                "ordering": ["-looked_at", "-id"],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
