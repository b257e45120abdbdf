"""Malformed input by class, over every field that parses a number, a date or money (issue 11 item 7):
numbers, seats, money and times are ASCII only (a 400 naming the field, never a 500, nothing stored);
malformed JSON, huge numbers, deep nesting and wrong types are 400s; a body over the limit is a 413
naming the limit in bytes and in coups, and the largest batch with realistic wagers fits in it."""

import json

import pytest
from django.conf import settings
from django.test import override_settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from pit.api.parsers import MAX_BATCH_COUPS
from pit.shoes.models import Coup
from tests.api.conftest import counts, coup_body, wagers7

pytestmark = pytest.mark.django_db

# Digits and numerals of many scripts and forms, each of which Python's int(), Decimal() or Django's
# date parser reads as a number, or chokes on.
UNICODE_NUMERALS = [
    "²",  # superscript two (isdigit, int() fails)
    "¹",  # superscript one
    "₃",  # subscript three
    "٣",  # Arabic-Indic three (int() reads 3)
    "۳",  # Extended Arabic-Indic three
    "३",  # Devanagari three
    "৩",  # Bengali three
    "๓",  # Thai three
    "３",  # fullwidth three
    "１０",  # fullwidth ten
    "𝟑",  # mathematical bold three
    "③",  # circled three
    "Ⅲ",  # Roman numeral three
    "½",  # vulgar fraction
    "三",  # CJK numeral three
    "1٣",  # ASCII and Arabic-Indic mixed
]


def _post(client, path, body):
    return client.post(path, body, format="json")


def _coup_with(field, value):
    body = coup_body(dealt_at="2026-11-29T21:14:05Z", wagers=[dict(w, paid="0.00") for w in wagers7()])
    if field.startswith("wagers[0]."):
        body["wagers"][0][field.split(".", 1)[1]] = value
    else:
        body[field] = value
    return body


def _assert_refused(response, field, before):
    assert response.status_code == 400, response.content
    payload = response.json()
    assert payload["code"] == "invalid"
    assert field in payload["errors"], payload
    assert counts() == before


def _numbers_as(numeral):
    """(field, value) for each number, seat, money and time field of a coup, written with `numeral`."""
    return [
        ("number", numeral),
        ("wagers[0].seat", numeral),
        ("wagers[0].amount", f"{numeral}.00"),
        ("wagers[0].amount", numeral),
        ("wagers[0].paid", numeral),
        ("dealt_at", f"2026-11-2{numeral}T21:14:05Z"),
    ]


@pytest.mark.parametrize("numeral", UNICODE_NUMERALS)
def test_every_number_of_a_coup_in_other_digits_is_a_400_naming_the_field(device, shoe, numeral):
    for field, value in _numbers_as(numeral):
        before = counts()
        _assert_refused(_post(device, f"/api/v1/shoes/{shoe.pk}/coups/", _coup_with(field, value)), field, before)


@pytest.mark.parametrize("numeral", ["²", "٣", "１０", "１０.００"])
def test_in_a_batch_other_digits_make_the_item_invalid_and_the_rest_is_recorded(device, shoe, numeral):
    batch = {"coups": [coup_body(1), _coup_with("number", numeral), _coup_with("wagers[0].seat", numeral)]}
    response = _post(device, f"/api/v1/shoes/{shoe.pk}/coups/batch/", batch)
    assert response.status_code == 200
    results = response.json()["results"]
    assert [(r["status"], sorted(r["errors"])) for r in results] == [
        ("created", []),
        ("invalid", ["number"]),
        ("invalid", ["wagers[0].seat"]),
    ]
    assert list(Coup.objects.values_list("number", flat=True)) == [1]


@pytest.mark.parametrize("numeral", ["²", "٣", "１０", "Ⅲ"])
def test_every_other_number_field_of_the_api_in_other_digits_is_a_400(device, table, shoe, numeral):
    shoe_id = shoe.pk
    cases = [
        ("/api/v1/tables/BB1/open/", {"at": f"2026-11-2{numeral}T06:00:00Z"}, "at"),
        ("/api/v1/tables/BB1/shoes/", {"cut_card_position": numeral}, "cut_card_position"),
        ("/api/v1/tables/BB1/shoes/", {"cut_card_position": 300, "decks": numeral}, "decks"),
        (
            "/api/v1/tables/BB1/shoes/",
            {"cut_card_position": 300, "shuffled_at": f"202{numeral}-11-29T06:00:00Z"},
            "shuffled_at",
        ),
        (
            f"/api/v1/shoes/{shoe_id}/close/",
            {"commission_box": [{"seat": numeral, "counted": "1.00"}]},
            "commission_box[0].seat",
        ),
        (
            f"/api/v1/shoes/{shoe_id}/close/",
            {"commission_box": [{"seat": 1, "counted": f"{numeral}.00"}]},
            "commission_box[0].counted",
        ),
        (
            f"/api/v1/shoes/{shoe_id}/close/",
            {"commission_box": [{"seat": 1, "counted": "0.00"}], "closed_at": f"2026-11-2{numeral}T06:00:00Z"},
            "closed_at",
        ),
    ]
    for path, body, field in cases:
        before = counts()
        _assert_refused(_post(device, path, body), field, before)


