"""The roles as they stand once every part of this release is in (pit.accounts.roles, frozen):
the branches that changed roles each synced their own copy; this one syncs them all, last."""

import importlib

from django.db import migrations

from pit.accounts.roles import groups_sync

ROLES = {'accountant': ['accounting.record_dropcount',
                'accounting.view_dropcount',
                'accounting.view_inventorycount',
                'accounting.view_slip',
                'accounting.view_slipstep',
                'accounts.run_reports',
                'compliance.view_ruleviolation',
                'ledger.change_reconciliation',
                'ledger.view_boxcount',
                'ledger.view_commissionentry',
                'ledger.view_reconciliation',
                'ledger.view_reconciliationseat',
                'ledger.view_reconciliationsupplement',
                'ledger.view_reconciliationsupplementseat',
                'paytables.view_paytableconfiguration',
                'shoes.view_coup',
                'shoes.view_coupcorrection',
                'shoes.view_shoe',
                'shoes.view_wager',
                'tables.view_table',
                'tables.view_tableevent',
                'tables.view_tablelimit'],
 'auditor': ['accounting.view_devicegrant',
             'accounting.view_dropcount',
             'accounting.view_inventorycount',
             'accounting.view_slip',
             'accounting.view_slipstep',
             'accounts.run_reports',
             'accounts.view_device',
             'accounts.view_userauditevent',
             'api.view_idempotencykey',
             'compliance.view_ruleviolation',
             'compliance.view_ruleviolationauditevent',
             'core.view_failedtask',
             'ledger.view_boxcount',
             'ledger.view_commissionentry',
             'ledger.view_reconciliation',
             'ledger.view_reconciliationauditevent',
             'ledger.view_reconciliationseat',
             'ledger.view_reconciliationsupplement',
             'ledger.view_reconciliationsupplementseat',
             'paytables.view_paytableconfiguration',
             'paytables.view_paytableconfigurationauditevent',
             'pghistory.view_context',
             'pghistory.view_events',
             'pghistory.view_middlewareevents',
             'reports.view_reportexport',
             'shoes.view_coup',
             'shoes.view_coupcorrection',
             'shoes.view_shoe',
             'shoes.view_wager',
             'tables.view_table',
             'tables.view_tableauditevent',
             'tables.view_tableevent',
             'tables.view_tablelimit'],
 'cage': ['accounting.issue_slip', 'accounting.view_slip', 'accounting.view_slipstep', 'tables.view_table'],
 'floor device': [],
 'pit boss': ['accounting.receive_slip',
              'accounting.record_inventorycount',
              'accounting.request_slip',
              'accounting.view_dropcount',
              'accounting.view_inventorycount',
              'accounting.view_slip',
              'accounting.view_slipstep',
              'compliance.change_ruleviolation',
              'compliance.view_ruleviolation',
              'ledger.view_boxcount',
              'ledger.view_commissionentry',
              'ledger.view_reconciliation',
              'ledger.view_reconciliationseat',
              'ledger.view_reconciliationsupplement',
              'ledger.view_reconciliationsupplementseat',
              'paytables.view_paytableconfiguration',
              'shoes.correct_coup',
              'shoes.view_coup',
              'shoes.view_coupcorrection',
              'shoes.view_shoe',
              'shoes.view_wager',
              'tables.change_table',
              'tables.view_table',
              'tables.view_tableevent',
              'tables.view_tablelimit']}


def roles_sync(apps, schema_editor):
    groups_sync(apps, ROLES, using=schema_editor.connection.alias)


def roles_restore(apps, schema_editor):
    groups_sync(apps, importlib.import_module("pit.accounts.migrations.0005_roles").ROLES,
                using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [('accounting', '0001_h8_table_accounting'),
 ('accounts', '0007_merge_20261130_1627'),
 ('api', '0002_idempotency_body_as_text'),
 ('compliance', '0003_h4_facts_insert_only'),
 ('core', '0002_h1_outbox'),
 ('ledger', '0005_merge_20261130_1627'),
 ('paytables', '0003_h4_audit_events_insert_only'),
 ('records', '0002_h5_backfill_chains'),
 ('reports', '0002_export_expired'),
 ('shoes', '0004_merge_20261130_1627'),
 ('tables', '0003_h4_audit_events_insert_only')]

    operations = [migrations.RunPython(roles_sync, roles_restore)]
