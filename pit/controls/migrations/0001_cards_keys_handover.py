"""The pit's internal controls: card custody (decks received, issued, returned, cancelled, destroyed,
storage counts), sensitive keys (access lists, issues, returns) and the shift handover with its
acceptance. Every control record is a fact: the insert-only triggers, with the audit trail's event
tables of storage places and keys, are frozen as SQL beside this file (`manage.py fact_protection_sql
controls.<Model> ... --vendor <vendor>`), loaded as core/0002 loads its own. Backwards: nothing (the
triggers go with the tables)."""

from pathlib import Path

import django.db.models.deletion
import pghistory.utils
import pgtrigger.compiler
import pgtrigger.migrations
from django.conf import settings
from django.db import migrations, models


SQL = Path(__file__).parent


def protect(apps, schema_editor):
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
        ("shoes", "0002_shoe_close_audited_and_events_insert_only"),
        ("tables", "0002_table_events_insert_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SensitiveKeyAuditEvent",
            fields=[
                ("pgh_id", models.AutoField(primary_key=True, serialize=False)),
                ("pgh_created_at", models.DateTimeField(auto_now_add=True)),
                ("pgh_label", models.TextField(help_text="The event label.")),
                ("pgh_context", pghistory.utils.JSONField(null=True)),
                ("pgh_context_id", models.UUIDField(null=True)),
                ("id", models.BigIntegerField()),
                (
                    "code",
                    models.SlugField(
                        db_index=False, help_text="The tag on the key ring.", max_length=30, verbose_name="code"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("drop_box_release", "Drop box release"),
                            ("table_inventory", "Table inventory"),
                            ("card_storage", "Card storage"),
                            ("progressive_controller", "Progressive controller"),
                        ],
                        max_length=24,
                        verbose_name="kind",
                    ),
                ),
                ("name", models.CharField(max_length=100, verbose_name="name")),
                (
                    "max_out_minutes",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Empty: PIT_CONTROLS_KEY_MAX_OUT_MINUTES.",
                        null=True,
                        verbose_name="minutes out at most",
                    ),
                ),
            ],
            options={
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="ShiftHandover",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("shift_change_at", models.DateTimeField(db_index=True, verbose_name="shift change")),
                ("gaming_day", models.DateField(db_index=True, verbose_name="gaming day")),
                ("handed_at", models.DateTimeField(verbose_name="handed over at")),
                ("sections", models.JSONField(verbose_name="sections")),
                ("note", models.TextField(blank=True, verbose_name="note")),
            ],
            options={
                "verbose_name": "shift handover",
                "verbose_name_plural": "shift handovers",
                "ordering": ["-shift_change_at", "id"],
                "permissions": [("record_shifthandover", "Can hand over or accept a shift")],
            },
        ),
        migrations.CreateModel(
            name="StorageCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("counted_at", models.DateTimeField(db_index=True, verbose_name="counted at")),
                ("decks", models.PositiveIntegerField(verbose_name="decks counted")),
            ],
            options={
                "verbose_name": "card storage count",
                "verbose_name_plural": "card storage counts",
                "ordering": ["counted_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="StoragePlace",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.SlugField(max_length=20, unique=True, verbose_name="code")),
                ("name", models.CharField(max_length=100, verbose_name="name")),
            ],
            options={
                "verbose_name": "card storage place",
                "verbose_name_plural": "card storage places",
                "ordering": ["code"],
            },
        ),
        migrations.CreateModel(
            name="StoragePlaceAuditEvent",
            fields=[
                ("pgh_id", models.AutoField(primary_key=True, serialize=False)),
                ("pgh_created_at", models.DateTimeField(auto_now_add=True)),
                ("pgh_label", models.TextField(help_text="The event label.")),
                ("pgh_context", pghistory.utils.JSONField(null=True)),
                ("pgh_context_id", models.UUIDField(null=True)),
                ("id", models.BigIntegerField()),
                ("code", models.SlugField(db_index=False, max_length=20, verbose_name="code")),
                ("name", models.CharField(max_length=100, verbose_name="name")),
            ],
            options={
                "abstract": False,
            },
        ),
        migrations.CreateModel(
            name="Deck",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                (
                    "serial",
                    models.CharField(
                        help_text="The deck's number on its seal.", max_length=40, unique=True, verbose_name="serial"
                    ),
                ),
                (
                    "lot",
                    models.CharField(
                        blank=True, help_text="The delivery or invoice it came in.", max_length=40, verbose_name="lot"
                    ),
                ),
                ("received_at", models.DateTimeField(db_index=True, verbose_name="received at")),
                (
                    "received_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="received by",
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
                    "second_signer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="second signer",
                    ),
                ),
            ],
            options={
                "verbose_name": "deck received",
                "verbose_name_plural": "decks received",
                "ordering": ["received_at", "serial"],
                "permissions": [("record_deck", "Can record decks received, issued, returned, cancelled or destroyed")],
            },
        ),
        migrations.CreateModel(
            name="DeckEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("returned", "Returned to storage"),
                            ("cancelled", "Cancelled (marked unusable)"),
                            ("destroyed", "Destroyed"),
                        ],
                        max_length=10,
                        verbose_name="kind",
                    ),
                ),
                ("at", models.DateTimeField(db_index=True, verbose_name="at")),
                ("note", models.CharField(blank=True, max_length=200, verbose_name="note")),
                (
                    "by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="by",
                    ),
                ),
                (
                    "deck",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="events",
                        to="controls.deck",
                        verbose_name="deck",
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
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="witness",
                    ),
                ),
            ],
            options={
                "verbose_name": "deck movement",
                "verbose_name_plural": "deck movements",
                "ordering": ["at", "id"],
            },
        ),
        migrations.CreateModel(
            name="DeckIssue",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("issued_at", models.DateTimeField(db_index=True, verbose_name="issued at")),
                (
                    "deck",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="issues",
                        to="controls.deck",
                        verbose_name="deck",
                    ),
                ),
                (
                    "issued_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="issued by",
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
                    "shoe",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="shoes.shoe",
                        verbose_name="shoe",
                    ),
                ),
                (
                    "table",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="tables.table",
                        verbose_name="table",
                    ),
                ),
                (
                    "taken_by",
                    models.ForeignKey(
                        help_text="Who signed for the deck at the table.",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="taken by",
                    ),
                ),
            ],
            options={
                "verbose_name": "deck issued",
                "verbose_name_plural": "decks issued",
                "ordering": ["issued_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="HandoverAcceptance",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("accepted_at", models.DateTimeField(verbose_name="accepted at")),
                ("note", models.TextField(blank=True, verbose_name="note")),
                (
                    "accepted_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="accepted by",
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
                "verbose_name": "handover acceptance",
                "verbose_name_plural": "handover acceptances",
                "ordering": ["-accepted_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="KeyIssue",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("issued_at", models.DateTimeField(db_index=True, verbose_name="issued at")),
                ("due_at", models.DateTimeField(verbose_name="due back at")),
                ("purpose", models.CharField(max_length=200, verbose_name="purpose")),
                (
                    "issued_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="issued by",
                    ),
                ),
                (
                    "issued_to",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="issued to",
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
                    "table",
                    models.ForeignKey(
                        help_text="The table it is drawn for.",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="tables.table",
                        verbose_name="table",
                    ),
                ),
            ],
            options={
                "verbose_name": "key issued",
                "verbose_name_plural": "keys issued",
                "ordering": ["issued_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="KeyReturn",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("returned_at", models.DateTimeField(verbose_name="returned at")),
                (
                    "issue",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="returned",
                        to="controls.keyissue",
                        verbose_name="issue",
                    ),
                ),
                (
                    "received_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="received by",
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
                    "returned_by",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="returned by",
                    ),
                ),
            ],
            options={
                "verbose_name": "key returned",
                "verbose_name_plural": "keys returned",
                "ordering": ["returned_at", "id"],
            },
        ),
        migrations.CreateModel(
            name="SensitiveKey",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "code",
                    models.SlugField(
                        help_text="The tag on the key ring.", max_length=30, unique=True, verbose_name="code"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("drop_box_release", "Drop box release"),
                            ("table_inventory", "Table inventory"),
                            ("card_storage", "Card storage"),
                            ("progressive_controller", "Progressive controller"),
                        ],
                        max_length=24,
                        verbose_name="kind",
                    ),
                ),
                ("name", models.CharField(max_length=100, verbose_name="name")),
                (
                    "max_out_minutes",
                    models.PositiveIntegerField(
                        blank=True,
                        help_text="Empty: PIT_CONTROLS_KEY_MAX_OUT_MINUTES.",
                        null=True,
                        verbose_name="minutes out at most",
                    ),
                ),
            ],
            options={
                "verbose_name": "sensitive key",
                "verbose_name_plural": "sensitive keys",
                "ordering": ["code"],
                "permissions": [("record_keyissue", "Can record a key issued or returned")],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            (
                                "kind__in",
                                ["drop_box_release", "table_inventory", "card_storage", "progressive_controller"],
                            )
                        ),
                        name="key_kind_valid",
                    )
                ],
            },
        ),
        migrations.AddField(
            model_name="keyissue",
            name="key",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="issues",
                to="controls.sensitivekey",
                verbose_name="key",
            ),
        ),
        migrations.CreateModel(
            name="KeyAccessList",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("recorded_at", models.DateTimeField(auto_now_add=True, db_index=True, verbose_name="recorded at")),
                ("version", models.PositiveIntegerField(verbose_name="version")),
                ("effective_from", models.DateTimeField(verbose_name="effective from")),
                (
                    "holders",
                    models.JSONField(
                        help_text="The ids of the users who may draw the key, ascending.", verbose_name="holders"
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
                    "key",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="access_lists",
                        to="controls.sensitivekey",
                        verbose_name="key",
                    ),
                ),
            ],
            options={
                "verbose_name": "key access list",
                "verbose_name_plural": "key access lists",
                "ordering": ["key", "-version"],
            },
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="sensitivekey",
            trigger=pgtrigger.compiler.Trigger(
                name="insert_insert",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "controls_sensitivekeyauditevent" ("code", "id", "kind", "max_out_minutes", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (NEW."code", NEW."id", NEW."kind", NEW."max_out_minutes", NEW."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'insert\', NEW."id"); RETURN NULL;',
                    hash="81b0ac9ab61966bf01d079e40846778e49187211",
                    operation="INSERT",
                    pgid="pgtrigger_insert_insert_e93fa",
                    table="controls_sensitivekey",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="sensitivekey",
            trigger=pgtrigger.compiler.Trigger(
                name="update_update",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    condition="WHEN (OLD.* IS DISTINCT FROM NEW.*)",
                    func='INSERT INTO "controls_sensitivekeyauditevent" ("code", "id", "kind", "max_out_minutes", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (NEW."code", NEW."id", NEW."kind", NEW."max_out_minutes", NEW."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'update\', NEW."id"); RETURN NULL;',
                    hash="b6a54d84e29706ff2580ea3f410dea2272ab102a",
                    operation="UPDATE",
                    pgid="pgtrigger_update_update_8a979",
                    table="controls_sensitivekey",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="sensitivekey",
            trigger=pgtrigger.compiler.Trigger(
                name="delete_delete",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "controls_sensitivekeyauditevent" ("code", "id", "kind", "max_out_minutes", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (OLD."code", OLD."id", OLD."kind", OLD."max_out_minutes", OLD."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'delete\', OLD."id"); RETURN NULL;',
                    hash="5c72096c0288a31fac705dfe6c702fafb4de3926",
                    operation="DELETE",
                    pgid="pgtrigger_delete_delete_89348",
                    table="controls_sensitivekey",
                    when="AFTER",
                ),
            ),
        ),
        migrations.AddField(
            model_name="sensitivekeyauditevent",
            name="pgh_obj",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="audit_events",
                to="controls.sensitivekey",
            ),
        ),
        migrations.AddField(
            model_name="shifthandover",
            name="handed_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="handed over by",
            ),
        ),
        migrations.AddField(
            model_name="shifthandover",
            name="recorded_by_device",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.device",
                verbose_name="recorded by device",
            ),
        ),
        migrations.AddField(
            model_name="shifthandover",
            name="recorded_by_user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="recorded by user",
            ),
        ),
        migrations.AddField(
            model_name="handoveracceptance",
            name="handover",
            field=models.OneToOneField(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="acceptance",
                to="controls.shifthandover",
                verbose_name="handover",
            ),
        ),
        migrations.AddField(
            model_name="storagecount",
            name="counted_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="counted by",
            ),
        ),
        migrations.AddField(
            model_name="storagecount",
            name="recorded_by_device",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounts.device",
                verbose_name="recorded by device",
            ),
        ),
        migrations.AddField(
            model_name="storagecount",
            name="recorded_by_user",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="recorded by user",
            ),
        ),
        migrations.AddField(
            model_name="storagecount",
            name="witness",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="witness",
            ),
        ),
        migrations.AddField(
            model_name="storagecount",
            name="storage",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="controls.storageplace",
                verbose_name="storage",
            ),
        ),
        migrations.AddField(
            model_name="deckevent",
            name="storage",
            field=models.ForeignKey(
                help_text="Where a returned deck is kept; where a deck was cancelled or destroyed.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="controls.storageplace",
                verbose_name="storage",
            ),
        ),
        migrations.AddField(
            model_name="deck",
            name="storage",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="decks",
                to="controls.storageplace",
                verbose_name="storage",
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="storageplace",
            trigger=pgtrigger.compiler.Trigger(
                name="insert_insert",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "controls_storageplaceauditevent" ("code", "id", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (NEW."code", NEW."id", NEW."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'insert\', NEW."id"); RETURN NULL;',
                    hash="89fe9993757122a9b3296e2eb555d244bedec851",
                    operation="INSERT",
                    pgid="pgtrigger_insert_insert_9edc6",
                    table="controls_storageplace",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="storageplace",
            trigger=pgtrigger.compiler.Trigger(
                name="update_update",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    condition="WHEN (OLD.* IS DISTINCT FROM NEW.*)",
                    func='INSERT INTO "controls_storageplaceauditevent" ("code", "id", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (NEW."code", NEW."id", NEW."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'update\', NEW."id"); RETURN NULL;',
                    hash="e9103e5e45e9074a021fec976580b6ff6c78143c",
                    operation="UPDATE",
                    pgid="pgtrigger_update_update_6528e",
                    table="controls_storageplace",
                    when="AFTER",
                ),
            ),
        ),
        pgtrigger.migrations.AddTrigger(
            model_name="storageplace",
            trigger=pgtrigger.compiler.Trigger(
                name="delete_delete",
                sql=pgtrigger.compiler.UpsertTriggerSql(
                    func='INSERT INTO "controls_storageplaceauditevent" ("code", "id", "name", "pgh_context", "pgh_context_id", "pgh_created_at", "pgh_label", "pgh_obj_id") VALUES (OLD."code", OLD."id", OLD."name", COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_metadata\', TRUE), \'\'), NULL)::JSONB, COALESCE(NULLIF(CURRENT_SETTING(\'pghistory.context_id\', TRUE), \'\'), NULL)::UUID, NOW(), \'delete\', OLD."id"); RETURN NULL;',
                    hash="8e97a1d22c0fe473e004b59d8cbb8c07c5c53942",
                    operation="DELETE",
                    pgid="pgtrigger_delete_delete_f845c",
                    table="controls_storageplace",
                    when="AFTER",
                ),
            ),
        ),
        migrations.AddField(
            model_name="storageplaceauditevent",
            name="pgh_obj",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="audit_events",
                to="controls.storageplace",
            ),
        ),
        migrations.AddIndex(
            model_name="deckissue",
            index=models.Index(fields=["shoe"], name="deck_issue_shoe"),
        ),
        migrations.AddConstraint(
            model_name="deckissue",
            constraint=models.CheckConstraint(
                condition=models.Q(("issued_by", models.F("taken_by")), _negated=True), name="deck_issue_two_signers"
            ),
        ),
        migrations.AddConstraint(
            model_name="keyissue",
            constraint=models.CheckConstraint(
                condition=models.Q(("due_at__gt", models.F("issued_at"))), name="key_issue_due_after"
            ),
        ),
        migrations.AddConstraint(
            model_name="keyaccesslist",
            constraint=models.UniqueConstraint(fields=("key", "version"), name="key_access_list_version_unique"),
        ),
        migrations.AddConstraint(
            model_name="keyaccesslist",
            constraint=models.CheckConstraint(
                condition=models.Q(("version__gte", 1)), name="key_access_list_version_from_one"
            ),
        ),
        migrations.AddConstraint(
            model_name="shifthandover",
            constraint=models.UniqueConstraint(
                fields=("shift_change_at", "handed_by"), name="shift_handover_once_per_boss"
            ),
        ),
        migrations.AddConstraint(
            model_name="storagecount",
            constraint=models.CheckConstraint(
                condition=models.Q(("counted_by", models.F("witness")), _negated=True), name="storage_count_two_signers"
            ),
        ),
        migrations.AddConstraint(
            model_name="deckevent",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", ["returned", "cancelled", "destroyed"])), name="deck_event_kind_valid"
            ),
        ),
        migrations.AddConstraint(
            model_name="deckevent",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind__in", ("cancelled", "destroyed"))),
                fields=("deck", "kind"),
                name="deck_event_once_per_kind",
            ),
        ),
        migrations.AddConstraint(
            model_name="deckevent",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind__in", ("cancelled", "destroyed")), _negated=True),
                    models.Q(("witness__isnull", False), models.Q(("witness", models.F("by")), _negated=True)),
                    _connector="OR",
                ),
                name="deck_event_witnessed",
            ),
        ),
        migrations.AddConstraint(
            model_name="deck",
            constraint=models.CheckConstraint(
                condition=models.Q(("received_by", models.F("second_signer")), _negated=True), name="deck_two_signers"
            ),
        ),
        migrations.AddConstraint(
            model_name="deck",
            constraint=models.CheckConstraint(
                condition=models.Q(("serial", ""), _negated=True), name="deck_serial_not_empty"
            ),
        ),
        migrations.RunPython(protect, migrations.RunPython.noop, elidable=False),
    ]
