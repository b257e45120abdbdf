"""Every request example in the schema is legal and rule-clean: posted as it is (to a fresh shoe, as a
floor device), it is accepted and no rule check finds anything; each documented answer example is
what the server answers (issue 17 items 1, 5)."""

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_schema_validator import OAS30Validator

from pit.api.examples import COMPONENT_EXAMPLES
from pit.api.resources.coups import COUP_EXAMPLE
from pit.compliance.models import RuleViolation
from tests import factories
from tests.api.conftest import _device_client

pytestmark = pytest.mark.django_db

# Answer fields that depend on the moment or the database, not on the example.
_VOLATILE = {
    "id",
    "shoe",
    "coup",
    "paytable",
    "recorded_by",
    "gaming_day",
    "dealt_at",
    "shuffled_at",
    "closed_at",
    "reconciled_at",
    "entry",
    "found_at",
}


def _schema():
    return SchemaGenerator().get_schema(request=None, public=True)


def _request_examples():
    schema = _schema()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {}).get("application/json", {})
            for name, example in content.get("examples", {}).items():
                found.append((path, method, name, example["value"]))
    return found


EXAMPLES = _request_examples()


def test_the_schema_has_request_examples_for_the_floor_writes():
    posted = {(path, name) for path, _, name, _ in EXAMPLES}
    assert {
        ("/api/v1/shoes/{shoe_id}/coups/", "ACoupWithThreeWagers"),
        ("/api/v1/shoes/{shoe_id}/coups/", "Two-cardNaturals,NoWagers"),
        ("/api/v1/shoes/{shoe_id}/coups/batch/", "TwoCoups"),
    } <= posted


def _strip(value):
    if isinstance(value, dict):
        return {key: _strip(item) for key, item in value.items() if key not in _VOLATILE}
    if isinstance(value, list):
        return [_strip(item) for item in value]
    return value


@pytest.mark.parametrize(("path", "method", "name", "value"), EXAMPLES, ids=[f"{p} {n}" for p, _, n, _ in EXAMPLES])
def test_each_request_example_is_accepted_with_no_violation(
    path, method, name, value, django_capture_on_commit_callbacks
):
    table = factories.table("BB1")
    device = _device_client(table)
    shoe = factories.shoe(table) if "{shoe_id}" in path or "{coup_id}" in path else None
    coup = None
    if "{coup_id}" in path:  # a correction or a void: of a Player natural whose Banker stake was misread
        with django_capture_on_commit_callbacks(execute=True):
            coup = factories.coup(
                shoe,
                1,
                ["9S", "KH"],
                ["7D", "KC"],
                wagers=[
                    factories.wager(1, "player", "100", paid="100"),
                    factories.wager(2, "banker", "250"),
                ],
            )
    url = (
        path.replace("{code}", "BB1")
        .replace("{shoe_id}", str(shoe.pk if shoe else 0))
        .replace("{coup_id}", str(coup.pk if coup else 0))
    )
    if url.endswith("/batch/"):
        url += "?answer=full"  # each coup in the answer, to check its violations
    with django_capture_on_commit_callbacks(execute=True):
        response = getattr(device, method)(url, value, format="json")
    assert response.status_code in (200, 201), response.content
    body = response.json()
    coups = [body] if "violations" in body else [r["coup"] for r in body.get("results", [])]
    for coup in coups:
        assert coup["violations"] == [], coup
    assert list(RuleViolation.objects.values_list("code", "message")) == []


def test_every_answer_object_has_an_example_that_its_schema_accepts():
    schema = _schema()
    components = schema["components"]["schemas"]
    answers = {name for name in components if not name.endswith(("Request", "Enum"))}
    missing = sorted(answers - set(COMPONENT_EXAMPLES))
    assert not missing, f"add an example of each to pit/api/examples.py COMPONENT_EXAMPLES: {missing}"
    for name in answers:
        assert components[name]["example"] == COMPONENT_EXAMPLES[name]
        validator = OAS30Validator({**components[name], "components": schema["components"]})
        errors = [error.message for error in validator.iter_errors(COMPONENT_EXAMPLES[name])]
        assert errors == [], (name, errors)


def test_the_coup_answer_example_is_what_the_server_answers_for_the_request_example(
    django_capture_on_commit_callbacks,
):
    table = factories.table("BB1")
    device = _device_client(table)
    shoe = factories.shoe(table)
    with django_capture_on_commit_callbacks(execute=True):
        answer = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", COUP_EXAMPLE, format="json").json()
    example = COMPONENT_EXAMPLES["Coup"]
    volatile = {"id", "shoe", "paytable", "recorded_by"}
    assert {k: v for k, v in answer.items() if k not in volatile} == {
        k: v for k, v in example.items() if k not in volatile
    }


def test_the_odds_and_house_edge_examples_are_the_engines():
    table = factories.table("BB1", preset="commission_box")
    device = _device_client(table)
    odds = device.get(f"/api/v1/paytables/{table.paytable_id}/odds/?decks=8").json()
    banker = next(bet for bet in odds["bets"] if bet["bet"] == "banker")
    assert banker == COMPONENT_EXAMPLES["BetOdds"]
    assert (odds["decks"], odds["cards"]) == (COMPONENT_EXAMPLES["Odds"]["decks"], COMPONENT_EXAMPLES["Odds"]["cards"])
    paytable = device.get("/api/v1/paytables/").json()["results"][0]
    example = COMPONENT_EXAMPLES["Paytable"]
    assert {bet: paytable["house_edges"][bet] for bet in example["house_edges"]} == example["house_edges"]
    assert {key: paytable["rules"][key] for key in example["rules"] if key != "bets"} == {
        key: value for key, value in example["rules"].items() if key != "bets"
    }
    assert {bet: paytable["rules"]["bets"][bet] for bet in example["rules"]["bets"]} == example["rules"]["bets"]
