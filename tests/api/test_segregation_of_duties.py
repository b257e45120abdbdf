"""Segregation of duties by person over the API: a slip's request, issue and receipt by three
different people; a second signer authenticates (their password) unless they are the caller; each
refusal is a 400 naming the field and the rule, with nothing written; off by setting."""

import pytest

from pit.accounting.models import InventoryCount, SlipStep
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from tests.api.conftest import _staff_client

pytestmark = pytest.mark.django_db

DAY = "2026-11-20"
FILL = {"25.00": 40}
PASSWORD = "a-long-password-123"


@pytest.fixture
def people(table):
    """Boss requests at BB1; Cleo is at the cage with a role that may issue and receive both."""
    boss = _staff_client(Role.PIT_BOSS.value, "boss")
    user_create_with_role(username="dana", password=PASSWORD, role=Role.PIT_BOSS.value)
    body = {"kind": "fill", "number": "F-1", "table": "BB1", "gaming_day": DAY, "reason": "low", "chips": FILL}
    assert boss.post("/api/v1/accounting/slips/", body, format="json").status_code == 201
    return boss


def issue(client, **body):
    return client.post("/api/v1/accounting/slips/fill/F-1/issue/", {"chips": FILL, **body}, format="json")


def receive(client, **body):
    return client.post("/api/v1/accounting/slips/fill/F-1/receive/", {"chips": FILL, **body}, format="json")


def test_who_requested_a_fill_does_not_receive_it(people):
    assert issue(_staff_client(Role.CAGE.value, "cleo")).status_code == 201
    response = receive(people)
    assert response.status_code == 400
    (message,) = response.json()["errors"]["signed_by"]
    assert message == (
        "Segregation of duties (PIT_SEGREGATION_OF_DUTIES): boss requested fill slip F-1; another person "
        "signs it as received."
    )
    assert list(SlipStep.objects.values_list("step", flat=True)) == ["issued"]


def test_a_signer_named_by_the_caller_authenticates(people):
    assert issue(_staff_client(Role.CAGE.value, "cleo")).status_code == 201
    refused = receive(people, signed_by="dana")
    assert refused.status_code == 400 and "dana signs as received" in refused.json()["errors"]["signed_by_password"][0]
    wrong = receive(people, signed_by="dana", signed_by_password="not-her-password")
    assert wrong.status_code == 400 and "not dana's password" in wrong.json()["errors"]["signed_by_password"][0]
    assert list(SlipStep.objects.values_list("step", flat=True)) == ["issued"]
    signed = receive(people, signed_by="dana", signed_by_password=PASSWORD)
    assert signed.status_code == 201, signed.json()
    assert list(SlipStep.objects.values_list("step", "signed_by__username")) == [
        ("issued", "cleo"),
        ("received", "dana"),
    ]


def test_the_tray_counts_dealer_signs_with_their_password(people):
    body = {"gaming_day": DAY, "kind": "opener", "chips": {"25.00": 4}, "dealer": "dana", "pit_boss": "boss"}
    alone = people.post("/api/v1/accounting/tables/BB1/inventory/", body, format="json")
    assert alone.status_code == 400
    assert alone.json()["errors"]["dealer_password"] == [
        "Segregation of duties (PIT_SEGREGATION_OF_DUTIES): dana signs as the dealer; they enter their "
        "password here or sign from their own login."
    ]
    assert not InventoryCount.objects.exists()
    body["dealer_password"] = PASSWORD
    assert people.post("/api/v1/accounting/tables/BB1/inventory/", body, format="json").status_code == 201


def test_a_jurisdiction_may_let_one_person_do_several_steps(people, settings):
    settings.PIT_SEGREGATION_OF_DUTIES = False
    assert issue(_staff_client(Role.CAGE.value, "cleo")).status_code == 201
    assert receive(people).status_code == 201
    assert SlipStep.objects.count() == 2
