"""Coups, wagers and commission entries partitioned by month of gaming day (PostgreSQL only).

The design, and why, is in the README ("Partitioning"). In short: each of the three tables is
range-partitioned on `gaming_day` (one partition a month, `shoes_coup_2026_11`, and a DEFAULT
partition that catches a month nobody created); its primary key is (id, gaming_day), ids still
come from one sequence; wagers and entries carry the gaming day of the row they belong to
(`PartitionDayField`) so that wager -> coup and entry -> wager are keys on (id, gaming_day),
checked once per inserting statement over all the rows it inserted (a foreign key into a
partitioned table looks each row up alone, through the partitioned table: most of the cost of
writing a day's batch). References by id alone into a partitioned table (a violation's coup, a
correction's coup, a reversal's entry ...) are checked by deferred constraint triggers, as a
foreign key is, at commit. A coup number stays unique in its shoe across partitions by a trigger.

Partitions are created ahead by `pit_partitions_ensure()`, a SECURITY DEFINER function owned by
the schema's owner (the runtime role owns no table and could not create one; only it is granted
EXECUTE), called by the beat task `archive.partitions_ensure`; rows a DEFAULT partition caught are
moved by it into partitions of their months (ENSURE_SQL). SQLite keeps plain tables: nothing here
runs there.
"""

import datetime as dt
from dataclasses import dataclass

from django.db import models

from pit.core.gaming_day import gaming_day_for
from pit.core.immutable import FUNCTION as REFUSE_FUNCTION
from pit.core.immutable import TRIGGER as REFUSE_TRIGGER

KEY = "gaming_day"
# Referenced before referencing: partitions are created in this order, detached in the reverse.
PARTITIONED = ("shoes_coup", "shoes_wager", "ledger_commissionentry")
# (table, column) -> referenced partitioned table: keys on (column, gaming_day), checked per statement.
COMPOSITE_KEYS = {("shoes_wager", "coup_id"): "shoes_coup", ("ledger_commissionentry", "wager_id"): "shoes_wager"}
# (table, column) -> referenced partitioned table, checked by a constraint trigger; `True`: the
# referencing row carries the same gaming day (a reversal lives in the month of what it reverses).
CHECKED_REFERENCES = {
    ("ledger_commissionentry", "reverses_id"): ("ledger_commissionentry", True),
    ("shoes_coupcorrection", "coup_id"): ("shoes_coup", False),
    ("compliance_ruleviolation", "coup_id"): ("shoes_coup", False),
    ("compliance_ruleviolation", "wager_id"): ("shoes_wager", False),
    ("protection_cardshingle", "coup_id"): ("shoes_coup", False),
    ("protection_sidebetexpectation", "coup_id"): ("shoes_coup", False),
    ("ledger_reconciliationsupplementseat", "entry_id"): ("ledger_commissionentry", False),
}
ENSURE_FUNCTION = "pit_partitions_ensure"


def month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def next_month(month: dt.date) -> dt.date:
    return (month.replace(day=28) + dt.timedelta(days=4)).replace(day=1)


def months_after(day: dt.date, count: int) -> dt.date:
    """The first day of the month `count` months after (before, if negative) `day`'s."""
    year, index = divmod(day.year * 12 + day.month - 1 + count, 12)
    return dt.date(year, index + 1, 1)


def partition_name(table: str, month: dt.date) -> str:
    return f"{table}_{month:%Y_%m}"


def default_partition(table: str) -> str:
    return f"{table}_default"


