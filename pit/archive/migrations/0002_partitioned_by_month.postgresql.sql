-- PostgreSQL: coups, wagers and commission entries partitioned by month of gaming day (pit.core.partitions;
-- the design in docs/operations/partitions.md). Frozen for a fresh database, in this order:
--
-- 1. The foreign keys into the three tables are dropped: a foreign key into a partitioned table needs its whole
--    key (id, gaming_day). They come back below, under their own names, as checks.
-- 2. Each table is made anew, partitioned by RANGE (gaming_day), with its DEFAULT partition (a month nobody
--    created lands there; the ensure function moves it out), and takes the plain table's name and sequence;
--    its primary key is (id, gaming_day), unique keys and unique indexes carry gaming_day too; its indexes,
--    checks, foreign keys out and insert-only triggers are those of the plain table (PostgreSQL clones row
--    triggers to every partition; the statement trigger refusing TRUNCATE is made on each partition).
-- 3. wager -> coup and entry -> wager: keys on (id, gaming_day), checked once per inserting statement over the
--    rows it inserted (its transition table `inserted`), by one hash anti-join, nested loops off (a foreign key
--    into a partitioned table looks each row up alone through the partitioned table: most of the cost of a day's
--    batch); it fails as the foreign key did (SQLSTATE 23503, under its name). A referenced row is written
--    first, in an earlier statement or in the same one. No row lock on the referenced row: coups and wagers are
--    never updated or deleted, and their months are detached referencing tables first.
-- 4. References by id alone (a violation's coup, a correction's coup, a reversal's entry, ...) are deferred
--    constraint triggers, checked at commit as a foreign key is; a reversal lives in the month of what it reverses.
-- 5. A coup number stays unique in its shoe across partitions (a shoe dealt across a month's first 6 a.m. spans
--    two): a BEFORE INSERT trigger under an advisory lock per shoe.
-- 6. pit_partitions_ensure(first_month, last_month), SECURITY DEFINER, owned by the schema's owner: creates the
--    month partitions of [first, last] that are missing, in every partitioned table, with their statement
--    triggers (TRUNCATE refused, the composite key checks), and answers a line each:
--        <partition>                  a partition made;
--        moved:<table>:<rows>         rows of the table's DEFAULT partition moved to their months';
--        default:<table>:<YYYY-MM>    a month whose rows stay in the DEFAULT partition (its partition's name is
--                                     taken: a month archived, its detached table not dropped).
--    Rows in a DEFAULT partition are moved first, every month of them, in the caller's transaction: the three
--    parents are locked (coups first), each DEFAULT is detached (referencing tables first, their foreign keys
--    into the partitioned tables dropped from the detached copy), a new empty DEFAULT and the months' partitions
--    are made, the rows are inserted through the parent (each checked again as at its first insert), their
--    count compared, and the old DEFAULT dropped whole. No row is updated or deleted; constraints are checked
--    at once during the move, then deferred again. Only the runtime role (granted by `manage.py migrate`,
--    pit.core.immutable.runtime_privileges_sql) and the owner may execute it: PUBLIC's EXECUTE is revoked.
--
-- The migration then calls the ensure function for last month to PIT_PARTITION_MONTHS_AHEAD months ahead.

ALTER TABLE "compliance_ruleviolation" DROP CONSTRAINT "compliance_ruleviolation_coup_id_3bbbd89c_fk_shoes_coup_id";

ALTER TABLE "compliance_ruleviolation" DROP CONSTRAINT "compliance_ruleviolation_wager_id_682e990c_fk_shoes_wager_id";

ALTER TABLE "ledger_commissionentry" DROP CONSTRAINT "ledger_commissionent_reverses_id_d03f28fc_fk_ledger_co";

ALTER TABLE "ledger_commissionentry" DROP CONSTRAINT "ledger_commissionentry_wager_id_e65cae3f_fk_shoes_wager_id";

ALTER TABLE "ledger_reconciliationsupplementseat" DROP CONSTRAINT "ledger_reconciliatio_entry_id_ed279628_fk_ledger_co";

ALTER TABLE "protection_cardshingle" DROP CONSTRAINT "protection_cardshingle_coup_id_4a3fc05f_fk_shoes_coup_id";

ALTER TABLE "protection_sidebetexpectation" DROP CONSTRAINT "protection_sidebetexpectation_coup_id_d03afd02_fk_shoes_coup_id";

ALTER TABLE "shoes_coupcorrection" DROP CONSTRAINT "shoes_coupcorrection_coup_id_b7d9dc8e_fk_shoes_coup_id";

ALTER TABLE "shoes_wager" DROP CONSTRAINT "shoes_wager_coup_id_78e55455_fk_shoes_coup_id";

CREATE TABLE "shoes_coup__partitioned" (LIKE "shoes_coup" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE (gaming_day);

CREATE TABLE "shoes_coup_default" PARTITION OF "shoes_coup__partitioned" DEFAULT;

DROP TABLE "shoes_coup";

ALTER TABLE "shoes_coup__partitioned" RENAME TO "shoes_coup";

ALTER SEQUENCE shoes_coup__partitioned_id_seq RENAME TO "shoes_coup_id_seq";

ALTER TABLE "shoes_coup" ADD CONSTRAINT "shoes_coup_pkey" PRIMARY KEY (id, gaming_day);

ALTER TABLE "shoes_coup" ADD CONSTRAINT "coup_number_unique_per_shoe" UNIQUE (shoe_id, number, gaming_day);

CREATE INDEX coup_gaming_day_shoe ON shoes_coup USING btree (gaming_day, shoe_id);

CREATE INDEX shoes_coup_dealt_at_9945fbd9 ON shoes_coup USING btree (dealt_at);

CREATE INDEX shoes_coup_gaming_day_d83e7988 ON shoes_coup USING btree (gaming_day);

CREATE INDEX shoes_coup_paytable_id_59fc17d0 ON shoes_coup USING btree (paytable_id);

CREATE INDEX shoes_coup_recorded_at_61e75b24 ON shoes_coup USING btree (recorded_at);

CREATE INDEX shoes_coup_recorded_by_device_id_087e16b3 ON shoes_coup USING btree (recorded_by_device_id);

CREATE INDEX shoes_coup_recorded_by_user_id_dfc93e46 ON shoes_coup USING btree (recorded_by_user_id);

CREATE INDEX shoes_coup_shoe_id_32251d31 ON shoes_coup USING btree (shoe_id);

ALTER TABLE "shoes_coup" ADD CONSTRAINT "shoes_coup_paytable_id_59fc17d0_fk_paytables" FOREIGN KEY (paytable_id) REFERENCES paytables_paytableconfiguration(id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE "shoes_coup" ADD CONSTRAINT "shoes_coup_recorded_by_device_id_087e16b3_fk_accounts_device_id" FOREIGN KEY (recorded_by_device_id) REFERENCES accounts_device(id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE "shoes_coup" ADD CONSTRAINT "shoes_coup_recorded_by_user_id_dfc93e46_fk_auth_user_id" FOREIGN KEY (recorded_by_user_id) REFERENCES auth_user(id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE "shoes_coup" ADD CONSTRAINT "shoes_coup_shoe_id_32251d31_fk_shoes_shoe_id" FOREIGN KEY (shoe_id) REFERENCES shoes_shoe(id) DEFERRABLE INITIALLY DEFERRED;

CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_coup" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_coup" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_coup" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_coup_default" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE TABLE "shoes_wager__partitioned" (LIKE "shoes_wager" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE (gaming_day);

CREATE TABLE "shoes_wager_default" PARTITION OF "shoes_wager__partitioned" DEFAULT;

DROP TABLE "shoes_wager";

ALTER TABLE "shoes_wager__partitioned" RENAME TO "shoes_wager";

ALTER SEQUENCE shoes_wager__partitioned_id_seq RENAME TO "shoes_wager_id_seq";

ALTER TABLE "shoes_wager" ADD CONSTRAINT "shoes_wager_pkey" PRIMARY KEY (id, gaming_day);

CREATE INDEX shoes_wager_correction_id_910e2c9d ON shoes_wager USING btree (correction_id);

CREATE INDEX shoes_wager_coup_id_78e55455 ON shoes_wager USING btree (coup_id);

CREATE UNIQUE INDEX wager_unique_per_correction_seat_bet ON shoes_wager USING btree (correction_id, seat, bet, gaming_day) WHERE (correction_id IS NOT NULL);

CREATE UNIQUE INDEX wager_unique_per_coup_seat_bet ON shoes_wager USING btree (coup_id, seat, bet, gaming_day) WHERE (correction_id IS NULL);

ALTER TABLE "shoes_wager" ADD CONSTRAINT "shoes_wager_correction_id_910e2c9d_fk_shoes_coupcorrection_id" FOREIGN KEY (correction_id) REFERENCES shoes_coupcorrection(id) DEFERRABLE INITIALLY DEFERRED;

CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "shoes_wager" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "shoes_wager" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_wager" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "shoes_wager_default" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE TABLE "ledger_commissionentry__partitioned" (LIKE "ledger_commissionentry" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE (gaming_day);

CREATE TABLE "ledger_commissionentry_default" PARTITION OF "ledger_commissionentry__partitioned" DEFAULT;

DROP TABLE "ledger_commissionentry";

ALTER TABLE "ledger_commissionentry__partitioned" RENAME TO "ledger_commissionentry";

ALTER SEQUENCE ledger_commissionentry__partitioned_id_seq RENAME TO "ledger_commissionentry_id_seq";

ALTER TABLE "ledger_commissionentry" ADD CONSTRAINT "ledger_commissionentry_pkey" PRIMARY KEY (id, gaming_day);

ALTER TABLE "ledger_commissionentry" ADD CONSTRAINT "ledger_commissionentry_reverses_id_key" UNIQUE (reverses_id, gaming_day);

CREATE UNIQUE INDEX commission_one_accrual_per_wager ON ledger_commissionentry USING btree (wager_id, gaming_day) WHERE ((kind)::text = 'accrued'::text);

CREATE UNIQUE INDEX commission_one_shuffle_collection_per_seat ON ledger_commissionentry USING btree (shoe_id, seat, gaming_day) WHERE (((collection_reason)::text = 'shuffle'::text) AND ((kind)::text = 'collected'::text));

CREATE INDEX ledger_commissionentry_recorded_at_cd3bae66 ON ledger_commissionentry USING btree (recorded_at);

CREATE INDEX ledger_commissionentry_recorded_by_device_id_85822900 ON ledger_commissionentry USING btree (recorded_by_device_id);

CREATE INDEX ledger_commissionentry_recorded_by_user_id_05be1f1e ON ledger_commissionentry USING btree (recorded_by_user_id);

CREATE INDEX ledger_commissionentry_shoe_id_5a9a84ac ON ledger_commissionentry USING btree (shoe_id);

CREATE INDEX ledger_commissionentry_wager_id_e65cae3f ON ledger_commissionentry USING btree (wager_id);

ALTER TABLE "ledger_commissionentry" ADD CONSTRAINT "ledger_commissionent_recorded_by_device_i_85822900_fk_accounts_" FOREIGN KEY (recorded_by_device_id) REFERENCES accounts_device(id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE "ledger_commissionentry" ADD CONSTRAINT "ledger_commissionent_recorded_by_user_id_05be1f1e_fk_auth_user" FOREIGN KEY (recorded_by_user_id) REFERENCES auth_user(id) DEFERRABLE INITIALLY DEFERRED;

ALTER TABLE "ledger_commissionentry" ADD CONSTRAINT "ledger_commissionentry_shoe_id_5a9a84ac_fk_shoes_shoe_id" FOREIGN KEY (shoe_id) REFERENCES shoes_shoe(id) DEFERRABLE INITIALLY DEFERRED;

CREATE TRIGGER pit_immutable_update BEFORE UPDATE ON "ledger_commissionentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_delete BEFORE DELETE ON "ledger_commissionentry" FOR EACH ROW EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_commissionentry" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON "ledger_commissionentry_default" FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse();

CREATE OR REPLACE FUNCTION pit_reference_compliance_ruleviolation_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.coup_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "compliance_ruleviolation_coup_id_3bbbd89c_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'compliance_ruleviolation_coup_id_3bbbd89c_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "compliance_ruleviolation_coup_id_3bbbd89c_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON compliance_ruleviolation DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_compliance_ruleviolation_coup_id();

CREATE OR REPLACE FUNCTION pit_reference_compliance_ruleviolation_wager_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.wager_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_wager WHERE id = NEW.wager_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "compliance_ruleviolation_wager_id_682e990c_fk_shoes_wager_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'compliance_ruleviolation_wager_id_682e990c_fk_shoes_wager_id',
                  DETAIL = format('Key (wager_id)=(%s) is not present in table "shoes_wager".', NEW.wager_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "compliance_ruleviolation_wager_id_682e990c_fk_shoes_wager_id" AFTER INSERT OR UPDATE OF wager_id ON compliance_ruleviolation DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_compliance_ruleviolation_wager_id();

CREATE OR REPLACE FUNCTION pit_reference_ledger_commissionentry_reverses_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.reverses_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger_commissionentry WHERE id = NEW.reverses_id AND gaming_day = NEW.gaming_day) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "ledger_commissionent_reverses_id_d03f28fc_fk_ledger_co"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'ledger_commissionent_reverses_id_d03f28fc_fk_ledger_co',
                  DETAIL = format('Key (reverses_id)=(%s) is not present in table "ledger_commissionentry".', NEW.reverses_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "ledger_commissionent_reverses_id_d03f28fc_fk_ledger_co" AFTER INSERT OR UPDATE OF reverses_id ON ledger_commissionentry DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_ledger_commissionentry_reverses_id();

CREATE OR REPLACE FUNCTION pit_reference_ledger_commissionentry_wager_id() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS $$
DECLARE
    ids bigint[];
    days date[];
    missing record;
BEGIN
    SELECT array_agg(DISTINCT i.wager_id), array_agg(DISTINCT i.gaming_day) INTO ids, days
      FROM inserted i WHERE i.wager_id IS NOT NULL;
    IF ids IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE 'SELECT i.wager_id AS id, i.gaming_day AS day FROM inserted i WHERE i.wager_id IS NOT NULL '
            'AND NOT EXISTS (SELECT FROM shoes_wager t WHERE t.id = i.wager_id AND t.gaming_day = i.gaming_day '
            'AND t.id = ANY ($1) AND t.gaming_day = ANY ($2)) LIMIT 1' INTO missing USING ids, days;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "ledger_commissionentry_wager_id_e65cae3f_fk_shoes_wager_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'ledger_commissionentry_wager_id_e65cae3f_fk_shoes_wager_id',
                  DETAIL = format('Key (wager_id, gaming_day)=(%s, %s) is not present in table "shoes_wager".',
                                  missing.id, missing.day);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "ledger_commissionentry_wager_id_e65cae3f_fk_shoes_wager_id" AFTER INSERT ON "ledger_commissionentry" REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pit_reference_ledger_commissionentry_wager_id();

CREATE TRIGGER "ledger_commissionentry_wager_id_e65cae3f_fk_shoes_wager_id" AFTER INSERT ON "ledger_commissionentry_default" REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pit_reference_ledger_commissionentry_wager_id();

CREATE OR REPLACE FUNCTION pit_reference_ledger_reconciliationsupplementseat_entry_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.entry_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger_commissionentry WHERE id = NEW.entry_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "ledger_reconciliatio_entry_id_ed279628_fk_ledger_co"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'ledger_reconciliatio_entry_id_ed279628_fk_ledger_co',
                  DETAIL = format('Key (entry_id)=(%s) is not present in table "ledger_commissionentry".', NEW.entry_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "ledger_reconciliatio_entry_id_ed279628_fk_ledger_co" AFTER INSERT OR UPDATE OF entry_id ON ledger_reconciliationsupplementseat DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_ledger_reconciliationsupplementseat_entry_id();

CREATE OR REPLACE FUNCTION pit_reference_protection_cardshingle_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.coup_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "protection_cardshingle_coup_id_4a3fc05f_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'protection_cardshingle_coup_id_4a3fc05f_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "protection_cardshingle_coup_id_4a3fc05f_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON protection_cardshingle DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_protection_cardshingle_coup_id();

CREATE OR REPLACE FUNCTION pit_reference_protection_sidebetexpectation_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.coup_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "protection_sidebetexpectation_coup_id_d03afd02_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'protection_sidebetexpectation_coup_id_d03afd02_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "protection_sidebetexpectation_coup_id_d03afd02_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON protection_sidebetexpectation DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_protection_sidebetexpectation_coup_id();

CREATE OR REPLACE FUNCTION pit_reference_shoes_coupcorrection_coup_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.coup_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM shoes_coup WHERE id = NEW.coup_id) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "shoes_coupcorrection_coup_id_b7d9dc8e_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'shoes_coupcorrection_coup_id_b7d9dc8e_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id)=(%s) is not present in table "shoes_coup".', NEW.coup_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER "shoes_coupcorrection_coup_id_b7d9dc8e_fk_shoes_coup_id" AFTER INSERT OR UPDATE OF coup_id ON shoes_coupcorrection DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pit_reference_shoes_coupcorrection_coup_id();

CREATE OR REPLACE FUNCTION pit_reference_shoes_wager_coup_id() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS $$
DECLARE
    ids bigint[];
    days date[];
    missing record;
BEGIN
    SELECT array_agg(DISTINCT i.coup_id), array_agg(DISTINCT i.gaming_day) INTO ids, days
      FROM inserted i WHERE i.coup_id IS NOT NULL;
    IF ids IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE 'SELECT i.coup_id AS id, i.gaming_day AS day FROM inserted i WHERE i.coup_id IS NOT NULL '
            'AND NOT EXISTS (SELECT FROM shoes_coup t WHERE t.id = i.coup_id AND t.gaming_day = i.gaming_day '
            'AND t.id = ANY ($1) AND t.gaming_day = ANY ($2)) LIMIT 1' INTO missing USING ids, days;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "shoes_wager_coup_id_78e55455_fk_shoes_coup_id"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'shoes_wager_coup_id_78e55455_fk_shoes_coup_id',
                  DETAIL = format('Key (coup_id, gaming_day)=(%s, %s) is not present in table "shoes_coup".',
                                  missing.id, missing.day);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "shoes_wager_coup_id_78e55455_fk_shoes_coup_id" AFTER INSERT ON "shoes_wager" REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pit_reference_shoes_wager_coup_id();

CREATE TRIGGER "shoes_wager_coup_id_78e55455_fk_shoes_coup_id" AFTER INSERT ON "shoes_wager_default" REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION pit_reference_shoes_wager_coup_id();

CREATE OR REPLACE FUNCTION pit_coup_number_unique() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The unique index is on (shoe_id, number, gaming_day) (a partitioned table's unique keys hold
    -- the partition key): a shoe dealt across a month's first 6 a.m. spans two partitions. One
    -- writer per shoe (the services lock its row; this lock holds for any other writer too).
    PERFORM pg_advisory_xact_lock(hashtextextended('shoes_coup.number', NEW.shoe_id));
    IF EXISTS (SELECT 1 FROM shoes_coup WHERE shoe_id = NEW.shoe_id AND number = NEW.number) THEN
        RAISE EXCEPTION 'duplicate key value violates unique constraint "coup_number_unique_per_shoe"'
            USING ERRCODE = 'unique_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = 'coup_number_unique_per_shoe',
                  DETAIL = format('Key (shoe_id, number)=(%s, %s) already exists.', NEW.shoe_id, NEW.number);
    END IF;
    RETURN NEW;
END;
$$;

CREATE TRIGGER pit_coup_number_unique BEFORE INSERT ON shoes_coup FOR EACH ROW EXECUTE FUNCTION pit_coup_number_unique();

CREATE OR REPLACE FUNCTION pit_partitions_ensure(first_month date, last_month date) RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    parents text[] := ARRAY['shoes_coup', 'shoes_wager', 'ledger_commissionentry']::text[];
    parent text;
    moving text;
    month date;
    name text;
    held boolean := false;
    columns text;
    moved bigint;
    counted bigint;
    foreign_key text;
    key_trigger record;
BEGIN
    IF last_month < first_month OR last_month > first_month + interval '10 years' THEN
        RAISE EXCEPTION 'partitions from % to %: not a range of months this function makes', first_month, last_month;
    END IF;
    FOREACH parent IN ARRAY parents LOOP
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', parent || '_default') INTO held;
        EXIT WHEN held;
    END LOOP;
    IF held THEN
        EXECUTE 'SET CONSTRAINTS ALL IMMEDIATE';
        EXECUTE format('LOCK TABLE %I, %I, %I IN ACCESS EXCLUSIVE MODE', VARIADIC parents);
        FOR i IN REVERSE array_length(parents, 1)..1 LOOP
            parent := parents[i];
            moving := parent || '_default_moving';
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', parent, parent || '_default');
            EXECUTE format('ALTER TABLE %I RENAME TO %I', parent || '_default', moving);
            FOR foreign_key IN
                SELECT conname FROM pg_constraint WHERE conrelid = moving::regclass AND contype = 'f'
                   AND confrelid::regclass::text = ANY (parents)
            LOOP
                EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', moving, foreign_key);
            END LOOP;
        END LOOP;
        FOREACH parent IN ARRAY parents LOOP
            moving := parent || '_default_moving';
            name := parent || '_default';
            EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', name, parent);
            EXECUTE format('CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse()', name); FOR key_trigger IN SELECT t.tgname, t.tgfoid::regproc::text AS function FROM pg_trigger t WHERE t.tgrelid = parent::regclass AND t.tgnewtable IS NOT NULL AND NOT t.tgisinternal ORDER BY t.tgname LOOP EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION %s()', key_trigger.tgname, name, key_trigger.function); END LOOP;
            -- Every month any of the three held, in each table (archive_month wants all three).
            FOR month IN EXECUTE format('SELECT DISTINCT date_trunc(''month'', gaming_day)::date FROM ('
                                        'SELECT gaming_day FROM %I UNION ALL SELECT gaming_day FROM %I '
                                        'UNION ALL SELECT gaming_day FROM %I) held ORDER BY 1',
                                        parents[1] || '_default_moving', parents[2] || '_default_moving',
                                        parents[3] || '_default_moving')
            LOOP
                name := parent || '_' || to_char(month, 'YYYY_MM');
                CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent, month, (month + interval '1 month')::date); EXECUTE format('CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse()', name); FOR key_trigger IN SELECT t.tgname, t.tgfoid::regproc::text AS function FROM pg_trigger t WHERE t.tgrelid = parent::regclass AND t.tgnewtable IS NOT NULL AND NOT t.tgisinternal ORDER BY t.tgname LOOP EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION %s()', key_trigger.tgname, name, key_trigger.function); END LOOP;
                RETURN NEXT name;
            END LOOP;
            SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO columns FROM pg_attribute
             WHERE attrelid = parent::regclass AND attnum > 0 AND NOT attisdropped;
            EXECUTE format('INSERT INTO %I (%s) SELECT %s FROM %I ORDER BY id', parent, columns, columns, moving);
            GET DIAGNOSTICS moved = ROW_COUNT;
            EXECUTE format('SELECT count(*) FROM %I', moving) INTO counted;
            IF moved <> counted THEN
                RAISE EXCEPTION 'moving % rows out of the DEFAULT partition of %: % inserted', counted, parent, moved;
            END IF;
            IF moved > 0 THEN
                RETURN NEXT 'moved:' || parent || ':' || moved;
            END IF;
        END LOOP;
        FOR i IN REVERSE array_length(parents, 1)..1 LOOP
            EXECUTE format('DROP TABLE %I', parents[i] || '_default_moving');
        END LOOP;
        EXECUTE 'SET CONSTRAINTS ALL DEFERRED';
    END IF;
    FOREACH parent IN ARRAY parents LOOP
        FOR month IN SELECT generate_series(date_trunc('month', first_month), last_month, interval '1 month')::date
        LOOP
            name := parent || '_' || to_char(month, 'YYYY_MM');
            CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', name, parent, month, (month + interval '1 month')::date); EXECUTE format('CREATE TRIGGER pit_immutable_truncate BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION pit_immutable_refuse()', name); FOR key_trigger IN SELECT t.tgname, t.tgfoid::regproc::text AS function FROM pg_trigger t WHERE t.tgrelid = parent::regclass AND t.tgnewtable IS NOT NULL AND NOT t.tgisinternal ORDER BY t.tgname LOOP EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION %s()', key_trigger.tgname, name, key_trigger.function); END LOOP;
            RETURN NEXT name;
        END LOOP;
        FOR month IN EXECUTE format('SELECT DISTINCT date_trunc(''month'', gaming_day)::date FROM %I ORDER BY 1',
                                    parent || '_default')
        LOOP
            RETURN NEXT 'default:' || parent || ':' || to_char(month, 'YYYY-MM');
        END LOOP;
    END LOOP;
END;
$$;

REVOKE EXECUTE ON FUNCTION pit_partitions_ensure(date, date) FROM PUBLIC;
