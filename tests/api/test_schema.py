"""The OpenAPI schema: generated from the code, valid, documented (examples, errors, idempotency),
and served with its docs page."""

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_schema_is_valid_openapi_3(schema):
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")


def test_spectacular_validate_fail_on_warn_is_clean(tmp_path):
    """`manage.py spectacular --validate --fail-on-warn`, for the whole API (reports included)."""
    GENERATOR_STATS.reset()
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert not GENERATOR_STATS
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3")


def test_every_operation_documents_the_error_envelope_and_posts_the_idempotency_key(schema):
    paths = {path: ops for path, ops in schema["paths"].items() if not path.startswith("/api/v1/reports/")}
    assert set(paths) >= {
        "/api/v1/tables/",
        "/api/v1/tables/{code}/",
        "/api/v1/tables/{code}/open/",
        "/api/v1/tables/{code}/close/",
        "/api/v1/tables/{code}/shoes/",
        "/api/v1/shoes/{shoe_id}/",
        "/api/v1/shoes/{shoe_id}/coups/",
        "/api/v1/shoes/{shoe_id}/coups/batch/",
        "/api/v1/shoes/{shoe_id}/seats/{seat}/collect/",
        "/api/v1/shoes/{shoe_id}/close/",
        "/api/v1/shoes/{shoe_id}/reconciliation/",
        "/api/v1/coups/{coup_id}/",
        "/api/v1/violations/",
        "/api/v1/violations/{violation_id}/acknowledge/",
        "/api/v1/violations/{violation_id}/resolve/",
        "/api/v1/paytables/",
        "/api/v1/paytables/{paytable_id}/odds/",
    }
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method not in ("get", "post"):
                continue
            for code in ("400", "401", "403", "404"):
                assert operation["responses"][code]["content"]["application/json"]["schema"] == {
                    "$ref": "#/components/schemas/Error"
                }, (path, method, code)
            headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
            assert ("Idempotency-Key" in headers) == (method == "post"), (path, method)
            if method == "post":
                assert {"409", "415", "422"} <= set(operation["responses"])


def test_the_coup_post_has_examples_and_money_is_a_string(schema):
    operation = schema["paths"]["/api/v1/shoes/{shoe_id}/coups/"]["post"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert examples["ACoupWithThreeWagers"]["value"]["wagers"][0]["amount"] == "100.00"
    assert set(operation["responses"]) >= {"200", "201", "409"}
    amount = schema["components"]["schemas"]["WagerInputRequest"]["properties"]["amount"]
    assert amount == {  # exactly what the server takes: ASCII digits, no sign, at most 3 decimals
        "type": "string",
        "pattern": "^[0-9]{1,15}(\\.[0-9]{1,3})?$",
        "maxLength": 19,
        "example": "125.50",
        "description": amount["description"],
    }
    assert {"DeviceApiKey", "tokenAuth", "cookieAuth"} <= set(schema["components"]["securitySchemes"])
    assert "Idempotency-Key" in schema["info"]["description"]


def test_the_schema_and_docs_are_served_to_anyone(client):
    response = client.get("/api/v1/schema/?format=json")
    assert response.status_code == 200 and response.json()["info"]["title"] == "pit API"
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_an_unknown_api_path_is_a_404_in_the_envelope(client):
    response = client.get("/api/v1/shoes/abc/")
    assert response.status_code == 404
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "message": "There is no API resource at /api/v1/shoes/abc/.",
        "errors": {},
        "details": {},
    }


def test_a_path_with_a_newline_is_a_404_in_the_envelope_too(client):
    response = client.get("/api/v1/violations/a%0Ab/resolve/")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


# ------------------------------------------------------------------ issue 17 items 3-5
def _operations(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def test_request_bodies_refuse_unknown_fields_and_match_the_servers_rules(schema):
    components = schema["components"]["schemas"]
    requests = [name for name in components if name.endswith("Request")]
    assert requests and all(components[name]["additionalProperties"] is False for name in requests)
    winner = components["CoupInputRequest"]["properties"]["reported_winner"]
    assert winner["nullable"] is True and winner["allOf"] == [{"$ref": "#/components/schemas/WinnerEnum"}]
    assert "BlankEnum" not in components and "NullEnum" not in components
    assert components["WinnerEnum"]["enum"] == ["player", "banker", "tie"]
    from pit.api.errors import ERROR_CODES

    assert components["ErrorCodeEnum"]["enum"] == list(ERROR_CODES)
    assert {"invalid", "parse_error", "conflict", "too_large", "not_found", "server_error"} <= set(ERROR_CODES)
    assert components["Paytable"]["properties"]["rules"]["allOf"] == [{"$ref": "#/components/schemas/PaytableRules"}]
    for path, method, operation in _operations(schema):
        if method == "post":
            (key,) = [p for p in operation["parameters"] if p["name"] == "Idempotency-Key"]
            assert key["schema"] == {"type": "string", "minLength": 1, "maxLength": 255}, path


def test_security_lists_only_the_schemes_that_can_succeed(schema):
    for path, method, operation in _operations(schema):
        schemes = {name for requirement in operation["security"] for name in requirement}
        staff_only = path.startswith(
            (
                "/api/v1/violations/",
                "/api/v1/reports/",
                "/api/v1/dealers/",
                "/api/v1/accounting/days/{day}/win/",
                "/api/v1/patrons/",
                "/api/v1/progressives/coups/",
                "/api/v1/cash/days/",
                "/api/v1/cash/findings/",
            )
        )
        expected = {"tokenAuth", "cookieAuth"} | (set() if staff_only else {"DeviceApiKey"})
        assert schemes == expected, (path, method)
    assert "Api-Key" in schema["components"]["securitySchemes"]["DeviceApiKey"]["description"]


def test_response_headers_examples_and_no_placeholders(schema):
    for path, method, operation in _operations(schema):
        for code, response in operation["responses"].items():
            headers = response.get("headers", {})
            if method == "post" and code.startswith("2"):
                assert headers["Idempotent-Replayed"]["schema"] == {"type": "string", "enum": ["true"]}, path
            if code == "202":
                assert headers["Retry-After"]["schema"]["type"] == "integer"
    reconciliation = schema["paths"]["/api/v1/shoes/{shoe_id}/reconciliation/"]["get"]["responses"]
    assert reconciliation["202"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ReconciliationPending"
    }
    text = str(schema)
    assert "api.example.org" not in text
    for developer_words in ("data_function", "Refuses fields it does not know", "A response serializer"):
        assert developer_words not in text


def test_redoc_is_served_offline(client):
    response = client.get("/api/v1/redoc/")
    assert response.status_code == 200
    assert b"redoc" in response.content.lower() and b"/static/drf_spectacular_sidecar/redoc" in response.content


def test_a_409_that_says_when_to_retry_sends_retry_after_as_declared(schema):
    from pit.api.errors import ConflictError, exception_response

    response = exception_response(ConflictError("Still running.", details={"retry_after_seconds": 1}))
    assert (response.status_code, response["Retry-After"]) == (409, "1")
    coup_post = schema["paths"]["/api/v1/shoes/{shoe_id}/coups/"]["post"]["responses"]
    assert coup_post["409"]["headers"]["Retry-After"]["schema"] == {"type": "integer", "minimum": 0}
