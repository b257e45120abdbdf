"""Every fact table and audit-event table insert-only (pit.core.immutable), applied once more after
all of this release's migrations: it protects the fact tables they added, and on SQLite restores
the triggers of the tables a migration rebuilt (SQLite drops a rebuilt table's triggers)."""

from django.db import migrations

from pit.core.immutable import ProtectFacts


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0002_h8_investigation_day_close"),
        ("accounts", "0010_roles_merged"),
        ("api", "0002_idempotency_body_as_text"),
        ("compliance", "0003_h4_facts_insert_only"),
        ("core", "0002_h1_outbox"),
        ("dealers", "0001_dealers"),
        ("ledger", "0005_merge_20261130_1627"),
        ("paytables", "0003_h4_audit_events_insert_only"),
        ("protection", "0003_h7_no_permissions"),
        ("records", "0002_h5_backfill_chains"),
        ("reports", "0002_export_expired"),
        ("shoes", "0004_merge_20261130_1627"),
        ("tables", "0005_merge_0003_h6_limit_versions_0004_merge_20261130_1648"),
    ]

    operations = [
        ProtectFacts("accounting.Adjustment"),
        ProtectFacts("accounting.DeviceGrant"),
        ProtectFacts("accounting.DropCount"),
        ProtectFacts("accounting.GamingDayEvent"),
        ProtectFacts("accounting.HoldFinding"),
        ProtectFacts("accounting.HoldFlag"),
        ProtectFacts("accounting.InventoryCount"),
        ProtectFacts("accounting.Slip"),
        ProtectFacts("accounting.SlipStep"),
        ProtectFacts("accounts.DeviceAuditEvent"),
        ProtectFacts("accounts.StaffTokenAuditEvent"),
        ProtectFacts("accounts.UserAuditEvent"),
        ProtectFacts(
            "compliance.RuleViolation",
            updatable=("cleared_at", "status", "status_note", "status_changed_by", "status_changed_at", "message"),
        ),
        ProtectFacts("compliance.RuleViolationAuditEvent"),
        ProtectFacts("dealers.DealerRotation"),
        ProtectFacts("dealers.ViolationFault"),
        ProtectFacts("ledger.BoxCount"),
        ProtectFacts("ledger.CommissionEntry"),
        ProtectFacts("ledger.Reconciliation", updatable=("status", "explanation", "explained_by", "explained_at")),
        ProtectFacts("ledger.ReconciliationAuditEvent"),
        ProtectFacts("ledger.ReconciliationSeat"),
        ProtectFacts("ledger.ReconciliationSupplement"),
        ProtectFacts("ledger.ReconciliationSupplementSeat"),
        ProtectFacts("paytables.PaytableConfigurationAuditEvent"),
        ProtectFacts("shoes.Coup"),
        ProtectFacts("shoes.CoupCorrection"),
        ProtectFacts(
            "shoes.Shoe",
            updatable=("status", "closed_at", "close_recorded_at", "cards_seen", "cards_dealt", "coups_recorded"),
        ),
        ProtectFacts("shoes.Wager"),
        ProtectFacts("tables.TableAuditEvent"),
        ProtectFacts("tables.TableLimitAuditEvent"),
        ProtectFacts("tables.TableLimitVersion"),
    ]
