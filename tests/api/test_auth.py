"""Who may call the API: device keys (hashed, scoped to one table, revocable), staff tokens and
sessions with the admin's role rules."""

import hashlib
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from pit.accounts.models import Device
from pit.accounts.services import device_authenticate, device_create, device_revoke, staff_token_create
from tests.api.conftest import counts, coup_body

pytestmark = pytest.mark.django_db


def test_a_device_key_is_shown_once_and_stored_only_as_its_sha256(table):
    device, key = device_create(table=table, name="shoe reader")
    prefix, _, secret = key.partition(".")
    assert device.key_prefix == prefix and len(prefix) == 8 and len(secret) >= 40
    assert device.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in str(Device.objects.filter(pk=device.pk).values().get())
    assert device_authenticate(key=key) == device
    assert device_authenticate(key=prefix + ".wrong") is None
    assert device_authenticate(key="garbage") is None


def test_create_device_key_command_prints_the_key(table):
    out, err = io.StringIO(), io.StringIO()
    call_command("create_device_key", "--table", "BB1", "--name", "terminal 3", stdout=out, stderr=err)
    key = out.getvalue().strip()
    device = Device.objects.get(name="terminal 3")
    assert device.table == table and device_authenticate(key=key) == device
    assert "Api-Key" in err.getvalue()
    with pytest.raises(CommandError, match="no table 'XX9'"):
        call_command("create_device_key", "--table", "XX9", "--name", "x", stdout=out, stderr=err)
    with pytest.raises(CommandError, match="already"):
        call_command("create_device_key", "--table", "BB1", "--name", "terminal 3", stdout=out, stderr=err)


def test_no_credentials_is_401_with_the_api_key_challenge(anonymous, table):
    response = anonymous.get("/api/v1/tables/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Api-Key realm="pit"'
    assert response.json() == {
        "status": 401,
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
        "errors": {},
        "details": {},
    }


@pytest.mark.parametrize(
    "header",
    ["Api-Key 0000aaaa.unknown", "Api-Key nodot", "Api-Key", "Api-Key a b", "Token 0123456789abcdef"],
)
def test_unknown_or_malformed_credentials_are_401(table, shoe, header):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header)
    before = counts()
    response = client.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert counts() == before


def test_a_revoked_key_is_401_at_once(device, shoe):
    assert device.get("/api/v1/tables/BB1/").status_code == 200
    device_revoke(device=device.device)
    before = counts()
    response = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json")
    assert response.status_code == 401
    assert response.json()["message"] == "The API key is unknown or revoked."
    assert counts() == before


def test_a_device_writes_and_reads_only_its_own_table(device, other_table):
    from tests import factories

    other_shoe = factories.shoe(other_table)
    before = counts()
    for method, url, body in [
        ("post", f"/api/v1/shoes/{other_shoe.pk}/coups/", coup_body()),
        ("post", f"/api/v1/shoes/{other_shoe.pk}/coups/batch/", {"coups": [coup_body()]}),
        ("post", "/api/v1/tables/BB2/open/", {}),
        ("post", "/api/v1/tables/BB2/close/", {}),
        ("post", "/api/v1/tables/BB2/shoes/", {"cut_card_position": 300}),
        ("post", f"/api/v1/shoes/{other_shoe.pk}/close/", {"commission_box": []}),
        ("post", f"/api/v1/shoes/{other_shoe.pk}/seats/1/collect/", {}),
        ("get", f"/api/v1/shoes/{other_shoe.pk}/", None),
        ("get", f"/api/v1/shoes/{other_shoe.pk}/coups/", None),
        ("get", f"/api/v1/shoes/{other_shoe.pk}/reconciliation/", None),
        ("get", "/api/v1/tables/BB2/", None),
    ]:
        response = getattr(device, method)(url, body, format="json")
        assert response.status_code == 403, (url, response.content)
        assert response.json()["message"] == "This device is registered for table BB1, not BB2."
    assert counts() == before
    assert [t["code"] for t in device.get("/api/v1/tables/").json()["results"]] == ["BB1"]


def test_a_device_cannot_read_violations_or_review_them(device, table):
    assert device.get("/api/v1/violations/").status_code == 403
    response = device.post("/api/v1/violations/1/acknowledge/", {"note": "x"}, format="json")
    assert response.status_code == 403
    assert response.json()["message"] == "Floor devices cannot write to this resource."


def test_staff_read_with_a_token_or_their_session(pit_boss, accountant, auditor, table, shoe):
    for client in (pit_boss, accountant, auditor):
        assert client.get("/api/v1/tables/").json()["count"] == 1
        assert client.get(f"/api/v1/shoes/{shoe.pk}/").status_code == 200
        assert client.get("/api/v1/violations/").status_code == 200
    session = APIClient()
    session.force_login(pit_boss.user)
    assert session.get("/api/v1/tables/BB1/").status_code == 200


def test_staff_without_a_role_are_refused_and_staff_do_not_write_floor_records(table, shoe, pit_boss):
    nobody = get_user_model().objects.create_user("nobody", password="a-long-password-123", is_staff=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {staff_token_create(user=nobody)[1]}")
    response = client.get("/api/v1/tables/")
    assert response.status_code == 403
    assert response.json()["message"] == "Your role lacks the permission tables.view_table."
    before = counts()
    response = pit_boss.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json")
    assert response.status_code == 403
    assert response.json()["message"] == "Your role lacks the permission shoes.add_coup."
    assert counts() == before


def test_a_superuser_may_write_and_is_recorded_as_the_writer(table, shoe):
    admin = get_user_model().objects.create_superuser("root", password="a-long-password-123")
    client = APIClient()
    client.force_authenticate(admin)
    response = client.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json")
    assert response.status_code == 201
    assert response.json()["recorded_by"] == "user root"


def test_a_method_the_resource_does_not_have_is_405_in_the_envelope(device, shoe):
    response = device.get(f"/api/v1/shoes/{shoe.pk}/close/")
    assert response.status_code == 405
    assert response.json() == {
        "status": 405,
        "code": "method_not_allowed",
        "message": 'Method "GET" not allowed.',
        "errors": {},
        "details": {},
    }


def test_a_device_cannot_read_reports(device, accountant):
    response = device.get("/api/v1/reports/commission/?from=2026-11-01&to=2026-11-02")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
