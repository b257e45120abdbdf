"""The ledger, box counts, reconciliations and their audit events are facts of record, protected by
the shared helper (pit.core.immutable), which also refuses TRUNCATE on PostgreSQL and REPLACE on
SQLite. It replaces the ledger's own UPDATE/DELETE triggers of 0002."""

import importlib

from django.db import migrations

from pit.core.immutable import ProtectFacts

LEDGER_0002 = "pit.ledger.migrations.0002_commission_ledger_append_only"


def drop_append_only_triggers(apps, schema_editor):
    importlib.import_module(LEDGER_0002).backward(apps, schema_editor)


def restore_append_only_triggers(apps, schema_editor):
    importlib.import_module(LEDGER_0002).forward(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_audit_trail")]

    operations = [
        migrations.RunPython(drop_append_only_triggers, restore_append_only_triggers),
        ProtectFacts("CommissionEntry"),
        ProtectFacts("BoxCount"),
        ProtectFacts("Reconciliation", updatable=("status", "explanation", "explained_by", "explained_at")),
        ProtectFacts("ReconciliationSeat"),
        ProtectFacts("ReconciliationAuditEvent"),
    ]
