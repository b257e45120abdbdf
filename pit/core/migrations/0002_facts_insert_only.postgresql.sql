-- Every fact table and audit-event table insert-only (postgresql), frozen: made by
-- `manage.py fact_protection_sql --vendor postgresql` (pit.core.immutable.fact_protection_sql) over every protected model.

CREATE OR REPLACE FUNCTION pit_immutable_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed text;
BEGIN
    -- The trigger's arguments are the columns that may change; any other changed column is refused.
    IF TG_OP = 'UPDATE' AND TG_NARGS > 0 THEN
        SELECT new_row.key INTO changed
          FROM jsonb_each(to_jsonb(NEW)) AS new_row
         WHERE NOT new_row.key = ANY (TG_ARGV)
           AND new_row.value IS DISTINCT FROM to_jsonb(OLD) -> new_row.key
         ORDER BY new_row.key LIMIT 1;
        IF changed IS NULL THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'UPDATE of column %.% refused: only % may change; facts of record are insert-only; a correction is a new record',
            TG_TABLE_NAME, changed, array_to_string(TG_ARGV, ', ')
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME, COLUMN = changed;
    END IF;
    RAISE EXCEPTION '% refused on %: facts of record are insert-only; a correction is a new record', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_adjustment" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_adjustment" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_adjustment" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_devicegrant" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_devicegrant" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_devicegrant" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_dropcount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_dropcount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_dropcount" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_gamingdayevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_gamingdayevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_gamingdayevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_holdfinding" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_holdfinding" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_holdfinding" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_holdflag" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_holdflag" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_holdflag" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_inventorycount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_inventorycount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_inventorycount" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_slip" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_slip" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_slip" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounting_slipstep" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounting_slipstep" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounting_slipstep" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounts_deviceauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounts_deviceauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounts_deviceauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounts_stafftokenauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounts_stafftokenauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounts_stafftokenauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "accounts_userauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "accounts_userauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "accounts_userauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "archive_montharchive" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "archive_montharchive" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "archive_montharchive" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "compliance_ruleviolation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse('cleared_at', 'status', 'status_note', 'status_changed_by_id', 'status_changed_at', 'message');
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "compliance_ruleviolation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "compliance_ruleviolation" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "compliance_ruleviolationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "compliance_ruleviolationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "compliance_ruleviolationauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "dealers_dealerrotation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "dealers_dealerrotation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "dealers_dealerrotation" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "dealers_violationfault" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "dealers_violationfault" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "dealers_violationfault" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_boxcount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_boxcount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_boxcount" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_commissionentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_commissionentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_commissionentry" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_reconciliation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse('status', 'explanation', 'explained_by_id', 'explained_at');
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_reconciliation" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_reconciliation" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_reconciliationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_reconciliationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_reconciliationauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_reconciliationseat" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_reconciliationseat" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_reconciliationseat" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_reconciliationsupplement" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_reconciliationsupplement" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_reconciliationsupplement" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_reconciliationsupplementseat" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_reconciliationsupplementseat" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_reconciliationsupplementseat" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "paytables_paytableconfigurationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "paytables_paytableconfigurationauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "paytables_paytableconfigurationauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_coup" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_coup" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_coup" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_coupcorrection" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_coupcorrection" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_coupcorrection" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_shoe" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse('status', 'closed_at', 'close_recorded_at', 'cards_seen', 'cards_dealt', 'coups_recorded');
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_shoe" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_shoe" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_wager" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_wager" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_wager" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "tables_tableauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "tables_tableauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "tables_tableauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "tables_tablelimitauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "tables_tablelimitauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "tables_tablelimitauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "tables_tablelimitversion" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "tables_tablelimitversion" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "tables_tablelimitversion" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
