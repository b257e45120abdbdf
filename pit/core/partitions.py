"""Coups, wagers and commission entries partitioned by month of gaming day (PostgreSQL only): the
partition-day field, the partitions' names, the ensure call and the catalog reads. The tables, key
checks and `pit_partitions_ensure()` are made by the archive's migration, its SQL frozen beside it.
Design: docs/operations/partitions.md and docs/design/records.md."""

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import models
from django.db.backends.utils import CursorWrapper
from django.db.models.expressions import Combinable

from pit.core.gaming_day import gaming_day_for

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
    ("ratings_coupedges", "coup_id"): ("shoes_coup", False),
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


# Django's fields are generic to the type checker only (not subscriptable at run time): a nullable
# date, set from a date (or its ISO text, or an expression), read as a date or None.
if TYPE_CHECKING:
    _NullableDateField = models.DateField[str | dt.date | Combinable | None, dt.date | None]
else:
    _NullableDateField = models.DateField


class PartitionDayField(_NullableDateField):
    """The gaming day a row is partitioned by: on insert, the first of `sources` that is set (an
    attribute path through the row's relations: "coup.gaming_day"; a moment is turned into its
    gaming day). Every insert path computes it (save, bulk_create, the batch's unnest arrays call
    `pre_save`), so no write site names it. Nullable for SQLite only, where adding a NOT NULL
    column rebuilds the table and drops its insert-only triggers; PostgreSQL's primary key makes
    it NOT NULL there."""

    def __init__(self, *args: Any, sources: tuple[str, ...] = (), **kwargs: Any) -> None:
        self.sources = tuple(sources)
        kwargs.setdefault("null", True)
        kwargs.setdefault("blank", True)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> tuple[str, str, Sequence[Any], dict[str, Any]]:
        name, path, args, kwargs = super().deconstruct()
        kwargs["sources"] = self.sources
        for key, value in (("null", True), ("blank", True), ("editable", False)):
            if kwargs.get(key) == value:
                del kwargs[key]
        return name, path, args, kwargs

    def derive(self, instance: models.Model) -> dt.date | None:
        for source in self.sources:
            relation, _, attribute = source.partition(".")
            field = instance._meta.get_field(relation)
            if not isinstance(field, models.Field):
                raise TypeError(f"{source}: a source starts at a relation of the row's own columns")
            if getattr(instance, field.attname) is None:
                continue
            value: dt.date | None = getattr(getattr(instance, relation), attribute)
            if isinstance(value, dt.datetime):
                value = gaming_day_for(value)
            if value is not None:
                return value
        return None

    def pre_save(self, model_instance: models.Model, add: bool) -> dt.date | None:
        value: dt.date | None = getattr(model_instance, self.attname)
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


@dataclass
class Ensured:
    created: list[str]  # partitions made
    moved: dict[str, int]  # table -> rows moved out of its DEFAULT partition into their months'
    held_by_default: dict[str, list[str]]  # table -> months (YYYY-MM) still in its DEFAULT partition


def partitions_ensure_sql(cursor: CursorWrapper, first: dt.date, last: dt.date) -> Ensured:
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


def is_partitioned(cursor: CursorWrapper, table: str) -> bool:
    cursor.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = %s AND n.nspname = current_schema())",
        [table],
    )
    (exists,) = cursor.fetchone()
    return bool(exists)


def month_partitions(cursor: CursorWrapper, table: str) -> dict[dt.date, str]:
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
