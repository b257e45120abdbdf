"""Facts of record are insert-only, in the database (triggers on PostgreSQL and SQLite, frozen into
migrations by `manage.py fact_protection_sql`) and in the ORM (`Fact`). Design and how to protect a
new fact table: docs/design/records.md."""

from collections.abc import Callable, Iterable
from typing import Any, NoReturn, TypeVar

import pghistory.models
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, models
from django.db.backends.base.base import BaseDatabaseWrapper

FUNCTION = "pit_immutable_refuse"
TRIGGER = "pit_immutable"  # PostgreSQL: pit_immutable_update/_delete/_truncate on each table
REASON = "facts of record are insert-only; a correction is a new record"


class ImmutableRecordError(IntegrityError):
    """The ORM refused to UPDATE or DELETE a fact (the database would refuse it too)."""


# ---------------------------------------------------------------------------------------- SQL

POSTGRES_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
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
        RAISE EXCEPTION 'UPDATE of column %.% refused: only % may change; {REASON}',
            TG_TABLE_NAME, changed, array_to_string(TG_ARGV, ', ')
            USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME, COLUMN = changed;
    END IF;
    RAISE EXCEPTION '% refused on %: {REASON}', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation', TABLE = TG_TABLE_NAME;
END;
$$;
"""  # noqa: S608 (constants only)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _sqlite_triggers(table: str) -> list[str]:
    return [f"{table}__immutable_{what}" for what in ("update", "delete", "replace")]


def protect_sql(vendor: str, *, table: str, columns: list[str], pk: str, updatable: tuple[str, ...] = ()) -> list[str]:
    """The statements that make `table` insert-only except for the `updatable` columns.

    `columns` are all the table's columns, `pk` its primary key column. Idempotent: it replaces
    the protection the table had.
    """
    unknown = set(updatable) - set(columns)
    if unknown:
        raise ValueError(f"{table} has no column {', '.join(sorted(unknown))}")
    if vendor == "postgresql":
        args = ", ".join(_literal(column) for column in updatable)
        quoted = f'"{table}"'
        return [
            POSTGRES_FUNCTION,
            *unprotect_sql(vendor, table=table),
            f"CREATE TRIGGER {TRIGGER}_update BEFORE UPDATE ON {quoted} "
            f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}({args})",
            f"CREATE TRIGGER {TRIGGER}_delete BEFORE DELETE ON {quoted} FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()",
            f"CREATE TRIGGER {TRIGGER}_truncate BEFORE TRUNCATE ON {quoted} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()",
        ]
    if vendor == "sqlite":
        update, delete, replace = _sqlite_triggers(table)
        if updatable:
            only = ", ".join(updatable)
            refusal = "UPDATE of column {table}.{column} refused: only {only} may change; {reason}"
            checks = " ".join(
                f"SELECT RAISE(ABORT, {_literal(refusal.format(table=table, column=column, only=only, reason=REASON))})"
                f' WHERE NEW."{column}" IS NOT OLD."{column}";'
                for column in columns
                if column not in updatable
            )
        else:
            checks = f"SELECT RAISE(ABORT, {_literal(f'UPDATE refused on {table}: {REASON}')});"
        return [
            *unprotect_sql(vendor, table=table),
            f'CREATE TRIGGER "{update}" BEFORE UPDATE ON "{table}" BEGIN {checks} END',
            f'CREATE TRIGGER "{delete}" BEFORE DELETE ON "{table}" '
            f"BEGIN SELECT RAISE(ABORT, {_literal(f'DELETE refused on {table}: {REASON}')}); END",
            # INSERT OR REPLACE over an existing row: refused even on a connection without
            # recursive_triggers (which would otherwise delete the old row silently).
            # Names come from the model's metadata, never from input.
            f'CREATE TRIGGER "{replace}" BEFORE INSERT ON "{table}" '  # noqa: S608
            f'WHEN NEW."{pk}" IS NOT NULL AND EXISTS (SELECT 1 FROM "{table}" WHERE "{pk}" = NEW."{pk}") '
            f"BEGIN SELECT RAISE(ABORT, {_literal(f'INSERT over an existing row refused on {table}: {REASON}')}); END",
        ]
    # pit supports PostgreSQL and SQLite; another engine would hold facts without their insert-only
    # guard, so migrating onto it is refused.
    raise ImproperlyConfigured(
        f"pit keeps its facts insert-only with triggers on PostgreSQL and SQLite; the {vendor} database has none"
    )


def unprotect_sql(vendor: str, *, table: str) -> list[str]:
    if vendor == "postgresql":
        return [f'DROP TRIGGER IF EXISTS {TRIGGER}_{what} ON "{table}"' for what in ("update", "delete", "truncate")]
    return [f'DROP TRIGGER IF EXISTS "{name}"' for name in _sqlite_triggers(table)]


def protected_models() -> list[type[models.Model]]:
    """Every model whose table the triggers protect: the `Fact` models and django-pghistory's
    event models (an audit trail is a fact too), in label order."""
    return sorted(
        (model for model in apps.get_models() if issubclass(model, Fact) or issubclass(model, pghistory.models.Event)),
        key=lambda model: model._meta.label,
    )


def fact_protection_sql(vendor: str, fact_models: Iterable[type[models.Model]], *, replace: bool = False) -> list[str]:
    """The statements protecting the tables of `fact_models` (with each model's `fact_updatable`),
    as a migration freezes them: PostgreSQL's function once, then each table's triggers.
    `replace` keeps the DROP TRIGGER IF EXISTS statements (a table protected before, e.g. with
    other updatable columns). Printed by `manage.py fact_protection_sql`."""
    statements = [POSTGRES_FUNCTION.strip()] if vendor == "postgresql" else []
    for model in fact_models:
        # A concrete field is one with a column.
        fields = {field.name: field.column for field in model._meta.concrete_fields if field.column is not None}
        updatable = getattr(model, "fact_updatable", ())
        unknown = set(updatable) - set(fields)
        if unknown:
            raise ValueError(f"{model._meta.label} has no field {', '.join(sorted(unknown))}")
        table = model._meta.db_table
        drops = unprotect_sql(vendor, table=table)
        statements += [
            statement
            for statement in protect_sql(
                vendor,
                table=table,
                columns=list(fields.values()),
                pk=fields[model._meta.pk.name],
                updatable=tuple(fields[name] for name in updatable),
            )
            if statement != POSTGRES_FUNCTION and (replace or statement not in drops)
        ]
    return statements


def protected_tables(connection: BaseDatabaseWrapper) -> dict[str, tuple[str, ...]]:
    """Table -> its updatable columns, for every table the triggers protect, read from the database."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgargs FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE t.tgname = %s AND n.nspname = current_schema()",
                [f"{TRIGGER}_update"],
            )
            return {
                table: tuple(arg.decode() for arg in bytes(args).split(b"\x00") if arg)
                for table, args in cursor.fetchall()
            }
        cursor.execute(
            "SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s ESCAPE '!'",
            ["%!_!_immutable!_update"],
        )
        protected = {}
        for table, sql in cursor.fetchall():
            if "only " in sql:
                protected[table] = tuple(sql.split(": only ", 1)[1].split(" may change", 1)[0].split(", "))
            else:
                protected[table] = ()
        return protected


