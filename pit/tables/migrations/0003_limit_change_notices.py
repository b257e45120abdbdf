"""A limit change's announcement (tables.LimitChange) is a fact: insert-only, whoever connects. The triggers are frozen as SQL beside this file, one file per database
(`manage.py fact_protection_sql <models> --vendor <vendor>`), loaded as core/0002 loads its own.
Backwards: nothing (the triggers go with the tables)."""

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
        ("core", "0002_facts_insert_only"),
        ("accounts", "0004_roles_streams_and_schedules"),
        ("tables", "0002_table_events_insert_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LimitChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("announced_at", models.DateTimeField(db_index=True, verbose_name="announced at")),
                ("effective_from", models.DateTimeField(verbose_name="effective from")),
                (
                    "tightens",
                    models.BooleanField(
                        help_text="A minimum raised or a maximum lowered for some bet.", verbose_name="tightens"
                    ),
                ),
                (
                    "players_seated",
                    models.BooleanField(
                        help_text="Wagers at the table within the continuous-play gap when announced.",
                        verbose_name="players seated",
                    ),
                ),
                ("notice_minutes", models.PositiveIntegerField(verbose_name="notice (minutes)")),
                (
                    "grandfathering",
                    models.BooleanField(
                        help_text="Seated players keep the minimum they sat down under.", verbose_name="grandfathering"
                    ),
                ),
                ("jurisdiction", models.CharField(max_length=20, verbose_name="jurisdiction")),
                ("rule", models.CharField(max_length=300, verbose_name="rule")),
                (
                    "recorded_by_device",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="accounts.device",
                        verbose_name="recorded by device",
                    ),
                ),
                (
                    "recorded_by_user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="recorded by user",
                    ),
                ),
                (
                    "set_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="set by",
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="limit_changes",
                        to="tables.table",
                        verbose_name="table",
                    ),
                ),
            ],
            options={
                "verbose_name": "limit change",
                "verbose_name_plural": "limit changes",
                "ordering": ["-announced_at", "-id"],
                "constraints": [
                    models.UniqueConstraint(fields=("table", "effective_from"), name="limit_change_once_per_start"),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("effective_from__gte", models.F("announced_at")), ("notice_minutes", 0), _connector="OR"
                        ),
                        name="limit_change_effective_after_announced",
                    ),
                ],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