@pytest.mark.parametrize("numeral", ["²", "٣", "１０", "三"])
def test_query_parameters_in_other_digits_are_a_400_naming_the_parameter(device, pit_boss, shoe, numeral):
    for client, path, name in [
        (device, f"/api/v1/shoes/{shoe.pk}/coups/?page={numeral}", "page"),
        (device, f"/api/v1/shoes/{shoe.pk}/coups/?page_size={numeral}", "page_size"),
        (device, f"/api/v1/paytables/{shoe.table.paytable_id}/odds/?decks={numeral}", "decks"),
        (pit_boss, f"/api/v1/violations/?gaming_day=2026-11-2{numeral}", "gaming_day"),
        (pit_boss, f"/api/v1/reports/violations/?from=2026-11-2{numeral}&to=2026-11-29", "from"),
    ]:
        response = client.get(path)
        assert response.status_code == 400, (path, response.content)
        assert response.json()["errors"] == {
            name: [
                f"Numbers are ASCII digits (0-9) only; {path.split('=', 1)[1].split('&')[0]!r} holds other characters."
            ]
        }


@hypothesis_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    numeral=st.text(
        alphabet=st.characters(categories=["Nd", "No", "Nl"]).filter(lambda char: not char.isascii()),
        min_size=1,
        max_size=3,
    ),
    ascii_part=st.sampled_from(["", "1", "10", "25."]),
)
def test_any_non_ascii_numeral_in_a_number_or_money_field_is_a_400(device, shoe, numeral, ascii_part):
    before = counts()
    for field, value in [
        ("number", ascii_part + numeral),
        ("wagers[0].amount", ascii_part + numeral),
        ("wagers[0].seat", numeral + ascii_part),
    ]:
        _assert_refused(_post(device, f"/api/v1/shoes/{shoe.pk}/coups/", _coup_with(field, value)), field, before)


@pytest.mark.parametrize(
    ("raw", "message_part"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ('{"number": 1' + "0" * 5000 + "}", "JSON parse error"),
        ('{"number": NaN}', "JSON parse error"),
        ('{"number": Infinity}', "JSON parse error"),
        ('{"number": 1, "player": ["5H", "KD"', "JSON parse error"),
        ("\ufeff{}", "JSON parse error"),
    ],
    ids=["deep", "huge_int", "nan", "infinity", "truncated", "bom"],
)
def test_malformed_json_is_a_parse_error_400(device, shoe, raw, message_part):
    before = counts()
    response = device.generic("POST", f"/api/v1/shoes/{shoe.pk}/coups/", raw, content_type="application/json")
    assert response.status_code == 400
    payload = response.json()
    assert payload["code"] == "parse_error"
    assert message_part in payload["errors"]["body"][0]
    assert counts() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"number": 1.5, "player": ["5H", "KD"], "banker": ["6S", "TD"]}, "number"),
        ({"number": 10**40, "player": ["5H", "KD"], "banker": ["6S", "TD"]}, "number"),
        ({"number": True, "player": ["5H", "KD"], "banker": ["6S", "TD"]}, "number"),
        ({"number": 1, "player": "5H KD", "banker": ["6S", "TD"]}, "player"),
        ({"number": 1, "player": [5, 10], "banker": ["6S", "TD"]}, "player[0]"),
        ({"number": 1, "player": ["5H", "KD"], "banker": ["6S", "TD"], "wagers": {"seat": 1}}, "wagers"),
        ({"number": 1, "player": ["5H", "KD"], "banker": ["6S", "TD"], "wagers": [[]]}, "wagers[0]"),
        ({"number": 1, "player": ["5H", "KD"], "banker": ["6S", "TD"], "dealt_at": 1700000000}, "dealt_at"),
        (
            {"number": 1, "player": ["5H", "KD"], "banker": ["6S", "TD"], "reported_winner": ["player"]},
            "reported_winner",
        ),
        (
            {
                "number": 1,
                "player": ["5H", "KD"],
                "banker": ["6S", "TD"],
                "wagers": [{"seat": 1, "bet": "player", "amount": "9" * 40}],
            },
            "wagers[0].amount",
        ),
        ("just a string", "body"),
        (None, "body"),
    ],
)
def test_wrong_types_and_huge_numbers_are_a_400_naming_the_field(device, shoe, body, field):
    before = counts()
    raw = json.dumps(body)
    response = device.generic("POST", f"/api/v1/shoes/{shoe.pk}/coups/", raw, content_type="application/json")
    _assert_refused(response, field, before)


