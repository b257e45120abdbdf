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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ratings_averagebetestimate" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ratings_averagebetestimate" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ratings_averagebetestimate" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ratings_reinvestmentrate" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ratings_reinvestmentrate" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ratings_reinvestmentrate" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ratings_compentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ratings_compentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ratings_compentry" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE OR REPLACE FUNCTION pit_reference_ratings_coupedges_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.coup_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "ratings_coupedges_coup_id_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'ratings_coupedges_coup_id_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;
DROP TRIGGER IF EXISTS "ratings_coupedges_coup_id_fk_shoes_coup_id" ON ratings_coupedges;
CREATE CONSTRAINT TRIGGER "ratings_coupedges_coup_id_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON ratings_coupedges DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_ratings_coupedges_coup_id();
