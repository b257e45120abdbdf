"""Hand-written statements' shared helpers: their texts written once per process, and rows converted
as the ORM converts them. Design: docs/design/shoes-persistence.md."""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ParamSpec, Self, TypeVar, cast

from django.core.exceptions import EmptyResultSet
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, JSONField, Lookup, Model, QuerySet
from django.db.models.expressions import Col
from django.db.models.sql.compiler import SQLCompiler
from psycopg import Cursor
from psycopg.abc import Buffer, Params, Query, QueryNoTemplate
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg.types.datetime import TimestamptzBinaryLoader

if TYPE_CHECKING:  # a name of the stubs only
    from django.db.models.sql.compiler import _AsSqlType

# The JSON decoder's own scanner (C): `json.loads` in front of it matches whitespace on both sides
# with regular expressions, which costs more than decoding a short array of cards.
_scan_json: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # in CPython, not in typeshed


# Every form `statement_form` has written, by its builder and arguments: one cache for the process.
_FORMS: dict[tuple[Hashable, ...], Any] = {}

_Arguments = ParamSpec("_Arguments")
_Form = TypeVar("_Form")
_M = TypeVar("_M", bound=Model)
# A converter as Django calls it: (value, expression, connection).
_Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


def statement_form(build: Callable[_Arguments, _Form]) -> Callable[_Arguments, _Form]:
    """Decorate a function that writes a hand-written statement's form (its text, and what goes with
    it: the fields it binds or reads) from names in the models' metadata: written once per process
    for each set of (hashable) arguments, then taken from one cache shared by every such statement.
    Only names from the metadata may go into a text; every value is a parameter of its execution."""

    @functools.wraps(build)
    def form(*arguments: Hashable) -> _Form:
        key = (build, *arguments)
        try:
            return cast(_Form, _FORMS[key])
        except KeyError:
            written = _FORMS[key] = cast(Callable[..., _Form], build)(*arguments)
            return written

    # `form` takes the builder's (positional, hashable) arguments.
    return cast(Callable[_Arguments, _Form], form)


def statements_run(statements: list[tuple[str, list[Any]] | None]) -> list[list[tuple[Any, ...]]]:
    """Each statement's rows (none for a write; a None statement is left out), in order. On
    PostgreSQL in one round trip: the texts sent together (Django's client-side binding sends several
    statements at once), each statement still with its own snapshot, taken when it starts, as it
    would be sent alone (READ COMMITTED): a statement after a lock sees what committed before the
    lock was granted. Elsewhere one after the other.

    The results are taken counting from the last: an execute wrapper may put statements of its own
    in front and move the cursor past them, as pghistory's does in every request and task (its
    audit context set for the transaction), so the first result is not always the first sent."""
    given = [statement for statement in statements if statement is not None]
    results: list[list[tuple[Any, ...]]] = []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "; ".join(text for text, _params in given), [value for _text, params in given for value in params]
            )
            for index in range(-len(given), 0):
                cursor.set_result(index)
                results.append(cursor.fetchall() if cursor.description is not None else [])
        else:
            for text, params in given:
                cursor.execute(text, params)
                results.append(cursor.fetchall() if cursor.description is not None else [])
    return results


def statement_forms_clear() -> None:
    """Forget every form written (a test that changes the models' metadata or the database vendor)."""
    _FORMS.clear()


def mark_saved(instance: Model, pk: object) -> None:
    """`instance`, built from the values a hand-written INSERT wrote, marked as the row `pk` of the
    default database, as `save()` marks it: Django keeps that state in the private `_state`, which
    `from_db()` sets for rows read and nothing public sets for rows written by hand."""
    instance.pk = pk
    instance._state.adding, instance._state.db = False, connection.alias


def model_columns(model: type[Model], alias: str) -> list[str]:
    """`alias.column` of each of the model's concrete fields, in field order (names from the metadata)."""
    return [f"{alias}.{connection.ops.quote_name(cast(str, field.column))}" for field in model._meta.concrete_fields]