# ---------------------------------------------------------------------------------------- ORM


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _django_marks(**marks: bool) -> Callable[[_Method], _Method]:
    """Django's marks on a queryset method, which it reads as function attributes: `alters_data`
    (a template never calls it), `queryset_only` (`as_manager()` does not copy it to the manager)."""

    def mark(method: _Method) -> _Method:
        for name, value in marks.items():
            setattr(method, name, value)
        return method

    return mark


# Of Any model: a TypeVar bound to Fact would type every fact manager's results, and some callers
# elsewhere use them unnarrowed (`.first()` as never None).
class FactQuerySet(models.QuerySet[Any]):
    """`.update()` only of the model's `fact_updatable` fields; `.delete()` never."""

    @_django_marks(alters_data=True)
    def update(self, **kwargs: Any) -> int:
        refused = sorted(set(kwargs) - set(self.model.fact_updatable))
        if refused:
            raise ImmutableRecordError(f"UPDATE of {self.model._meta.label}.{', '.join(refused)} refused: {REASON}")
        return super().update(**kwargs)

    @_django_marks(alters_data=True, queryset_only=True)
    def delete(self) -> NoReturn:
        raise ImmutableRecordError(f"DELETE refused on {self.model._meta.label}: {REASON}")


class Fact(models.Model):
    """A model whose rows are facts of record: inserted once; only `fact_updatable` fields change
    (through `save(update_fields=...)` or `.update()`), nothing is deleted. Its table is protected
    by triggers a migration makes, with the same fields (`manage.py fact_protection_sql`)."""

    fact_updatable: tuple[str, ...] = ()

    objects = FactQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, update_fields: Iterable[str] | None = None, **kwargs: Any) -> None:
        if not self._state.adding:
            names = {field.attname: field.name for field in self._meta.concrete_fields if not field.primary_key}
            saved = names.values() if update_fields is None else (names.get(name, name) for name in update_fields)
            refused = sorted(set(saved) - set(self.fact_updatable))
            if refused:
                raise ImmutableRecordError(f"UPDATE of {self._meta.label}.{', '.join(refused)} refused: {REASON}")
        super().save(*args, update_fields=update_fields, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ImmutableRecordError(f"DELETE refused on {self._meta.label}: {REASON}")


# ---------------------------------------------------------------------------------------- roles


def runtime_privileges_sql(connection: BaseDatabaseWrapper, role: str) -> list[str]:
    """PostgreSQL: the statements giving the runtime `role` what the services need, and no more.

    Every table of the schema: facts (protected by the triggers) get SELECT and INSERT, and UPDATE
    of their updatable columns only; an insert-only fact gets UPDATE of its primary key alone,
    because `SELECT ... FOR UPDATE` (the services lock rows) needs an UPDATE privilege on a
    column; the trigger refuses any actual change. Other tables get SELECT, INSERT, UPDATE,
    DELETE; django_migrations SELECT. No table gets TRUNCATE, REFERENCES or TRIGGER; the role owns
    nothing, so it cannot ALTER, DISABLE TRIGGER or DROP. It may execute the schema's SECURITY
    DEFINER functions (the partitions' ensure, run by beat). Run by the owner after every migrate.
    """
    quote = connection.ops.quote_name
    quoted_role = quote(role)
    protected = protected_tables(connection)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        schema = quote(cursor.fetchone()[0])
        cursor.execute(
            "SELECT c.relname, a.attname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary "
            "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0] "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname"
        )
        tables = cursor.fetchall()
    statements = [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {quoted_role}",
        f"GRANT USAGE ON SCHEMA {schema} TO {quoted_role}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {quoted_role}",
    ]
    for table, pk in tables:
        name = quote(table)
        if table in protected:
            columns = protected[table] or ((pk,) if pk else ())
            statements.append(f"GRANT SELECT, INSERT ON {name} TO {quoted_role}")
            if columns:
                column_list = ", ".join(quote(column) for column in columns)
                statements.append(f"GRANT UPDATE ({column_list}) ON {name} TO {quoted_role}")
        elif table == "django_migrations":
            statements.append(f"GRANT SELECT ON {name} TO {quoted_role}")
        else:
            statements.append(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {name} TO {quoted_role}")
    # A SECURITY DEFINER function of the schema is a door the owner opens for this role on purpose
    # (the month partitions made ahead by beat: pit.core.partitions); none is executable by PUBLIC.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema() AND p.prosecdef ORDER BY 1"
        )
        doors = [row[0] for row in cursor.fetchall()]
    statements += [f"GRANT EXECUTE ON FUNCTION {door} TO {quoted_role}" for door in doors]
    return statements
