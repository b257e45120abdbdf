"""Model instances from the rows of a hand-written SELECT (PostgreSQL paths that read several models
in one statement): the values as the ORM would give them, without compiling a query per request."""
from django.db import connection


def model_columns(model, alias: str) -> list[str]:
    """`alias.column` of each of the model's concrete fields, in field order (names from the metadata)."""
    return [f"{alias}.{connection.ops.quote_name(field.column)}" for field in model._meta.concrete_fields]


def model_from_row(model, row: list):
    """A model instance from the first len(concrete fields) values of `row` (consumed). Only the
    fields' own converters run (`from_db_value`): enough on PostgreSQL, whose driver gives Python
    values; not on SQLite, whose backend converts dates and booleans itself."""
    fields = model._meta.concrete_fields
    values, row[:] = row[:len(fields)], row[len(fields):]
    converted = [
        converter(value, None, connection) if (converter := getattr(field, "from_db_value", None)) else value
        for field, value in zip(fields, values, strict=True)
    ]
    return model.from_db(connection.alias, [field.attname for field in fields], converted)
