"""The staff roles as Django groups, with exactly the permissions of `pit.accounts.roles` as it
stood when this migration was written (a frozen copy: later changes come in later migrations)."""

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


def roles_create(apps, schema_editor):
    groups_sync(apps, ROLES, using=schema_editor.connection.alias)


def roles_remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    # Every model the roles name a permission of must exist first.
    dependencies = [
        ("accounts", "0004_audit_trail"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("tables", "0002_audit_trail"),
        ("paytables", "0002_audit_trail"),
        ("shoes", "0001_initial"),
        ("ledger", "0003_audit_trail"),
        ("compliance", "0002_audit_trail"),
        ("pghistory", "0007_auto_20250421_0444"),
        ("core", "0001_initial"),
        ("api", "0001_initial"),
        ("reports", "0001_initial"),
    ]

    operations = [migrations.RunPython(roles_create, roles_remove)]
