"""Roles for table accounting (h8): the new cage role, and each role's permissions on the chip tray
counts, fill and credit slips and drop counts: a frozen copy of pit.accounts.roles as it stood."""

import importlib

from django.db import migrations

from pit.accounts.roles import groups_sync

ROLES = {
    "accountant": [
        "accounting.record_dropcount",
        "accounting.view_dropcount",
        "accounting.view_inventorycount",
        "accounting.view_slip",
        "accounting.view_slipstep",
        "accounts.run_reports",
        "compliance.view_ruleviolation",
        "ledger.change_reconciliation",
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationseat",
        "paytables.view_paytableconfiguration",
        "shoes.view_coup",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.view_table",
        "tables.view_tableevent",
        "tables.view_tablelimit",
    ],
    "auditor": [
        "accounting.view_devicegrant",
        "accounting.view_dropcount",
        "accounting.view_inventorycount",
        "accounting.view_slip",
        "accounting.view_slipstep",
        "accounts.run_reports",
        "accounts.view_device",
        "accounts.view_userauditevent",
        "api.view_idempotencykey",
        "compliance.view_ruleviolation",
        "compliance.view_ruleviolationauditevent",
        "core.view_failedtask",
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationauditevent",
        "ledger.view_reconciliationseat",
        "paytables.view_paytableconfiguration",
        "paytables.view_paytableconfigurationauditevent",
        "pghistory.view_context",
        "pghistory.view_events",
        "pghistory.view_middlewareevents",
        "reports.view_reportexport",
        "shoes.view_coup",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.view_table",
        "tables.view_tableauditevent",
        "tables.view_tableevent",
        "tables.view_tablelimit",
    ],
    "cage": ["accounting.issue_slip", "accounting.view_slip", "accounting.view_slipstep", "tables.view_table"],
    "floor device": [],
    "pit boss": [
        "accounting.receive_slip",
        "accounting.record_inventorycount",
        "accounting.request_slip",
        "accounting.view_dropcount",
        "accounting.view_inventorycount",
        "accounting.view_slip",
        "accounting.view_slipstep",
        "compliance.change_ruleviolation",
        "compliance.view_ruleviolation",
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationseat",
        "paytables.view_paytableconfiguration",
        "shoes.view_coup",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.change_table",
        "tables.view_table",
        "tables.view_tableevent",
        "tables.view_tablelimit",
    ],
}


def roles_sync(apps, schema_editor):
    groups_sync(apps, ROLES, using=schema_editor.connection.alias)


def roles_restore(apps, schema_editor):
    """Back to the roles of the migration before: no cage role, no accounting permissions."""
    alias = schema_editor.connection.alias
    apps.get_model("auth", "Group").objects.using(alias).filter(name="cage").delete()
    groups_sync(apps, importlib.import_module("pit.accounts.migrations.0005_roles").ROLES, using=alias)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_roles"),
        ("accounting", "0001_h8_table_accounting"),
    ]

    operations = [migrations.RunPython(roles_sync, roles_restore)]