class PartitionDayField(models.DateField):
    """The gaming day a row is partitioned by: on insert, the first of `sources` that is set (an
    attribute path through the row's relations: "coup.gaming_day"; a moment is turned into its
    gaming day). Every insert path computes it (save, bulk_create, the batch's unnest arrays call
    `pre_save`), so no write site names it. Nullable for SQLite only, where adding a NOT NULL
    column rebuilds the table and drops its insert-only triggers; PostgreSQL's primary key makes
    it NOT NULL there."""

    def __init__(self, *args, sources: tuple[str, ...] = (), **kwargs):
        self.sources = tuple(sources)
        kwargs.setdefault("null", True)
        kwargs.setdefault("blank", True)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["sources"] = self.sources
        for key, value in (("null", True), ("blank", True), ("editable", False)):
            if kwargs.get(key) == value:
                del kwargs[key]
        return name, path, args, kwargs

    def derive(self, instance):
        for source in self.sources:
            relation, _, attribute = source.partition(".")
            if getattr(instance, instance._meta.get_field(relation).attname) is None:
                continue
            value = getattr(getattr(instance, relation), attribute)
            if isinstance(value, dt.datetime):
                value = gaming_day_for(value)
            if value is not None:
                return value
        return None

    def pre_save(self, model_instance, add):
        value = getattr(model_instance, self.attname)
        if add and value is None:
            value = self.derive(model_instance)
            setattr(model_instance, self.attname, value)
        return value


# ---------------------------------------------------------------------------------------- SQL


def _reference_function(table: str, column: str) -> str:
    return f"pit_reference_{table}_{column}"[:63]


