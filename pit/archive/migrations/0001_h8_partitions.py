"""The archive's record, and on PostgreSQL the coups, wagers and commission entries partitioned by
month of gaming day (pit.core.partitions; rows kept). SQLite keeps plain tables: only the gaming
day of the wagers and entries written before is filled in there."""

from django.db import migrations, models

from pit.core.immutable import ProtectFacts
from pit.core.partitions import (
    backfill_partition_days,
    partition_tables_migration,
    partition_tables_migration_backwards,
)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("core", "0003_facts_protected"),
        ("shoes", "0005_h8_wager_gaming_day"),
        ("ledger", "0006_h8_entry_gaming_day"),
        ("compliance", "0003_h4_facts_insert_only"),
        ("protection", "0003_h7_no_permissions"),
    ]

    operations = [
        migrations.CreateModel(
            name="MonthArchive",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("month", models.DateField(help_text="First day of the month of gaming days.")),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("detached", "Archived to files and detached"),
                            ("dropped", "Detached tables dropped (their archive verified again first)"),
                        ],
                        max_length=8,
                    ),
                ),
                ("directory", models.CharField(help_text="Where the month's files and manifest are.", max_length=500)),
                ("manifest", models.JSONField(help_text="Per table: partition, file, rows, sha256.")),
                (
                    "operator",
                    models.CharField(help_text="Who ran manage.py archive_month (the OS user).", max_length=150),
                ),
                ("recorded_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["month", "recorded_at"],
                "default_permissions": (),
                "constraints": [
                    models.UniqueConstraint(fields=("month", "action"), name="month_archive_action_once"),
                    models.CheckConstraint(
                        condition=models.Q(("action__in", ["detached", "dropped"])), name="month_archive_action"
                    ),
                ],
            },
        ),
        ProtectFacts("MonthArchive"),
        migrations.RunPython(backfill_partition_days, migrations.RunPython.noop),
        # Not reversible on PostgreSQL (a partitioned table is not turned back into a plain one).
        migrations.RunPython(partition_tables_migration, partition_tables_migration_backwards),
    ]
