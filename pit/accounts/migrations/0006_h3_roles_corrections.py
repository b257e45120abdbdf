"""The roles as they stand after corrections and voids of coups and supplementary reconciliations:
everyone who sees the floor and the ledger sees them; pit bosses correct and void coups."""

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
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "paytables.view_paytableconfiguration",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
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
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationauditevent",
        "ledger.view_reconciliationseat",
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "paytables.view_paytableconfiguration",
        "paytables.view_paytableconfigurationauditevent",
        "pghistory.view_context",
        "pghistory.view_events",
        "pghistory.view_middlewareevents",
        "reports.view_reportexport",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
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
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationseat",
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "paytables.view_paytableconfiguration",
        "shoes.correct_coup",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
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


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_roles"),
        ("shoes", "0003_h3_coup_corrections"),
        ("ledger", "0004_h3_reconciliation_supplements"),
    ]

    operations = [migrations.RunPython(roles_sync, migrations.RunPython.noop)]
