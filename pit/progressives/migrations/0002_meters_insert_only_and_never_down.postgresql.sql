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
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "progressives_meter" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "progressives_meter" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "progressives_meter" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "progressives_meterconfiguration" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "progressives_meterconfiguration" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "progressives_meterconfiguration" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "progressives_banktable" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "progressives_banktable" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "progressives_banktable" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "progressives_meterpayout" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "progressives_meterpayout" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "progressives_meterpayout" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "progressives_meterreading" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "progressives_meterreading" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();
CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "progressives_meterreading" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

-- A progressive meter never goes down except by a recorded payout (N.J.A.C. 13:69D-1.52): a reading
-- is refused below the meter's last one unless it is the reset after a payout, at that payout's own
-- filed reset amount; a payout pays the meter's last reading. Readings of one meter are taken one
-- at a time (a transaction-level advisory lock per meter), so "the last one" is well defined.
CREATE OR REPLACE FUNCTION pit_progressive_reading_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    last_amount bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pit_progressive_meter'), NEW.meter_id::integer);
    SELECT amount_minor INTO last_amount FROM progressives_meterreading
     WHERE meter_id = NEW.meter_id ORDER BY id DESC LIMIT 1;
    IF NEW.payout_id IS NULL THEN
        IF last_amount IS NOT NULL AND NEW.amount_minor < last_amount THEN
            RAISE EXCEPTION 'INSERT refused on progressives_meterreading: meter % would go down from % to %; a progressive meter never goes down except by a recorded payout',
                NEW.meter_id, last_amount, NEW.amount_minor
                USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
        END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM progressives_meterpayout
                       WHERE id = NEW.payout_id AND meter_id = NEW.meter_id AND reset_minor = NEW.amount_minor) THEN
        RAISE EXCEPTION 'INSERT refused on progressives_meterreading: the reading after a payout is its own filed reset amount'
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER pit_progressive_never_down BEFORE INSERT ON "progressives_meterreading" FOR EACH ROW EXECUTE FUNCTION pit_progressive_reading_check();

CREATE OR REPLACE FUNCTION pit_progressive_payout_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    last_amount bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pit_progressive_meter'), NEW.meter_id::integer);
    SELECT amount_minor INTO last_amount FROM progressives_meterreading
     WHERE meter_id = NEW.meter_id ORDER BY id DESC LIMIT 1;
    IF last_amount IS DISTINCT FROM NEW.amount_minor THEN
        RAISE EXCEPTION 'INSERT refused on progressives_meterpayout: a payout pays the meter''s last reading (%), not %',
            last_amount, NEW.amount_minor
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER pit_progressive_pays_reading BEFORE INSERT ON "progressives_meterpayout" FOR EACH ROW EXECUTE FUNCTION pit_progressive_payout_check();

-- The winning coup by id alone (coups are partitioned by month): checked at commit, as a foreign key is.
CREATE OR REPLACE FUNCTION pit_reference_progressives_meterpayout_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "progressives_meterpayout_coup_id_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'progressives_meterpayout_coup_id_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "progressives_meterpayout_coup_id_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON progressives_meterpayout DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_progressives_meterpayout_coup_id();