def reference_check_sql(table: str, column: str, target: str, same_day: bool, name: str) -> list[str]:
    """A foreign key the database cannot declare (the target is partitioned; its id alone is not
    a key), as a deferred constraint trigger named like the foreign key it replaces."""
    function = _reference_function(table, column)
    day = f" AND {KEY} = NEW.{KEY}" if same_day else ""
    return [
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.{column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {target} WHERE id = NEW.{column}{day}) THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "{name}"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = '{name}',
                  DETAIL = format('Key ({column})=(%s) is not present in table "{target}".', NEW.{column});
    END IF;
    RETURN NULL;
END;
$$""",  # noqa: S608 (names from this module only)
        f'DROP TRIGGER IF EXISTS "{name}" ON {table}',
        f'CREATE CONSTRAINT TRIGGER "{name}" AFTER INSERT OR UPDATE OF {column} ON {table} '
        f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {function}()",
    ]


def composite_key_check_sql(table: str, column: str, target: str, name: str) -> str:
    """The function checking the key (column, gaming_day) -> target (id, gaming_day) of the rows
    one statement inserted (its transition table `inserted`), by one anti-join, at the end of the
    statement; it fails as the foreign key it replaces did (SQLSTATE 23503, under its name).

    A foreign key into a partitioned table costs a query through the partitioned table per row
    (locks on every partition, run-time pruning, a row lock): a day's batch of 11,500 wagers spent
    0.5 s in them at commit, four times what a key into a plain table costs. This one check runs
    before the statement returns rather than at commit, so a referenced row is written first, in
    an earlier statement or in the same one (the coup POST's single statement): every writer does.
    No row lock is taken on the referenced row: coups and wagers are never updated or deleted (the
    insert-only triggers) and their months are detached referencing tables first. Updates need no
    check: no row of these tables may be updated.

    The lookup is a hash anti-join of the inserted rows against the referenced rows they name (ids
    and days as arrays, planned at each statement with them, so other months are pruned), nested
    loops disabled: linear in the rows at every size, whatever the statistics say. A per-row probe
    (a nested loop, as a foreign key does) is what the planner took, and with the day's rows not
    yet in the statistics it probed the gaming-day index and read all the coups of the day for
    every wager (a day's batch on a new day: 0.9 s more); `NOT IN` hashes only what it estimates
    fits in work_mem, and past that re-reads the referenced rows for every inserted row (a
    generated year's wagers in one INSERT did not finish in 10 minutes; now 1M wagers against 150k
    coups take 0.9 s)."""
    function = _reference_function(table, column)
    return f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS $$
DECLARE
    ids bigint[];
    days date[];
    missing record;
BEGIN
    SELECT array_agg(DISTINCT i.{column}), array_agg(DISTINCT i.{KEY}) INTO ids, days
      FROM inserted i WHERE i.{column} IS NOT NULL;
    IF ids IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE 'SELECT i.{column} AS id, i.{KEY} AS day FROM inserted i WHERE i.{column} IS NOT NULL '
            'AND NOT EXISTS (SELECT FROM {target} t WHERE t.id = i.{column} AND t.{KEY} = i.{KEY} '
            'AND t.id = ANY ($1) AND t.{KEY} = ANY ($2)) LIMIT 1' INTO missing USING ids, days;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'insert or update on table "%" violates foreign key constraint "{name}"', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = '{name}',
                  DETAIL = format('Key ({column}, {KEY})=(%s, %s) is not present in table "{target}".',
                                  missing.id, missing.day);
    END IF;
    RETURN NULL;
END;
$$"""  # noqa: S608 (names from this module and the catalog only)


def composite_key_trigger_sql(relation: str, function: str, name: str) -> list[str]:
    """The statement trigger calling the check on `relation`, the partitioned table or one of its
    partitions (PostgreSQL fires only the named table's statement triggers: a row inserted into a
    partition directly is checked by the partition's)."""
    return [
        f'DROP TRIGGER IF EXISTS "{name}" ON "{relation}"',
        f'CREATE TRIGGER "{name}" AFTER INSERT ON "{relation}" REFERENCING NEW TABLE AS inserted '
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
    ]


def composite_key_check(cursor, table: str, column: str, name: str) -> None:
    """The key `name` of (table, column) checked per statement, on the table and its partitions."""
    function = _reference_function(table, column)
    cursor.execute(composite_key_check_sql(table, column, COMPOSITE_KEYS[table, column], name))
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = %s::regclass ORDER BY c.relname",
        [table],
    )
    for relation in [table, *(row[0] for row in cursor.fetchall())]:
        for statement in composite_key_trigger_sql(relation, function, name):
            cursor.execute(statement)


def composite_keys_checked_per_statement(cursor) -> None:
    """An existing schema's composite foreign keys into partitioned tables turned into the checks
    per statement, under the same names (nothing to do where that was done)."""
    for (table, column), target in COMPOSITE_KEYS.items():
        cursor.execute(
            "SELECT c.conname FROM pg_constraint c JOIN pg_attribute a "
            "ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
            "WHERE c.conrelid = %s::regclass AND c.confrelid = %s::regclass AND c.contype = 'f' "
            "AND c.conparentid = 0 AND a.attname = %s",
            [table, target, column],
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
            composite_key_check(cursor, table, column, name)


COUP_NUMBER_CONSTRAINT = "coup_number_unique_per_shoe"
COUP_NUMBER_SQL = [
    f"""CREATE OR REPLACE FUNCTION pit_coup_number_unique() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The unique index is on (shoe_id, number, gaming_day) (a partitioned table's unique keys hold
    -- the partition key): a shoe dealt across a month's first 6 a.m. spans two partitions. One
    -- writer per shoe (the services lock its row; this lock holds for any other writer too).
    PERFORM pg_advisory_xact_lock(hashtextextended('shoes_coup.number', NEW.shoe_id));
    IF EXISTS (SELECT 1 FROM shoes_coup WHERE shoe_id = NEW.shoe_id AND number = NEW.number) THEN
        RAISE EXCEPTION 'duplicate key value violates unique constraint "{COUP_NUMBER_CONSTRAINT}"'
            USING ERRCODE = 'unique_violation', TABLE = TG_TABLE_NAME, CONSTRAINT = '{COUP_NUMBER_CONSTRAINT}',
                  DETAIL = format('Key (shoe_id, number)=(%s, %s) already exists.', NEW.shoe_id, NEW.number);
    END IF;
    RETURN NEW;
END;
$$""",  # noqa: S608 (constants only)
    "DROP TRIGGER IF EXISTS pit_coup_number_unique ON shoes_coup",
    "CREATE TRIGGER pit_coup_number_unique BEFORE INSERT ON shoes_coup "
    "FOR EACH ROW EXECUTE FUNCTION pit_coup_number_unique()",
]

# The statement triggers partition `name` of `parent` needs (PostgreSQL clones row triggers to a
# new partition, not statement triggers): the one refusing TRUNCATE, and the parent's checks of a
# composite key (a transition table's statement triggers), under their names.
PARTITION_TRIGGERS_SQL = (
    f"EXECUTE format('CREATE TRIGGER {REFUSE_TRIGGER}_truncate BEFORE TRUNCATE ON %I "  # noqa: S608 (constants only)
    f"FOR EACH STATEMENT EXECUTE FUNCTION {REFUSE_FUNCTION}()', name); "
    "FOR key_trigger IN SELECT t.tgname, t.tgfoid::regproc::text AS function FROM pg_trigger t "
    "WHERE t.tgrelid = parent::regclass AND t.tgnewtable IS NOT NULL AND NOT t.tgisinternal ORDER BY t.tgname "
    "LOOP EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS inserted "
    "FOR EACH STATEMENT EXECUTE FUNCTION %s()', key_trigger.tgname, name, key_trigger.function); END LOOP;"
)
# The month partition `name` of `parent` for `month`, with its statement triggers: one text for
# both places ENSURE_SQL makes one.
MONTH_PARTITION_SQL = (
    "EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', "
    f"name, parent, month, (month + interval '1 month')::date); {PARTITION_TRIGGERS_SQL}"
)
# Creates the month partitions of [first, last] that are missing, in every partitioned table, and
# answers what it did, a line each:
#   <partition>                   a partition made (empty, or filled from the DEFAULT, below);
#   moved:<table>:<rows>          rows of the table's DEFAULT partition moved to their months';
#   default:<table>:<YYYY-MM>     a month whose rows stay in the DEFAULT partition (its partition's
#                                 name is taken: a month archived, its detached table not dropped).
# Rows in a DEFAULT partition (a gaming day no partition covered: beat down for months, a replay
# far in the past or future) are moved first, every month of them (its partition made in all three
# tables, whichever held it), in this transaction: the three
# parents are locked (in the writers' order, coups first), each DEFAULT is detached (referencing
# tables first, their foreign keys into the partitioned tables dropped from the detached copy,
# which would otherwise hold the next detach back), a new empty DEFAULT and the months' partitions
# are made, the rows are inserted through the parent (coups, then wagers, then entries: each row
# lands in its month's partition and is checked again by the foreign keys and row triggers as at
# its first insert), their count is compared, and the detached old DEFAULT is dropped whole. No
# row is updated or deleted (the insert-only triggers stay on and are never passed); ids, hashes
# and chain positions are the rows' own. Constraints are checked at once during the move (pending
# checks of the caller's transaction run first: a detached table with pending checks could not be
# dropped), then deferred again, as every deferrable constraint of the schema is initially.
# Row triggers are cloned to a new partition by PostgreSQL; the statement trigger refusing
# TRUNCATE is not, so it is created on each partition here.
ENSURE_SQL = f"""
CREATE OR REPLACE FUNCTION {ENSURE_FUNCTION}(first_month date, last_month date) RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    parents text[] := ARRAY{list(PARTITIONED)!r}::text[];
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
            {PARTITION_TRIGGERS_SQL}
            -- Every month any of the three held, in each table (archive_month wants all three).
            FOR month IN EXECUTE format('SELECT DISTINCT date_trunc(''month'', {KEY})::date FROM ('
                                        'SELECT {KEY} FROM %I UNION ALL SELECT {KEY} FROM %I '
                                        'UNION ALL SELECT {KEY} FROM %I) held ORDER BY 1',
                                        parents[1] || '_default_moving', parents[2] || '_default_moving',
                                        parents[3] || '_default_moving')
            LOOP
                name := parent || '_' || to_char(month, 'YYYY_MM');
                CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
                {MONTH_PARTITION_SQL}
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
            {MONTH_PARTITION_SQL}
            RETURN NEXT name;
        END LOOP;
        FOR month IN EXECUTE format('SELECT DISTINCT date_trunc(''month'', {KEY})::date FROM %I ORDER BY 1',
                                    parent || '_default')
        LOOP
            RETURN NEXT 'default:' || parent || ':' || to_char(month, 'YYYY-MM');
        END LOOP;
    END LOOP;
END;
$$
"""  # noqa: S608 (constants only)
# Only the runtime role runs it (granted by `manage.py migrate`, pit.core.immutable.runtime_privileges_sql):
# a SECURITY DEFINER function is executable by PUBLIC unless revoked.
ENSURE_PRIVATE_SQL = f"REVOKE EXECUTE ON FUNCTION {ENSURE_FUNCTION}(date, date) FROM PUBLIC"


@dataclass
class Ensured:
    created: list[str]  # partitions made
    moved: dict[str, int]  # table -> rows moved out of its DEFAULT partition into their months'
    held_by_default: dict[str, list[str]]  # table -> months (YYYY-MM) still in its DEFAULT partition


def partitions_ensure_sql(cursor, first: dt.date, last: dt.date) -> Ensured:
    """Run the ensure function (as whoever may execute it): the partitions made, the rows moved out
    of the DEFAULT partitions, and the months still held there."""
    cursor.execute(f"SELECT * FROM {ENSURE_FUNCTION}(%s, %s)", [month_start(first), month_start(last)])  # noqa: S608
    ensured = Ensured([], {}, {})
    for (line,) in cursor.fetchall():
        what, _, rest = line.partition(":")
        if what == "moved":
            table, _, rows = rest.partition(":")
            ensured.moved[table] = int(rows)
        elif what == "default":
            table, _, month = rest.partition(":")
            ensured.held_by_default.setdefault(table, []).append(month)
        else:
            ensured.created.append(line)
    return ensured


def is_partitioned(cursor, table: str) -> bool:
    cursor.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = %s AND n.nspname = current_schema())",
        [table],
    )
    return cursor.fetchone()[0]


def month_partitions(cursor, table: str) -> dict[dt.date, str]:
    """The attached month partitions of `table`: first day of the month -> partition name."""
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace n ON n.oid = p.relnamespace "
        "WHERE p.relname = %s AND n.nspname = current_schema() ORDER BY c.relname",
        [table],
    )
    found = {}
    for (name,) in cursor.fetchall():
        suffix = name.removeprefix(f"{table}_")
        if suffix != "default":
            year, month = suffix.split("_")
            found[dt.date(int(year), int(month), 1)] = name
    return found


