"""Slip books and voided slip numbers (the fill and credit slip series) are facts: insert-only, whoever connects. The triggers are frozen as SQL beside this file, one file per database
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
        ("accounting", "0003_variance_investigations"),
        ("accounts", "0004_roles_streams_and_schedules"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SlipBook",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("first", models.PositiveBigIntegerField(verbose_name="first number")),
                ("last", models.PositiveBigIntegerField(verbose_name="last number")),
                ("received_at", models.DateTimeField(verbose_name="received at")),
                ("note", models.CharField(blank=True, max_length=200, verbose_name="note")),
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
            ],
            options={
                "verbose_name": "slip book",
                "verbose_name_plural": "slip books",
                "ordering": ["first"],
                "permissions": [("keep_slipbook", "Can record slip books and void slip numbers")],
            },
        ),
        migrations.CreateModel(
            name="SlipVoid",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("number", models.PositiveBigIntegerField(verbose_name="number")),
                ("reason", models.CharField(max_length=200, verbose_name="reason")),
                (
                    "book",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="voids",
                        to="accounting.slipbook",
                        verbose_name="book",
                    ),
                ),
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
                    "witness",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="witness",
                    ),
                ),
            ],
            options={
                "verbose_name": "voided slip number",
                "verbose_name_plural": "voided slip numbers",
                "ordering": ["number"],
            },
        ),
        migrations.AddConstraint(
            model_name="slipbook",
            constraint=models.UniqueConstraint(fields=("first",), name="slip_book_first_unique"),
        ),
        migrations.AddConstraint(
            model_name="slipbook",
            constraint=models.CheckConstraint(
                condition=models.Q(("last__gte", models.F("first"))), name="slip_book_range_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="slipbook",
            constraint=models.CheckConstraint(condition=models.Q(("first__gte", 1)), name="slip_book_first_positive"),
        ),
        migrations.AddConstraint(
            model_name="slipvoid",
            constraint=models.UniqueConstraint(fields=("number",), name="slip_void_once"),
        ),
        migrations.AddConstraint(
            model_name="slipvoid",
            constraint=models.CheckConstraint(
                condition=models.Q(("reason", ""), _negated=True), name="slip_void_has_reason"
            ),
        ),
        migrations.AddConstraint(
            model_name="slipvoid",
            constraint=models.CheckConstraint(
                condition=models.Q(("witness", models.F("recorded_by_user")), _negated=True),
                name="slip_void_witness_not_recorder",
            ),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
