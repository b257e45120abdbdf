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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "records_streamlink" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "records_streamlink" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "records_streamlink" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
-- A shoe's chain head only grows: its length never goes back, its hash changes only as it grows,
-- it is never deleted, whoever connects (the runtime role included; the owner could drop this).
CREATE OR REPLACE FUNCTION pit_chain_head_grow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'DELETE refused on %: a chain head only grows', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
    END IF;
    IF NEW.shoe_id IS DISTINCT FROM OLD.shoe_id OR NEW.length < OLD.length
       OR (NEW.length = OLD.length AND NEW.head IS DISTINCT FROM OLD.head) THEN
        RAISE EXCEPTION 'UPDATE refused on %: a chain head only grows (length % to %)', TG_TABLE_NAME, OLD.length, NEW.length
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER pit_chain_head_grow BEFORE UPDATE OR DELETE ON "records_chainhead" FOR EACH ROW EXECUTE FUNCTION pit_chain_head_grow();
CREATE TRIGGER pit_chain_head_truncate BEFORE TRUNCATE ON "records_chainhead" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
-- No role may skip the audit trail's triggers (pit.records.guard): pgtrigger's function, which
-- honours `SET pgtrigger.ignore`, replaced by one that ignores nothing.
CREATE OR REPLACE FUNCTION public._pgtrigger_should_ignore(trigger_name NAME) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
BEGIN
    -- pit: no trigger that keeps a fact or an audit event is ever skipped, whoever asks
    -- (pit.records.guard). pgtrigger.ignore is not read.
    RETURN FALSE;
END;
$$;
