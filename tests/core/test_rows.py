"""pit.core.rows: the sweep's one-fetch reads give what the ORM gives; statement forms are written once."""

import json

import pytest
from django.db.models import F

from pit.core.rows import AnyOf, _json, mark_saved, statement_form, values_rows
from pit.shoes.models import Coup
from pit.tables.models import Table
from tests import factories


@pytest.mark.parametrize(
    "text",
    ['["KH", "5D"]', "[]", '{"a": [1, 2.5, null]}', '"\\u00e9t\\u00e9"', "  [1]", "[1]  ", "12", "true"],
)
def test_json_is_decoded_as_the_standard_library_decodes_it(text):
    assert _json(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "nope", "[1,", "  ", "[1] [2]"])
def test_text_that_is_no_json_stays_text_as_django_keeps_it(text):
    assert _json(text) == text
    assert _json(None) is None


@pytest.mark.django_db
def test_values_rows_gives_the_rows_values_list_gives():
    shoe = factories.shoe(factories.table("R1"))
    factories.coup(shoe, 1, ["KH", "5D"], ["9S", "QC"])
    factories.coup(shoe, 2, ["AH", "2D", "3C"], ["4S", "5C", "6H"])
    queryset = (
        Coup.objects.filter(AnyOf(F("shoe_id"), [shoe.pk]))
        .order_by("number")
        .values_list("pk", "number", "player_cards", "banker_cards", "gaming_day", "dealt_at", "recorded_at")
    )
    rows = values_rows(queryset)
    assert rows == list(queryset)
    assert [row[2:4] for row in rows] == [(["KH", "5D"], ["9S", "QC"]), (["AH", "2D", "3C"], ["4S", "5C", "6H"])]
    assert values_rows(Coup.objects.filter(AnyOf(F("shoe_id"), [-1])).values_list("pk")) == []


@pytest.mark.django_db
def test_model_from_row_gives_the_instances_the_orm_gives():
    """The lock read of a coup post (PostgreSQL) builds the shoe, its table and their paytable from
    one row: each field as the ORM reads it (JSON decoded, times aware)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("model_from_row reads rows of PostgreSQL's driver")

    from pit.core.rows import model_columns, model_from_row
    from pit.paytables.models import PaytableConfiguration
    from pit.shoes.models import Shoe
    from pit.tables.models import Table

    shoe = factories.shoe(factories.table("R2"))
    factories.coup(shoe, 1, ["KH", "5D"], ["9S", "QC"])
    models = {"s": Shoe, "t": Table, "p": PaytableConfiguration}
    columns = ", ".join(column for alias, model in models.items() for column in model_columns(model, alias))
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns} FROM {quote(Shoe._meta.db_table)} s "  # noqa: S608
            f"JOIN {quote(Table._meta.db_table)} t ON t.id = s.table_id "
            f"JOIN {quote(PaytableConfiguration._meta.db_table)} p ON p.id = t.paytable_id WHERE s.id = %s",
            [shoe.pk],
        )
        row = list(cursor.fetchone())
    built = {}
    for model in models.values():
        built[model] = model_from_row(model, row)
        expected = model.objects.get(pk=built[model].pk)
        for field in model._meta.concrete_fields:
            assert getattr(built[model], field.attname) == getattr(expected, field.attname), field.name
        assert (built[model]._state.adding, built[model]._state.db) == (False, "default")
    assert row == []
    assert isinstance(built[Table].seats, list) and isinstance(built[PaytableConfiguration].rules, dict)


@pytest.mark.django_db
def test_values_rows_gives_addresses_as_the_orm_gives_them():
    """inet columns come back as Django reads them (text), not as psycopg's binary ipaddress objects."""
    from axes.models import AccessAttempt

    AccessAttempt.objects.create(
        username="pitboss",
        ip_address="192.0.2.7",
        user_agent="floor",
        get_data="",
        post_data="",
        failures_since_start=1,
    )
    queryset = AccessAttempt.objects.values_list("pk", "username", "ip_address", "failures_since_start")
    assert values_rows(queryset) == list(queryset)
    assert values_rows(queryset)[0][2] == "192.0.2.7"


def test_a_statement_form_is_written_once_for_each_set_of_arguments():
    written = []

    @statement_form
    def text(model, count):
        written.append((model, count))
        return f"{model._meta.db_table}:{count}"

    assert [text(Table, 1), text(Table, 1), text(Table, 2)] == ["tables_table:1", "tables_table:1", "tables_table:2"]
    assert written == [(Table, 1), (Table, 2)]


@pytest.mark.django_db
def test_an_instance_marked_saved_is_the_row_the_orm_reads():
    """mark_saved: an instance built from the values written by hand updates, as a saved one does."""
    shoe = factories.shoe(factories.table("R3"))
    table = Table(
        **{f.attname: getattr(shoe.table, f.attname) for f in Table._meta.concrete_fields if not f.primary_key}
    )
    mark_saved(table, shoe.table.pk)
    assert (table._state.adding, table._state.db, table.pk) == (False, "default", shoe.table.pk)
    table.name = "Renamed"
    table.save(update_fields=["name"])
    assert Table.objects.get(pk=shoe.table.pk).name == "Renamed"