def model_from_row(model: type[_M], row: list[Any]) -> _M:
    """A model instance from the first len(concrete fields) values of `row` (consumed). Only the
    fields' own converters run (`from_db_value`): enough on PostgreSQL, whose driver gives Python
    values; not on SQLite, whose backend converts dates and booleans itself."""
    count, attnames, converters = _row_form(model)
    values, row[:] = row[:count], row[count:]
    for position, converter in converters:
        values[position] = converter(values[position], None, connection)
    return model.from_db(connection.alias, attnames, values)


@statement_form
def _row_form(model: type[Model]) -> tuple[int, list[str], list[tuple[int, _Converter]]]:
    """What `model_from_row` needs of the model's fields: how many, their attribute names and the
    converters to run (by position). Plain JSONFields are decoded by `_json`, as their converter does."""
    fields = model._meta.concrete_fields
    converters = [
        (position, _json_converter if _plain_json_field(field) else converter)
        for position, field in enumerate(fields)
        if (converter := getattr(field, "from_db_value", None))
    ]
    return len(fields), [field.attname for field in fields], converters


def _plain_json_field(field: Field[Any, Any]) -> bool:
    """A JSONField whose converter is Django's own, with no decoder of its own."""
    return isinstance(field, JSONField) and not field.decoder and type(field).from_db_value is JSONField.from_db_value


def _json_converter(value: object, expression: object, connection: BaseDatabaseWrapper) -> Any:
    return _json(value)


def version_at(model: type[_M], moment: dt.datetime, *, field: str = "effective_from") -> _M | None:
    """The version of `model` in effect at `moment`: the row of the latest `field` not after it (of
    two at one moment, the later recorded), or None. On PostgreSQL a statement written once per
    process (a versioned configuration is read by every write it judges, and compiling the ORM's
    query cost more than running it); elsewhere the ORM's query (the same row:
    tests/cash/test_aggregation.py reads versions both ways)."""
    if connection.vendor != "postgresql":
        return model._default_manager.filter(**{f"{field}__lte": moment}).order_by(f"-{field}", "-pk").first()
    with connection.cursor() as cursor:
        cursor.execute(_version_sql(model, field), [moment])
        row = cursor.fetchone()
    return None if row is None else model_from_row(model, list(row))


@statement_form
def _version_sql(model: type[Model], field: str) -> str:
    table = connection.ops.quote_name(model._meta.db_table)
    at = connection.ops.quote_name(cast(str, cast("Field[Any, Any]", model._meta.get_field(field)).column))
    pk = connection.ops.quote_name(cast(str, model._meta.pk.column))
    return (
        f"SELECT {', '.join(model_columns(model, table))} FROM {table} "  # noqa: S608
        f"WHERE {at} <= %s ORDER BY {at} DESC, {pk} DESC LIMIT 1"
    )


class AnyOf(Lookup):
    """`filter(AnyOf(F("coup_id"), ids))`: the integer column is one of `ids`. On PostgreSQL one array
    parameter, `= ANY(%s::bigint[])`, written as the array's text (joined in C), however many ids: no
    placeholder per id for Django to prepare and psycopg to parse, as `__in` has for thousands of
    them; elsewhere `IN (...)`."""

    lookup_name = "any_of"
    prepare_rhs = False

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper) -> _AsSqlType:
        lhs, params = self.process_lhs(compiler, connection)
        ids = [int(value) for value in self.rhs]
        if not ids:
            raise EmptyResultSet
        if connection.vendor == "postgresql":
            return f"{lhs} = ANY(%s::bigint[])", (*params, "{" + ",".join(map(str, ids)) + "}")
        return f"{lhs} IN ({', '.join(['%s'] * len(ids))})", (*params, *ids)


