"""The staff roles again (pit.accounts.roles, frozen as data as 0004 is; tests/accounts/test_roles.py
compares the latest copy with roles.py): pit bosses record and see the pit's internal controls (decks
received, issued, returned, cancelled, destroyed and counted; sensitive keys drawn and returned; shift
handovers and their acceptance), auditors read them and the audit trail of storage places and keys.
After the migration that makes those models."""

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
        "accounting.view_slipstep",
        "compliance.change_ruleviolation",
        "compliance.view_ruleviolation",
        "controls.record_deck",
        "controls.record_keyissue",
        "controls.record_shifthandover",
        "controls.view_deck",
        "controls.view_deckevent",
        "controls.view_deckissue",
        "controls.view_handoveracceptance",
        "controls.view_keyaccesslist",
        "controls.view_keyissue",
        "controls.view_keyreturn",
        "controls.view_sensitivekey",
        "controls.view_shifthandover",
        "controls.view_storagecount",
        "controls.view_storageplace",
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
        "tables.view_tablelimitversion",
    ],
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
        "ledger.view_reconciliationsupplement",
        "ledger.view_reconciliationsupplementseat",
        "paytables.view_paytableconfiguration",
        "reports.keep_reportschedule",
        "shoes.view_coup",
        "shoes.view_coupcorrection",
        "shoes.view_shoe",
        "shoes.view_wager",
        "tables.view_table",
        "tables.view_tableevent",
        "tables.view_tablelimit",
        "tables.view_tablelimitversion",
    ],
    "cage": [
        "accounting.issue_slip",
        "accounting.view_slip",
        "accounting.view_slipstep",
        "tables.view_table",
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
        "accounts.view_deviceauditevent",
        "accounts.view_stafftoken",
        "accounts.view_stafftokenauditevent",
        "accounts.view_userauditevent",
        "api.view_idempotencykey",
        "compliance.view_ruleviolation",
        "compliance.view_ruleviolationauditevent",
        "controls.view_deck",
        "controls.view_deckevent",
        "controls.view_deckissue",
        "controls.view_handoveracceptance",
        "controls.view_keyaccesslist",
        "controls.view_keyissue",
        "controls.view_keyreturn",
        "controls.view_sensitivekey",
        "controls.view_sensitivekeyauditevent",
        "controls.view_shifthandover",
        "controls.view_storagecount",
        "controls.view_storageplace",
        "controls.view_storageplaceauditevent",
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


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_roles_streams_and_schedules"),
        ("controls", "0001_cards_keys_handover"),
    ]

    # Backwards: the groups keep their permissions (0004's copy is applied again by re-running it).
    operations = [migrations.RunPython(roles_sync, migrations.RunPython.noop)]
