"""One strict reader for the whole API (issue 28 item 6), by construction and by classes of bad input.

- every field of every input serializer is a field of the kit (pit/api/serializers.py), and every
  request body of the schema is a StrictSerializer;
- the schema is walked: every class of bad input the audit found is sent to every field of every POST
  operation, and each answer is a 4xx naming the field, with the value it quotes bounded, and nothing
  written (no row of any model, no outbox message);
- a key given twice is refused at parse time, naming its path; paging values are read strictly."""

import json

import pytest
from rest_framework import serializers

from pit.api import urls  # noqa: F401 (every resource imported: every input serializer defined)
from pit.api.errors import MAX_MESSAGE
from pit.api.serializers import KitField, StrictSerializer
from pit.shoes.models import Coup, Wager
from tests.api.conftest import coup_body
from tests.api.operations import body_with, build_floor, leaf_fields, operations, request_body, rows

pytestmark = pytest.mark.django_db

BATCH = "/api/v1/shoes/{shoe_id}/coups/batch/"


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


INPUT_SERIALIZERS = sorted(
    {cls for cls in _subclasses(StrictSerializer) if cls.__module__.startswith("pit.api")}, key=lambda c: c.__name__
)


def _not_from_the_kit(field, path: str) -> list[str]:
    if isinstance(field, StrictSerializer):
        return [bad for name, child in field.fields.items() for bad in _not_from_the_kit(child, f"{path}.{name}")]
    if isinstance(field, serializers.ListSerializer):
        if field.max_length is None:  # type: ignore[attr-defined]
            return [f"{path} (a list with no most length)"]
        return _not_from_the_kit(field.child, f"{path}[]")
    if not isinstance(field, KitField):
        return [f"{path} ({type(field).__module__}.{type(field).__name__})"]
    child = getattr(field, "child", None)
    return _not_from_the_kit(child, f"{path}[]") if child is not None else []


def test_every_input_field_is_from_the_kit():
    assert len(INPUT_SERIALIZERS) >= 15
    bad = [
        found
        for cls in INPUT_SERIALIZERS
        for name, field in cls().fields.items()
        for found in _not_from_the_kit(field, f"{cls.__name__}.{name}")
    ]
    assert bad == []


def test_every_request_body_of_the_schema_is_a_strict_serializer():
    names = {cls.__name__ for cls in INPUT_SERIALIZERS}
    bodies = set()
    for method in ("post", "put", "patch"):
        for path, operation in operations(method):
            ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            assert "$ref" in ref, (method, path)
            bodies.add(ref["$ref"].rsplit("/", 1)[1])
    assert bodies
    assert {f"{name.removesuffix('Request')}Serializer" for name in bodies} <= names


def _kind(schema: dict) -> str:
    if schema.get("type") == "integer":
        return "integer"
    if schema.get("format") == "date-time":
        return "moment"
    if schema.get("format") == "date":
        return "day"
    if "enum" in schema:
        return "choice"
    pattern = schema.get("pattern", "")
    if pattern.startswith("^[0-9]{1,15}"):
        return "money"
    return "identifier" if pattern else "text"


RAW = object()  # a value written into the JSON text as it is (a number JSON has and Python reads as inf)

# The classes of bad input the audit found, per kind of field: (what, value).
CLASSES = {
    "integer": [("padded", " 5"), ("padded", "5 "), ("fullwidth", "５"), ("string", "5"), ("huge", (RAW, "1e400"))],
    "identifier": [("number", (RAW, "1e400")), ("fullwidth", "５"), ("padded", " F-1"), ("nul", "F\u00001")],
    "money": [("negative zero", "-0.00"), ("number", (RAW, "1e400")), ("fullwidth", "１.00"), ("nul", "1\u0000")],
    "moment": [("no offset", "2026-11-20T06:00:00"), ("fullwidth", "２０２６-11-20T06:00:00Z"), ("number", 5)],
    "day": [("fullwidth", "２０２６-11-20"), ("number", 20261120), ("padded", " 2026-11-20")],
    "choice": [("number", (RAW, "1e400")), ("nul", "fill\u0000"), ("padded", " fill")],
    "text": [("number", (RAW, "1e400")), ("nul", "tray\u0000low"), ("escape", "tray\u001blow"), ("integer", 5)],
}
HUGE = "9" * 1_000_000  # a 1 MB bad value: named, not echoed whole