def values_rows(queryset: QuerySet[Any, Any]) -> list[tuple[Any, ...]]:
    """The rows of a `values_list()` queryset, fetched in one go on a client-side cursor and converted
    as the ORM converts them (JSON decoded; on SQLite, dates and booleans): for reads of thousands of
    rows that are all used at once, without the ORM's row-by-row iteration (or, with `iterator()` on
    PostgreSQL, a server-side cursor's round trips)."""
    compiler = queryset.query.get_compiler(using=queryset.db)
    try:
        sql, params = compiler.as_sql()
    except EmptyResultSet:
        return []
    # The compiler's select list and converters (internal API): the only way to convert fetched rows
    # exactly as the queryset would, JSON, SQLite's dates and booleans and custom fields alike.
    columns = compiler.select[: compiler.col_count]
    converters = compiler.get_converters([expression for expression, _, _ in columns])
    # Columns of plain JSONFields are decoded by `_json` (as Django's converter decodes them, faster).
    json_columns = [
        position
        for position, (convs, expression) in converters.items()
        if _plain_json(expression) and convs == [expression.target.from_db_value]
    ]
    database = connections[queryset.db]
    # Django reads inet and cidr as text; in binary psycopg would give ipaddress objects instead.
    addresses = any(
        expression.output_field.get_internal_type() == "GenericIPAddressField" for expression, _, _ in columns
    )
    if database.vendor == "postgresql" and database.timezone_name == "UTC" and not addresses:
        # Every column in binary: integers, dates and timestamps copied, not parsed from text. Only
        # a cursor that binds its parameters on the server can ask for that; never prepared (a
        # pooler in transaction mode keeps no prepared statement). The session is in UTC, so the
        # timestamps are the aware datetimes Django's own loader gives, from psycopg's, in C.
        database.ensure_connection()
        # `_prepare_cursor` (private) wraps a cursor of our own class as Django wraps its own: logged,
        # timed by the debug toolbar and the query-count assertions, errors translated.
        cursor = database._prepare_cursor(  # type: ignore[attr-defined]  # private, not in django-stubs
            _BinaryCursor(database.connection)
        )
        adapters = cursor.cursor.adapters
        adapters.register_loader("timestamptz", TimestamptzBinaryLoader)
        if json_columns and len(json_columns) == len(converters):
            # Every converted column is plain JSON: decoded as psycopg reads it, nothing after.
            adapters.register_loader("jsonb", _JsonLoader)
            converters, json_columns = {}, []
        else:  # as text, for the fields' converters (as Django reads jsonb)
            adapters.register_loader("jsonb", _JsonTextLoader)
    else:
        cursor = database.cursor()
    with cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if not converters:
        return cast("list[tuple[Any, ...]]", rows)
    for position in json_columns:
        del converters[position]
    if converters:
        rows = list(compiler.apply_converters(rows, converters))
    if json_columns:
        rows = [list(row) for row in rows] if not converters else rows
        for row in rows:
            for position in json_columns:
                row[position] = _json(row[position])
    return [tuple(row) for row in rows]


class _BinaryCursor(Cursor):
    """Parameters bound on the server, every column of the result in binary, never prepared."""

    def execute(self, query: Query, params: Params | None = None, **kwargs: Any) -> Self:
        # Django's cursor sends text, never a template string.
        return super().execute(cast(QueryNoTemplate, query), params, prepare=False, binary=True)


class _JsonTextLoader(Loader):
    """Binary jsonb (a version byte, then the text) as its text."""

    format = Format.BINARY

    def load(self, data: Buffer) -> str:
        return bytes(data[1:]).decode()


class _JsonLoader(_JsonTextLoader):
    """Binary jsonb decoded by `_json`."""

    def load(self, data: Buffer) -> Any:
        return _json(super().load(data))


def _plain_json(expression: object) -> bool:
    """A column of a JSONField decoded as the standard library decodes it (Django's JSONField
    converter, with no decoder of its own)."""
    return isinstance(expression, Col) and isinstance(expression.target, JSONField) and not expression.target.decoder


def _json(value: Any) -> Any:
    """As Django's JSONField converter decodes a column: None stays None, text that is no JSON stays text."""
    if isinstance(value, str):
        try:
            decoded, end = _scan_json(value, 0)
        except StopIteration:  # whitespace before the value, or no JSON at all
            end = -1
        if end == len(value):
            return decoded
    if value is None:
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value