# ---------------------------------------------------------------------------------------- migration


def _months_between(first: dt.date, last: dt.date) -> list[dt.date]:
    months, month = [], month_start(first)
    while month <= last:
        months.append(month)
        month = next_month(month)
    return months


def _create_partitions(cursor, parent: str, table: str, months) -> None:
    cursor.execute(f'CREATE TABLE "{default_partition(table)}" PARTITION OF "{parent}" DEFAULT')
    for month in sorted(months):
        cursor.execute(
            f'CREATE TABLE "{partition_name(table, month)}" PARTITION OF "{parent}" FOR VALUES FROM (%s) TO (%s)',
            [month, next_month(month)],
        )


def _with_key(columns_sql: str) -> str:
    """'(shoe_id, number)' -> '(shoe_id, number, gaming_day)'."""
    return columns_sql[:-1] + f", {KEY})" if KEY not in columns_sql else columns_sql


def _protect_partitions(cursor, table: str, columns: list[str]) -> None:
    from pit.core.immutable import protect_sql

    for statement in protect_sql("postgresql", table=table, columns=columns, pk="id"):
        cursor.execute(statement)
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = %s::regclass",
        [table],
    )
    for (partition,) in cursor.fetchall():
        cursor.execute(f'DROP TRIGGER IF EXISTS {REFUSE_TRIGGER}_truncate ON "{partition}"')
        cursor.execute(
            f'CREATE TRIGGER {REFUSE_TRIGGER}_truncate BEFORE TRUNCATE ON "{partition}" '
            f"FOR EACH STATEMENT EXECUTE FUNCTION {REFUSE_FUNCTION}()"
        )


