"""The staff roles again (pit.accounts.roles, frozen as data as 0004 is; tests/accounts/test_roles.py
compares the latest copy with roles.py), with the rooms of the players, their ratings and comps, the
patrons' cash, the progressive meters, the internal controls and surveillance: new roles `host`
(patrons and comps), `compliance` (the patrons' cash and its findings) and `surveillance` (the
notifications it acknowledges); pit bosses, the cage, accountants and auditors see or act on the new
records as roles.py says. After the migrations that make those models."""

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
        "cash.view_cashtransaction",
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
        "paytables.view_paytableconfiguration",
        "players.record_exclusion",
        "players.record_patron",
        "players.record_seatsession",
        "players.view_buyin",
        "players.view_chipswalked",
        "players.view_exclusion",
        "players.view_patron",
        "players.view_patron_personal",
        "players.view_patronlook",
        "players.view_patronversion",
        "players.view_seatsession",
        "players.view_sessionevent",
        "players.view_sessionidentification",
        "players.view_tier",
        "progressives.pay_meterpayout",
        "progressives.view_banktable",
        "progressives.view_meter",
        "progressives.view_meterconfiguration",
        "progressives.view_meterpayout",
        "progressives.view_meterreading",
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
        "progressives.file_meterconfiguration",
        "progressives.view_banktable",
        "progressives.view_meter",
        "progressives.view_meterconfiguration",
        "progressives.view_meterpayout",
        "progressives.view_meterreading",
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
        "cash.record_cashtransaction",
        "cash.record_exchangerate",
        "cash.view_cashtransaction",
        "cash.view_exchangerate",
        "players.view_patron",
        "progressives.view_meter",
        "progressives.view_meterpayout",
        "progressives.witness_meterpayout",
        "tables.view_table",
    ],
    "compliance": [
        "accounts.run_reports",
        "cash.record_cashrules",
        "cash.review_cashfinding",
        "cash.view_cashfinding",
        "cash.view_cashfindingauditevent",
        "cash.view_cashrules",
        "cash.view_cashtransaction",
        "cash.view_exchangerate",
        "players.view_buyin",
        "players.view_chipswalked",
        "players.view_exclusion",
        "players.view_patron",
        "players.view_patron_personal",
        "players.view_patronlook",
        "players.view_patronversion",
        "players.view_seatsession",
        "players.view_sessionevent",
        "players.view_sessionidentification",
        "players.view_tier",
        "tables.view_table",
    ],
    "host": [
        "players.record_patron",
        "players.view_buyin",
        "players.view_chipswalked",
        "players.view_exclusion",
        "players.view_patron",
        "players.view_patron_personal",
        "players.view_patronlook",
        "players.view_patronversion",
        "players.view_seatsession",
        "players.view_sessionevent",
        "players.view_sessionidentification",
        "players.view_tier",
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
        "cash.view_cashfinding",
        "cash.view_cashfindingauditevent",
        "cash.view_cashrules",
        "cash.view_cashtransaction",
        "cash.view_exchangerate",
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
        "paytables.view_paytableconfiguration",
        "paytables.view_paytableconfigurationauditevent",
        "pghistory.view_context",
        "pghistory.view_events",
        "pghistory.view_middlewareevents",
        "players.view_buyin",
        "players.view_chipswalked",
        "players.view_exclusion",
        "players.view_patron",
        "players.view_patronlook",
        "players.view_patronversion",
        "players.view_seatsession",
        "players.view_sessionevent",
        "players.view_sessionidentification",
        "players.view_tier",
        "progressives.view_banktable",
        "progressives.view_meter",
        "progressives.view_meterconfiguration",
        "progressives.view_meterpayout",
        "progressives.view_meterreading",
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


def roles_remove(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name__in=ROLES).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_roles_streams_and_schedules"),
        ("players", "0003_patron_looks"),
        ("ratings", "0002_ratings_records_insert_only"),
        ("cash", "0002_cash_records_insert_only"),
        ("progressives", "0002_meters_insert_only_and_never_down"),
    ]

    operations = [migrations.RunPython(roles_sync, roles_remove)]
