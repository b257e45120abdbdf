"""Every delivery of a report (shown, downloaded, read by the API, sent by a schedule) is a fact:
`ReportDelivery`, insert-only, its triggers frozen as SQL beside this file (`manage.py
fact_protection_sql reports.ReportDelivery --vendor <vendor>`); a background export keeps whether
its file holds the report's personal columns (`ReportExport.personal`)."""

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
        ("reports", "0003_export_language_and_headers"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="reportexport",
            name="personal",
            field=models.BooleanField(
                default=False, help_text="Whether the name and nationality were shown.", verbose_name="personal shown"
            ),
        ),
        migrations.CreateModel(
            name="ReportDelivery",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("report", models.CharField(max_length=40, verbose_name="report")),
                (
                    "format",
                    models.CharField(
                        choices=[
                            ("html", "The reports page"),
                            ("csv", "CSV"),
                            ("xlsx", "Excel workbook (XLSX)"),
                            ("pdf", "PDF for sign-off"),
                            ("json", "JSON (API)"),
                        ],
                        max_length=4,
                        verbose_name="format",
                    ),
                ),
                (
                    "via",
                    models.CharField(
                        choices=[
                            ("screen", "Shown on the reports page"),
                            ("download", "Downloaded at once"),
                            ("export", "Background export downloaded"),
                            ("api", "Read through the API"),
                            ("schedule", "Sent by a schedule"),
                        ],
                        max_length=8,
                        verbose_name="via",
                    ),
                ),
                (
                    "filters",
                    models.JSONField(help_text="ReportFilters.to_dict() of the request.", verbose_name="filters"),
                ),
                ("delivered_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="delivered at")),
                (
                    "detail",
                    models.CharField(
                        blank=True,
                        help_text="The export, or the schedule with the folder and addresses it went to.",
                        max_length=300,
                        verbose_name="detail",
                    ),
                ),
                (
                    "personal_shown",
                    models.BooleanField(
                        help_text="Whether the name and nationality were shown.", verbose_name="personal shown"
                    ),
                ),
                (
                    "delivered_to",
                    models.ForeignKey(
                        help_text="Who saw or received it; a schedule's owner for a scheduled run.",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="delivered to",
                    ),
                ),
            ],
            options={
                "verbose_name": "report delivery",
                "verbose_name_plural": "report deliveries",
                "ordering": ["-delivered_at", "-id"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("format__in", ["html", "csv", "xlsx", "pdf", "json"])),
                        name="report_delivery_format_valid",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("via__in", ["screen", "download", "export", "api", "schedule"])),
                        name="report_delivery_via_valid",
                    ),
                ],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
