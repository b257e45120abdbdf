"""The roles with the dealers app (pit.dealers): pit bosses record rotations and say whose fault a
violation was; auditors read it all. A frozen copy of pit.accounts.roles as it stood."""

import importlib

from django.db import migrations

from pit.accounts.roles import groups_sync

ROLES = {
    "accountant": [
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
        "accounts.run_reports",
        "accounts.view_device",
        "accounts.view_userauditevent",
        "api.view_idempotencykey",
        "compliance.view_ruleviolation",
        "compliance.view_ruleviolationauditevent",
        "core.view_failedtask",
        "dealers.view_dealer",
        "dealers.view_dealerrotation",
        "dealers.view_violationfault",
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
    "floor device": [],
    "pit boss": [
        "compliance.change_ruleviolation",
        "compliance.view_ruleviolation",
        "dealers.attribute_violation",
        "dealers.record_dealerrotation",
        "dealers.view_dealer",
        "dealers.view_dealerrotation",
        "dealers.view_violationfault",
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
    groups_sync(
        apps, importlib.import_module("pit.accounts.migrations.0005_roles").ROLES, using=schema_editor.connection.alias
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_roles"), ("dealers", "0001_dealers")]

    operations = [migrations.RunPython(roles_sync, roles_restore)]
