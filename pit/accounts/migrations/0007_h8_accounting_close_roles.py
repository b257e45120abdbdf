"""Roles for table accounting's investigations, day close and adjustments (h8): accountants write
findings, close and re-open gaming days and adjust closed days; every staff role sees the records.
A frozen copy of pit.accounts.roles as it stood."""

import importlib

from django.db import migrations

from pit.accounts.roles import groups_sync

ROLES = {
    "accountant": [
        "accounting.close_gamingday",
        "accounting.investigate_holdflag",
        "accounting.record_adjustment",
        "accounting.record_dropcount",
        "accounting.view_adjustment",
        "accounting.view_dropcount",
        "accounting.view_gamingdayevent",
        "accounting.view_holdfinding",
        "accounting.view_holdflag",
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
        "accounting.view_adjustment",
        "accounting.view_devicegrant",
        "accounting.view_dropcount",
        "accounting.view_gamingdayevent",
        "accounting.view_holdfinding",
        "accounting.view_holdflag",
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
        "accounting.view_adjustment",
        "accounting.view_dropcount",
        "accounting.view_gamingdayevent",
        "accounting.view_holdfinding",
        "accounting.view_holdflag",
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
    previous = importlib.import_module("pit.accounts.migrations.0006_h8_accounting_roles").ROLES
    groups_sync(apps, previous, using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_h8_accounting_roles"),
        ("accounting", "0002_h8_investigation_day_close"),
    ]

    operations = [migrations.RunPython(roles_sync, roles_restore)]