def partition_tables(cursor, *, today: dt.date, months_ahead: int) -> None:
    """Turn the plain coup, wager and entry tables into partitioned ones, rows kept (PostgreSQL,
    in the migration's transaction, as the owner). Every index, check, foreign key and trigger
    the tables had comes back under its own name: unique keys with the partition key added, the
    foreign keys into them as composite keys checked per statement or as constraint triggers (see
    the module's doc)."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    cursor.execute(
        "SELECT c.conname, c.conrelid::regclass::text, a.attname, c.confrelid::regclass::text "
        "FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] "
        "WHERE c.contype = 'f' AND c.confrelid::regclass::text = ANY(%s) ORDER BY c.conname",
        [list(PARTITIONED)],
    )
    incoming = cursor.fetchall()
    for name, table, _column, _target in incoming:
        cursor.execute(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')
    for table in PARTITIONED:
        new = f"{table}__partitioned"
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'u' ORDER BY conname",
            [table],
        )
        uniques = cursor.fetchall()
        cursor.execute(
            "SELECT pg_get_indexdef(i.indexrelid), i.indisunique FROM pg_index i "
            "WHERE i.indrelid = %s::regclass AND NOT EXISTS "
            "(SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid) ORDER BY i.indexrelid::regclass::text",
            [table],
        )
        indexes = cursor.fetchall()
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'f' ORDER BY conname",
            [table],
        )
        outgoing = [
            (name, definition)
            for name, definition in cursor.fetchall()
            if all(name != incoming_name for incoming_name, *_ in incoming)
        ]
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped "
            "ORDER BY attnum",
            [table],
        )
        columns = [row[0] for row in cursor.fetchall()]
        cursor.execute(f"SELECT DISTINCT date_trunc('month', {KEY})::date FROM \"{table}\"")  # noqa: S608
        months = {row[0] for row in cursor.fetchall()}
        months.update(_months_between(months_after(today, -1), months_after(today, months_ahead)))
        if None in months:
            raise ValueError(f"{table} has rows without a {KEY}: backfill it first")
        cursor.execute(
            f'CREATE TABLE "{new}" (LIKE "{table}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY '
            f"INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE ({KEY})"
        )
        _create_partitions(cursor, new, table, months)
        cursor.execute(f'INSERT INTO "{new}" SELECT * FROM "{table}"')  # noqa: S608
        cursor.execute(f'DROP TABLE "{table}"')
        cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{table}"')
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        (sequence,) = cursor.fetchone()
        cursor.execute(f'ALTER SEQUENCE {sequence} RENAME TO "{table}_id_seq"')
        cursor.execute(
            f'SELECT setval(\'"{table}_id_seq"\', COALESCE((SELECT max(id) FROM "{table}"), 1), '  # noqa: S608
            f'(SELECT max(id) IS NOT NULL FROM "{table}"))'
        )
        cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{table}_pkey" PRIMARY KEY (id, {KEY})')
        for name, definition in uniques:
            cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" UNIQUE {_with_key(definition[7:])}')
        for definition, unique in indexes:
            if unique:
                head, _, tail = definition.partition(" USING btree ")
                columns_sql, _, where = tail.partition(")")
                definition = f"{head} USING btree {_with_key(columns_sql + ')')}{where}"
            cursor.execute(definition)
        for name, definition in outgoing:
            cursor.execute(f'ALTER TABLE "{table}" ADD CONSTRAINT "{name}" {definition}')
        _protect_partitions(cursor, table, columns)
    for name, table, column, target in incoming:
        if (table, column) in COMPOSITE_KEYS:
            composite_key_check(cursor, table, column, name)
            continue
        target, same_day = CHECKED_REFERENCES.get((table, column), (target, False))
        for statement in reference_check_sql(table, column, target, same_day, name):
            cursor.execute(statement)
    for statement in COUP_NUMBER_SQL:
        cursor.execute(statement)
    cursor.execute(ENSURE_SQL)
    cursor.execute(ENSURE_PRIVATE_SQL)
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def backfill_partition_days(apps, schema_editor) -> None:
    """Give the wagers and commission entries written before the column existed their gaming day,
    by the rule `PartitionDayField` follows for new rows (both databases; past the insert-only
    triggers, taken off for the statement and put back as they were)."""
    from pit.core.immutable import protect_sql, unprotect_sql

    connection = schema_editor.connection
    wager_model, entry_model = apps.get_model("shoes", "Wager"), apps.get_model("ledger", "CommissionEntry")
    if not (
        wager_model.objects.filter(gaming_day__isnull=True).exists()
        or entry_model.objects.filter(gaming_day__isnull=True).exists()
    ):
        return
    tables = {
        model._meta.db_table: [field.column for field in model._meta.concrete_fields]
        for model in (wager_model, entry_model)
    }
    with connection.cursor() as cursor:
        for table in tables:
            for statement in unprotect_sql(connection.vendor, table=table):
                cursor.execute(statement)
        cursor.execute(
            "UPDATE shoes_wager SET gaming_day = (SELECT c.gaming_day FROM shoes_coup c "
            "WHERE c.id = shoes_wager.coup_id) WHERE gaming_day IS NULL"
        )
        cursor.execute(
            "UPDATE ledger_commissionentry SET gaming_day = (SELECT w.gaming_day FROM shoes_wager w "
            "WHERE w.id = ledger_commissionentry.wager_id) WHERE gaming_day IS NULL AND wager_id IS NOT NULL"
        )
        shoes = (
            apps.get_model("shoes", "Shoe")
            .objects.filter(
                pk__in=entry_model.objects.filter(
                    gaming_day__isnull=True, wager__isnull=True, reverses__isnull=True
                ).values("shoe_id")
            )
            .values_list("pk", "shuffled_at")
        )
        for shoe_id, shuffled_at in shoes:
            cursor.execute(
                "UPDATE ledger_commissionentry SET gaming_day = %s WHERE shoe_id = %s AND gaming_day IS NULL "
                "AND wager_id IS NULL AND reverses_id IS NULL",
                [gaming_day_for(shuffled_at), shoe_id],
            )
        while True:  # a reversal takes the day of what it reverses, which may be a reversal itself
            cursor.execute(
                "UPDATE ledger_commissionentry SET gaming_day = (SELECT r.gaming_day FROM ledger_commissionentry r "
                "WHERE r.id = ledger_commissionentry.reverses_id) WHERE gaming_day IS NULL AND EXISTS "
                "(SELECT 1 FROM ledger_commissionentry r WHERE r.id = ledger_commissionentry.reverses_id "
                "AND r.gaming_day IS NOT NULL)"
            )
            if cursor.rowcount == 0:
                break
        for table, columns in tables.items():
            for statement in protect_sql(connection.vendor, table=table, columns=columns, pk="id"):
                cursor.execute(statement)


def partition_tables_migration(apps, schema_editor) -> None:
    """The migration's step: PostgreSQL only (SQLite keeps plain tables)."""
    from django.conf import settings

    from pit.core.gaming_day import current_gaming_day

    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        if is_partitioned(cursor, PARTITIONED[0]):
            return
        partition_tables(cursor, today=current_gaming_day(), months_ahead=settings.PIT_PARTITION_MONTHS_AHEAD)


def ensure_function_migration(apps, schema_editor) -> None:
    """The ensure function as it is now (moving rows out of the DEFAULT partitions), executable
    only by whom `manage.py migrate` grants it (PostgreSQL; nothing on SQLite)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        if is_partitioned(cursor, PARTITIONED[0]):
            cursor.execute(ENSURE_SQL)
            cursor.execute(ENSURE_PRIVATE_SQL)


def composite_keys_migration(apps, schema_editor) -> None:
    """PostgreSQL: wager -> coup and entry -> wager checked per statement instead of as foreign
    keys, and the ensure function giving new partitions those checks. Nothing on SQLite."""
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        if is_partitioned(cursor, PARTITIONED[0]):
            composite_keys_checked_per_statement(cursor)
            cursor.execute(ENSURE_SQL)
            cursor.execute(ENSURE_PRIVATE_SQL)


def partition_tables_migration_backwards(apps, schema_editor) -> None:
    """SQLite: nothing was done. PostgreSQL: a partitioned table is not turned back into a plain one."""
    if schema_editor.connection.vendor == "postgresql":
        from django.db.migrations.exceptions import IrreversibleError

        raise IrreversibleError("the coups, wagers and commission entries stay partitioned (pit.core.partitions)")
