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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_deck" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_deck" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_deck" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_deckissue" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_deckissue" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_deckissue" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_deckevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_deckevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_deckevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_storagecount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_storagecount" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_storagecount" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_keyaccesslist" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_keyaccesslist" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_keyaccesslist" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_keyissue" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_keyissue" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_keyissue" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_keyreturn" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_keyreturn" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_keyreturn" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_shifthandover" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_shifthandover" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_shifthandover" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_handoveracceptance" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_handoveracceptance" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_handoveracceptance" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_storageplaceauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_storageplaceauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_storageplaceauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "controls_sensitivekeyauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "controls_sensitivekeyauditevent" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "controls_sensitivekeyauditevent" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