def _raw_body(path: str, value) -> str:
    if isinstance(value, tuple) and value[0] is RAW:
        return json.dumps(body_with(path, "@@RAW@@")).replace('"@@RAW@@"', value[1])
    return json.dumps(body_with(path, value))


def _duplicated(path: str) -> tuple[str, str]:
    """A body whose innermost object gives the field's key twice, and the path the error names."""
    named = path.removesuffix("[0]")
    key = named.rsplit(".", 1)[-1].split("[")[0]
    text = json.dumps(body_with(named, "@@FIRST@@"))
    return text.replace('"@@FIRST@@"', f'"1", "{key}": "2"'), named


def _named(response, path: str, batch: bool) -> list[str]:
    """The messages naming `path` (a batch item's are in its result; the rest of a batch is 200)."""
    body = response.json()
    if batch and path.startswith("coups[0]."):
        assert response.status_code == 200, body
        (result,) = body["results"]
        assert result["status"] == "invalid", result
        return result["errors"].get(path.removeprefix("coups[0]."), [])
    assert 400 <= response.status_code < 500, (response.status_code, body)
    return body["errors"].get(path, [])


def test_every_class_of_bad_input_to_every_field_is_a_4xx_naming_it_and_writes_nothing():
    floor = build_floor()
    checked = 0
    for template, operation in operations("post"):
        body = request_body(operation)
        if body is None:
            continue
        url, batch = floor.fill(template), template == BATCH
        before = rows()
        for path, schema in leaf_fields(body):
            cases = [(what, _raw_body(path, value), path) for what, value in CLASSES[_kind(schema)]]
            if schema.get("type") == "string":
                cases.append(("1 MB", json.dumps(body_with(path, HUGE)), path))
            text, named = _duplicated(path)
            cases.append(("duplicate key", text, named))
            for what, raw, where in cases:
                response = floor.client.generic("POST", url, raw, content_type="application/json")
                messages = _named(response, where, batch and what != "duplicate key")
                assert messages, (template, path, what, response.status_code, response.content[:400])
                assert all(len(message) <= MAX_MESSAGE + 40 for message in messages), (template, path, what)
                assert len(response.content) < 20_000, (template, path, what)
                checked += 1
        assert rows() == before, template
    assert checked > 300


def test_a_key_given_twice_is_refused_naming_its_path_and_nothing_is_written(device, shoe):
    before = (Coup.objects.count(), Wager.objects.count())
    text = json.dumps(coup_body(1)).replace('"amount": "100.00"', '"amount": "10.00", "amount": "1000.00"', 1)
    response = device.generic("POST", f"/api/v1/shoes/{shoe.pk}/coups/", text, content_type="application/json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"] == {
        "wagers[0].amount": ["This key is given more than once in its object; send each field once."]
    }
    assert (Coup.objects.count(), Wager.objects.count()) == before


@pytest.mark.parametrize(
    "query",
    ["page_size=1e400", "page=+5", "page=%205", "page_size=0", "page=0", "page_size=1001", "page=1&page=2"],
)
def test_paging_values_are_read_strictly(device, shoe, query):
    name = query.split("=", 1)[0]
    response = device.get(f"/api/v1/shoes/{shoe.pk}/coups/?{query}")
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == [name]


def test_paging_values_in_range_are_taken(device, shoe):
    response = device.get(f"/api/v1/shoes/{shoe.pk}/coups/?page=1&page_size=1000")
    assert response.status_code == 200, response.content


def test_a_commission_box_shoe_closes_with_its_box_count(device, shoe):
    before = rows()
    response = device.post(f"/api/v1/shoes/{shoe.pk}/close/", {"commission_box": []}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["commission_box"]
    assert rows() == before


def test_money_takes_at_most_the_currency_s_decimals_and_says_so(pit_boss, table):
    from pit.accounts.services import user_create_with_role

    user_create_with_role(username="dana", password="a-long-password-123", role="pit boss")
    body = {"gaming_day": "2026-11-20", "kind": "opener", "chips": {"25.005": 1}, "dealer": "dana", "pit_boss": "boss"}
    response = pit_boss.post("/api/v1/accounting/tables/BB1/inventory/", body, format="json")
    assert response.status_code == 400, response.content
    (message,) = response.json()["errors"]["chips.25.005"]
    assert f"at most 2 ({table.currency})" in message
