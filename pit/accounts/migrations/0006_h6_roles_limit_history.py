"""The staff roles with the view permission of the limit history (tables.TableLimitVersion): a
frozen copy of `pit.accounts.roles` as it stood when this migration was written."""

from django.db import migrations

from pit.accounts.roles import groups_sync

ROLES = {
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
        "tables.view_tablelimitversion",
    ],
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
        "tables.view_tablelimitversion",
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
        "tables.view_tablelimitversion",
    ],
    "floor device": [],
}


def roles_sync(apps, schema_editor):
    groups_sync(apps, ROLES, using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_roles"),
        ("tables", "0003_h6_limit_versions"),
    ]

    operations = [migrations.RunPython(roles_sync, migrations.RunPython.noop)]