def test_a_json_number_too_large_for_a_float_is_a_400_naming_the_field(device, shoe):
    before = counts()
    raw = '{"number": 1e400, "player": ["5H", "KD"], "banker": ["6S", "TD"]}'
    response = device.generic("POST", f"/api/v1/shoes/{shoe.pk}/coups/", raw, content_type="application/json")
    _assert_refused(response, "number", before)


def _largest_batch() -> bytes:
    """The documented maximum: MAX_BATCH_COUPS coups, 7 wagers each, every field given with its longest
    realistic value, pretty-printed as a careless client would send it."""
    wagers = [
        {"seat": seat, "bet": bet, "amount": "10000.00", "paid": "10000.00"}
        for seat, bet in [
            (1, "player"),
            (2, "banker"),
            (3, "tie"),
            (5, "player_pair"),
            (6, "banker_pair"),
            (7, "player"),
            (8, "banker"),
        ]
    ]
    coups = [
        {
            "number": number,
            "player": ["10H", "10D", "10C"],
            "banker": ["10S", "10H", "10D"],
            "dealt_at": "2026-11-29T21:14:05.123456+00:00",
            "reported_winner": "banker",
            "wagers": wagers,
        }
        for number in range(1, MAX_BATCH_COUPS + 1)
    ]
    return json.dumps({"coups": coups}, indent=2).encode()


@pytest.mark.slow
def test_the_largest_batch_with_realistic_wagers_fits_the_body_limit(device, shoe):
    body = _largest_batch()
    assert len(body) <= settings.PIT_API_MAX_BODY_BYTES == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = device.generic("POST", f"/api/v1/shoes/{shoe.pk}/coups/batch/", body, content_type="application/json")
    assert response.status_code == 200, response.content[:500]
    assert response.json()["summary"]["invalid"] == 0
    assert Coup.objects.count() == MAX_BATCH_COUPS


def test_one_coup_more_than_the_batch_limit_is_a_400_naming_it(device, shoe):
    before = counts()
    body = {"coups": [coup_body(1, wagers=[])] * (MAX_BATCH_COUPS + 1)}
    response = _post(device, f"/api/v1/shoes/{shoe.pk}/coups/batch/", body)
    assert response.status_code == 400
    assert response.json()["errors"] == {"coups": [f"Send 1 to {MAX_BATCH_COUPS} coups in one batch."]}
    assert counts() == before


def test_a_body_over_the_limit_is_a_413_naming_the_limit_in_bytes_and_coups(device, shoe):
    limit = settings.PIT_API_MAX_BODY_BYTES
    before = counts()
    raw = b'{"coups": ["' + b"x" * limit + b'"]}'
    for path in (f"/api/v1/shoes/{shoe.pk}/coups/batch/", f"/api/v1/shoes/{shoe.pk}/coups/"):
        for headers in ({}, {"HTTP_IDEMPOTENCY_KEY": "big-1"}):
            response = device.generic("POST", path, raw, content_type="application/json", **headers)
            assert response.status_code == 413, response.content[:300]
            payload = response.json()
            assert payload["code"] == "too_large"
            assert f"at most {limit} bytes a request" in payload["message"]
            assert f"a batch at most {MAX_BATCH_COUPS} coups" in payload["message"]
    assert counts() == before


@override_settings(PIT_API_MAX_BODY_BYTES=2000, DATA_UPLOAD_MAX_MEMORY_SIZE=2000)
def test_the_limit_is_the_setting(device, shoe):
    small = _post(device, f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(1, wagers=[]))
    assert small.status_code == 201
    response = _post(device, f"/api/v1/shoes/{shoe.pk}/coups/batch/", {"coups": [coup_body(n) for n in range(2, 9)]})
    assert response.status_code == 413
    assert "at most 2000 bytes a request" in response.json()["message"]
    assert Coup.objects.count() == 1


def test_a_coup_is_validated_without_a_copy_of_the_serializers_fields():
    """CoupInputSerializer checks a coup with `coup_values` and skips DRF's look for read-only fields
    with a default (a deep copy of every declared field per coup): there must be none to find, and
    no validator of the serializer's own."""
    from rest_framework.fields import empty

    from pit.api.resources.coups import CoupInputSerializer

    declared = CoupInputSerializer._declared_fields.values()
    assert not [field for field in declared if field.read_only and field.default is not empty]
    serializer = CoupInputSerializer(data=coup_body(1))
    assert serializer.validators == []
    assert serializer.is_valid(), serializer.errors
    assert "fields" not in serializer.__dict__
    assert serializer.validated_data["number"] == 1
    bad = CoupInputSerializer(data={**coup_body(1), "number": "x"})
    assert not bad.is_valid() and "number" in bad.errors
