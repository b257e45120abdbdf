"""pit.core.rows: the sweep's one-fetch reads give what the ORM gives."""

import json

import pytest
from django.db.models import F

from pit.core.rows import AnyOf, _json, values_rows
from pit.shoes.models import Coup
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
    queryset = Coup.objects.filter(AnyOf(F("shoe_id"), [shoe.pk])).order_by("number").values_list(
        "pk", "number", "player_cards", "banker_cards", "gaming_day", "dealt_at", "recorded_at"
    )
    rows = values_rows(queryset)
    assert rows == list(queryset)
    assert [row[2:4] for row in rows] == [(["KH", "5D"], ["9S", "QC"]), (["AH", "2D", "3C"], ["4S", "5C", "6H"])]
    assert values_rows(Coup.objects.filter(AnyOf(F("shoe_id"), [-1])).values_list("pk")) == []
