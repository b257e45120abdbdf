"""Notices to surveillance and the regulator, their acknowledgements and filings, are facts: insert-only, whoever connects. The triggers are frozen as SQL beside this file, one file per database
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
    initial = True

    dependencies = [
        ("core", "0002_facts_insert_only"),
        ("accounts", "0004_roles_streams_and_schedules"),
        ("compliance", "0001_initial"),
        ("tables", "0003_limit_change_notices"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RegulatorNotice",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("rule_code", models.CharField(max_length=40, verbose_name="rule code")),
                ("jurisdiction", models.CharField(max_length=20, verbose_name="jurisdiction")),
                ("rule", models.CharField(max_length=300, verbose_name="rule")),
                ("gaming_day", models.DateField(db_index=True, verbose_name="gaming day")),
                ("message", models.TextField(verbose_name="message")),
                ("amount_minor", models.BigIntegerField(verbose_name="discrepancy (minor units)")),
                ("currency", models.CharField(max_length=3, verbose_name="currency")),
                ("source", models.CharField(max_length=80, unique=True, verbose_name="source")),
                ("found_at", models.DateTimeField(verbose_name="found at")),
                ("due_at", models.DateTimeField(db_index=True, verbose_name="report by")),
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
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="regulator_notices",
                        to="tables.table",
                        verbose_name="table",
                    ),
                ),
            ],
            options={
                "verbose_name": "notice to the regulator",
                "verbose_name_plural": "notices to the regulator",
                "ordering": ["due_at", "id"],
                "permissions": [("file_regulatornotice", "Can record the filing of a notice to the regulator")],
            },
        ),
        migrations.CreateModel(
            name="RegulatorNoticeFiling",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("reference", models.CharField(max_length=100, verbose_name="reference")),
                ("filed_at", models.DateTimeField(verbose_name="filed at")),
                ("note", models.CharField(blank=True, max_length=300, verbose_name="note")),
                (
                    "filed_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="filed by",
                    ),
                ),
                (
                    "notice",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="filing",
                        to="notices.regulatornotice",
                        verbose_name="notice",
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
            ],
            options={
                "verbose_name": "filing of a notice to the regulator",
                "verbose_name_plural": "filings of notices to the regulator",
                "ordering": ["-filed_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="SurveillanceNotification",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("drop", "Drop about to begin"),
                            ("decks", "Decks leaving storage"),
                            ("off_schedule", "Table opened or closed outside its schedule"),
                            ("large_fill", "Large fill"),
                            ("alarm", "Live alarm"),
                        ],
                        max_length=12,
                        verbose_name="kind",
                    ),
                ),
                ("message", models.TextField(verbose_name="message")),
                (
                    "source",
                    models.CharField(
                        help_text="What it is about, once.", max_length=80, unique=True, verbose_name="source"
                    ),
                ),
                ("notified_at", models.DateTimeField(db_index=True, verbose_name="notified at")),
                ("due_by", models.DateTimeField(verbose_name="acknowledge by")),
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
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="surveillance_notifications",
                        to="tables.table",
                        verbose_name="table",
                    ),
                ),
                (
                    "violation",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="compliance.ruleviolation",
                        verbose_name="violation",
                    ),
                ),
            ],
            options={
                "verbose_name": "surveillance notification",
                "verbose_name_plural": "surveillance notifications",
                "ordering": ["-notified_at", "-id"],
                "permissions": [
                    ("notify_surveillancenotification", "Can notify surveillance (a drop, decks leaving storage)"),
                    ("acknowledge_surveillancenotification", "Can acknowledge a notification (surveillance)"),
                ],
            },
        ),
        migrations.CreateModel(
            name="SurveillanceAcknowledgement",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("acknowledged_at", models.DateTimeField(verbose_name="acknowledged at")),
                ("note", models.CharField(blank=True, max_length=300, verbose_name="note")),
                (
                    "acknowledged_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="acknowledged by",
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
                    "notification",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="acknowledgement",
                        to="notices.surveillancenotification",
                        verbose_name="notification",
                    ),
                ),
            ],
            options={
                "verbose_name": "surveillance acknowledgement",
                "verbose_name_plural": "surveillance acknowledgements",
                "ordering": ["-acknowledged_at", "-id"],
            },
        ),
        migrations.AddConstraint(
            model_name="regulatornotice",
            constraint=models.CheckConstraint(
                condition=models.Q(("due_at__gte", models.F("found_at"))), name="regulator_notice_due_after"
            ),
        ),
        migrations.AddConstraint(
            model_name="regulatornotice",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount_minor__gte", 0)), name="regulator_notice_amount_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="regulatornoticefiling",
            constraint=models.CheckConstraint(
                condition=models.Q(("reference", ""), _negated=True), name="regulator_filing_has_reference"
            ),
        ),
        migrations.AddConstraint(
            model_name="surveillancenotification",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", ["drop", "decks", "off_schedule", "large_fill", "alarm"])),
                name="notification_kind_valid",
            ),
        ),
        migrations.AddConstraint(
            model_name="surveillancenotification",
            constraint=models.CheckConstraint(
                condition=models.Q(("due_by__gte", models.F("notified_at"))), name="notification_due_after"
            ),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
