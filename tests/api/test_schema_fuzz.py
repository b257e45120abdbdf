"""schemathesis against the API's own schema, in process (WSGI): no answer is a 5xx, and every
answer (status, content type, body) is one the schema documents. Examples are few so it is fast;
it runs with a device key (every operation) and an accountant's token (the reads, reports included)."""

import contextlib

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests import factories
from tests.api.conftest import coup_body

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


# Loaded at collection through the WSGI app itself: the schema view needs no database.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", get_wsgi_application())


@contextlib.contextmanager
def keep_connection():
    """As Django's test client does: a request must not close the test's database connection (which
    holds the test's transaction). Django's test client reconnects the handlers after each of its own
    requests, so this wraps each call rather than the test."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def floor(device, accountant, table):
    """A table with a dealing shoe and a few coups, so that fuzzed ids 1, 2 ... hit real rows."""
    shoe = factories.shoe(table)
    for number in (1, 2, 3):
        device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(number), format="json")
    return {
        "device": {"Authorization": f"Api-Key {device.key}"},
        "staff": {"Authorization": accountant._credentials["HTTP_AUTHORIZATION"]},
    }


@schema.parametrize()
@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_no_server_error_and_every_answer_matches_the_schema(case, floor):
    with keep_connection():
        case.call_and_validate(headers=floor["device"], checks=CHECKS)
        if case.method == "GET":
            case.call_and_validate(headers=floor["staff"], checks=CHECKS)
