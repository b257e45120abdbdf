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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "reports_reportdelivery" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "reports_reportdelivery" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "reports_reportdelivery" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
