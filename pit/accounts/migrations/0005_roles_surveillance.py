"""The staff roles again (pit.accounts.roles, frozen as data as 0003_roles is; tests/accounts/test_roles.py
compares the latest copy with roles.py): a new `surveillance` role (the floor as it happens, the
notifications it acknowledges), and everyone concerned sees the internal controls: limit changes,
slip books and voided numbers, notices to surveillance and the regulator. After the migrations that
make those models."""

from django.contrib.auth.management import create_permissions
from django.contrib.contenttypes.management import create_contenttypes
from django.db import migrations

ROLES = {
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
        "accounting.view_slipbook",
        "accounting.view_slipstep",
        "accounting.view_slipvoid",
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
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "notices.notify_surveillancenotification",
        "notices.view_regulatornotice",
        "notices.view_regulatornoticefiling",
        "notices.view_surveillanceacknowledgement",
        "notices.view_surveillancenotification",
        "paytables.view_paytableconfiguration",
        "shoes.correct_coup",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.change_table",
        "tables.view_limitchange",
        "tables.view_table",
        "tables.view_tableevent",
        "tables.view_tablelimit",
        "tables.view_tablelimitversion",
    ],
    "accountant": [
        "accounting.close_gamingday",
        "accounting.investigate_holdflag",
        "accounting.keep_slipbook",
        "accounting.record_adjustment",
        "accounting.record_dropcount",
        "accounting.view_adjustment",
        "accounting.view_dropcount",
        "accounting.view_gamingdayevent",
        "accounting.view_holdfinding",
        "accounting.view_holdflag",
        "accounting.view_inventorycount",
        "accounting.view_slip",
        "accounting.view_slipbook",
        "accounting.view_slipstep",
        "accounting.view_slipvoid",
        "accounts.run_reports",
        "compliance.view_ruleviolation",
        "ledger.change_reconciliation",
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationseat",
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "notices.file_regulatornotice",
        "notices.view_regulatornotice",
        "notices.view_regulatornoticefiling",
        "notices.view_surveillanceacknowledgement",
        "notices.view_surveillancenotification",
        "paytables.view_paytableconfiguration",
        "reports.keep_reportschedule",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.view_limitchange",
        "tables.view_table",
        "tables.view_tableevent",
        "tables.view_tablelimit",
        "tables.view_tablelimitversion",
    ],
    "cage": [
        "accounting.issue_slip",
        "accounting.view_slip",
        "accounting.view_slipbook",
        "accounting.view_slipstep",
        "tables.view_table",
    ],
    "surveillance": [
        "accounting.view_slip",
        "accounting.view_slipstep",
        "compliance.view_ruleviolation",
        "notices.acknowledge_surveillancenotification",
        "notices.view_surveillanceacknowledgement",
        "notices.view_surveillancenotification",
        "shoes.view_coup",
        "shoes.view_shoe",
        "tables.view_limitchange",
        "tables.view_table",
        "tables.view_tableevent",
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
        "accounting.view_slipbook",
        "accounting.view_slipstep",
        "accounting.view_slipvoid",
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
        "dealers.view_dealer",
        "dealers.view_dealerrotation",
        "dealers.view_violationfault",
        "ledger.view_boxcount",
        "ledger.view_commissionentry",
        "ledger.view_reconciliation",
        "ledger.view_reconciliationauditevent",
        "ledger.view_reconciliationseat",
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "notices.view_regulatornotice",
        "notices.view_regulatornoticefiling",
        "notices.view_surveillanceacknowledgement",
        "notices.view_surveillancenotification",
        "paytables.view_paytableconfiguration",
        "paytables.view_paytableconfigurationauditevent",
        "pghistory.view_context",
        "pghistory.view_events",
        "pghistory.view_middlewareevents",
        "records.view_chainhead",
        "records.view_streamlink",
        "reports.view_reportexport",
        "reports.view_reportschedule",
        "reports.view_reportschedulerun",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
        "shoes.view_shoe",
        "shoes.view_shoeauditevent",
        "shoes.view_wager",
        "tables.view_limitchange",
        "tables.view_table",
        "tables.view_tableauditevent",
        "tables.view_tableevent",
        "tables.view_tablelimit",
        "tables.view_tablelimitauditevent",
        "tables.view_tablelimitversion",
    ],
    "floor device": [],
}


def roles_sync(apps, schema_editor):
    """Each role's group, holding exactly its permissions. The content types and permissions are
    made first (Django makes them only after `migrate` finishes); a permission that does not exist
    is an error (a typo must not silently grant less)."""
    using = schema_editor.connection.alias
    for app_config in apps.get_app_configs():
        # Historical app configs have no models module; the management helpers skip those.
        app_config.models_module = True
        create_contenttypes(app_config, verbosity=0, using=using, apps=apps)
        create_permissions(app_config, verbosity=0, using=using, apps=apps)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for role, names in ROLES.items():
        wanted = []
        for name in names:
            app_label, codename = name.split(".", 1)
            try:
                wanted.append(Permission.objects.using(using).get(content_type__app_label=app_label, codename=codename))
            except Permission.DoesNotExist:
                raise LookupError(f"role {role!r}: no permission {name!r}") from None
        group, _ = Group.objects.using(using).get_or_create(name=role)
        group.permissions.set(wanted)


def roles_remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_roles_streams_and_schedules"),
        ("tables", "0003_limit_change_notices"),
        ("accounting", "0004_slip_series"),
        ("notices", "0001_notices"),
    ]

    operations = [migrations.RunPython(roles_sync, roles_remove)]
