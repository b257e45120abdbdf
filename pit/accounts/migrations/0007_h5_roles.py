"""The roles as `pit.accounts.roles` stands with the audit events of devices, staff tokens and table
limits, staff tokens and the hash-chain heads visible to auditors (a frozen copy)."""

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
        "accounts.view_deviceauditevent",
        "accounts.view_stafftoken",
        "accounts.view_stafftokenauditevent",
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
        "records.view_chainhead",
        "reports.view_reportexport",
        "shoes.view_coup",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.view_table",
        "tables.view_tableauditevent",
        "tables.view_tableevent",
        "tables.view_tablelimit",
        "tables.view_tablelimitauditevent",
    ],
    "floor device": [],
    "pit boss": [
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


def forward(apps, schema_editor):
    groups_sync(apps, ROLES, using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_h5_tokens_devices_audit"),
        ("tables", "0003_h5_limits_audit"),
        ("records", "0001_h5_chain_heads"),
    ]

    operations = [migrations.RunPython(forward, migrations.RunPython.noop)]
