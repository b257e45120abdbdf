"""A shoe's close in the audit trail (`ShoeAuditEvent`, django-pghistory; the running counters are
not tracked), and its event table insert-only as every audit event table: the triggers frozen as
SQL beside this file (`manage.py fact_protection_sql shoes.ShoeAuditEvent --vendor <vendor>`),
loaded as core/0002 loads its own."""

from pathlib import Path

import django.db.models.deletion
import pghistory.utils
import pgtrigger.compiler
import pgtrigger.migrations
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
        ("accounts", "0003_roles"),
        ("core", "0002_facts_insert_only"),
        ("shoes", "0001_initial"),
        ("tables", "0002_table_events_insert_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ShoeAuditEvent",
            fields=[
                ("pgh_id", models.AutoField(primary_key=True, serialize=False)),
                ("pgh_created_at", models.DateTimeField(auto_now_add=True)),
                ("pgh_label", models.TextField(help_text="The event label.")),
                ("pgh_context", pghistory.utils.JSONField(null=True)),
                ("pgh_context_id", models.UUIDField(null=True)),
                ("id", models.BigIntegerField()),
                ("recorded_at", models.DateTimeField(auto_now_add=True, verbose_name="recorded at")),
                ("sequence", models.PositiveIntegerField(help_text="1, 2, 3 ... per table.", verbose_name="sequence")),
                ("decks", models.PositiveSmallIntegerField(default=8, verbose_name="decks")),
                ("shuffled_at", models.DateTimeField(verbose_name="shuffled at")),
                (
                    "cut_card_position",
                    models.PositiveSmallIntegerField(
                        help_text="Cards from the top of the shoe to the cut card (after the burn).",
                        verbose_name="cut card position",
                    ),
                ),
                ("burn_cards", models.JSONField(blank=True, default=list, verbose_name="burn cards")),
                (
                    "status",
                    models.CharField(
                        choices=[("dealing", "Dealing"), ("closed", "Closed")],
                        default="dealing",
                        max_length=8,
                        verbose_name="status",
                    ),
                ),
                (
                    "closed_at",
                    models.DateTimeField(
                        blank=True,
                        help_text="When the floor says the shoe was closed.",
                        null=True,
                        verbose_name="closed at",
                    ),
                ),
                (
                    "close_recorded_at",
                    models.DateTimeField(
                        blank=True,
                        editable=False,
                        help_text="When the close reached the back-office: coups recorded after it were posted to a closed shoe.",
                        null=True,
                        verbose_name="close recorded at",
                    ),
                ),
            ],
            options={
                "abstract": False,
            },
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="shoe",
            trigger=pgtrigger.compiler.Trigger(
                name="insert_insert",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "shoes_shoeauditevent" ("burn_cards", "close_recorded_at", "closed_at", "cut_card_position", "decks", "id", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "recorded_at", "recorded_by_device_id", "recorded_by_user_id", "sequence", "shuffled_at", "status", "table_id") VALUES (NEW."burn_cards", NEW."close_recorded_at", NEW."closed_at", NEW."cut_card_position", NEW."decks", NEW."id", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'insert\', NEW."id", NEW."recorded_at", NEW."recorded_by_device_id", NEW."recorded_by_user_id", NEW."sequence", NEW."shuffled_at", NEW."status", NEW."table_id"); RETURN NULL;',
                    hash="854fd06f8a9d13462c39c3a33054e4d1332e6d75",
                    operation="INSERT",
                    pgid="pgtrigger_insert_insert_a58cf",
                    table="shoes_shoe",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="shoe",
            trigger=pgtrigger.compiler.Trigger(
                name="update_update",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    condition='WHEN (OLD."burn_cards" IS DISTINCT FROM (NEW."burn_cards") OR OLD."close_recorded_at" IS DISTINCT FROM (NEW."close_recorded_at") OR OLD."closed_at" IS DISTINCT FROM (NEW."closed_at") OR OLD."cut_card_position" IS DISTINCT FROM (NEW."cut_card_position") OR OLD."decks" IS DISTINCT FROM (NEW."decks") OR OLD."id" IS DISTINCT FROM (NEW."id") OR OLD."recorded_at" IS DISTINCT FROM (NEW."recorded_at") OR OLD."recorded_by_device_id" IS DISTINCT FROM (NEW."recorded_by_device_id") OR OLD."recorded_by_user_id" IS DISTINCT FROM (NEW."recorded_by_user_id") OR OLD."sequence" IS DISTINCT FROM (NEW."sequence") OR OLD."shuffled_at" IS DISTINCT FROM (NEW."shuffled_at") OR OLD."status" IS DISTINCT FROM (NEW."status") OR OLD."table_id" IS DISTINCT FROM (NEW."table_id"))',
                    func='INSERT INTO "shoes_shoeauditevent" ("burn_cards", "close_recorded_at", "closed_at", "cut_card_position", "decks", "id", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "recorded_at", "recorded_by_device_id", "recorded_by_user_id", "sequence", "shuffled_at", "status", "table_id") VALUES (NEW."burn_cards", NEW."close_recorded_at", NEW."closed_at", NEW."cut_card_position", NEW."decks", NEW."id", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'update\', NEW."id", NEW."recorded_at", NEW."recorded_by_device_id", NEW."recorded_by_user_id", NEW."sequence", NEW."shuffled_at", NEW."status", NEW."table_id"); RETURN NULL;',
                    hash="2b1e875b82b329274161ab25cc808488be231515",
                    operation="UPDATE",
                    pgid="pgtrigger_update_update_7d694",
                    table="shoes_shoe",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="shoe",
            trigger=pgtrigger.compiler.Trigger(
                name="delete_delete",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "shoes_shoeauditevent" ("burn_cards", "close_recorded_at", "closed_at", "cut_card_position", "decks", "id", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id", "recorded_at", "recorded_by_device_id", "recorded_by_user_id", "sequence", "shuffled_at", "status", "table_id") VALUES (OLD."burn_cards", OLD."close_recorded_at", OLD."closed_at", OLD."cut_card_position", OLD."decks", OLD."id", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'delete\', OLD."id", OLD."recorded_at", OLD."recorded_by_device_id", OLD."recorded_by_user_id", OLD."sequence", OLD."shuffled_at", OLD."status", OLD."table_id"); RETURN NULL;',
                    hash="df267b5fd7ff44424d0a5df18c5431a3ddbdf63f",
                    operation="DELETE",
                    pgid="pgtrigger_delete_delete_17b65",
                    table="shoes_shoe",
                    when="AFTER",
                ),
            ),
        ),
        migrations.AddField(
            model_name="shoeauditevent",
            name="pgh_obj",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="audit_events",
                to="shoes.shoe",
            ),
        ),
        migrations.AddField(
            model_name="shoeauditevent",
            name="recorded_by_device",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="accounts.device",
                verbose_name="recorded by device",
            ),
        ),
        migrations.AddField(
            model_name="shoeauditevent",
            name="recorded_by_user",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="recorded by user",
            ),
        ),
        migrations.AddField(
            model_name="shoeauditevent",
            name="table",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                related_query_name="+",
                to="tables.table",
                verbose_name="table",
            ),
        ),
        migrations.RunPython(forward, migrations.RunPython.noop, elidable=False),
    ]
