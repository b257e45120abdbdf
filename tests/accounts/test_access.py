"""Access hardening: failed API authentications throttled per address and key prefix, hashed and
expiring staff tokens, admin logins locked out (django-axes), the idle session timeout, and one log
line per 401/403."""

import datetime as dt
import io
import logging

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from pit.accounts.access import LAST_ACTIVITY
from pit.accounts.models import StaffToken
from pit.accounts.services import (
    device_create,
    device_key_hash,
    staff_token_authenticate,
    staff_token_create,
    staff_token_revoke,
    user_create_with_role,
)
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-phrase-0123"


@pytest.fixture
def table():
    return factories.table("BB1")


@pytest.fixture
def device_key(table):
    return device_create(table=table, name="shoe reader")[1]


@pytest.fixture
def boss():
    return user_create_with_role(username="boss", password=PASSWORD, role="pit boss")


def api_get(key: str, address: str = "10.0.0.1", scheme: str = "Api-Key"):
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    return client.get("/api/v1/tables/BB1/")


# ---------------------------------------------------------------------------------------- throttle


@override_settings(PIT_API_AUTH_FAILURE_LIMIT=3, PIT_API_AUTH_FAILURE_WINDOW=120)
def test_ten_wrong_keys_from_a_floor_nat_refuse_no_device_behind_it(table):
    """The fault: ten wrong keys from one address gave every device at that address 429 for five
    minutes. Wrong secrets of issued prefixes count against those prefixes, not the address."""
    devices = [device_create(table=table, name=f"terminal {n}")[1] for n in range(12)]
    for n in range(10):
        prefix = devices[n % 2].split(".")[0]
        assert api_get(f"{prefix}.wrong{n}", address="10.0.0.1").status_code in (401, 429)
    assert [api_get(key, address="10.0.0.1").status_code for key in devices] == [200] * 12


@override_settings(PIT_API_AUTH_FAILURE_LIMIT=3, PIT_API_AUTH_FAILURE_WINDOW=120)
def test_a_prefix_past_its_limit_refuses_wrong_keys_with_429_but_never_its_own_right_key(device_key):
    prefix = device_key.split(".")[0]
    for n in range(3):
        assert api_get(f"{prefix}.guess{n}", address=f"10.1.0.{n}").status_code == 401
    refused = api_get(f"{prefix}.guess9", address="10.2.0.1")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 121
    assert refused.json()["code"] == "throttled"
    assert api_get(device_key, address="10.2.0.1").status_code == 200  # a valid key: never refused
    other_key = device_create(table=factories.table("BB2"), name="terminal")[1]
    assert api_get(other_key, address="10.2.0.1").status_code == 403  # its own prefix: authenticated


@override_settings(PIT_API_AUTH_FAILURE_LIMIT=3, PIT_API_AUTH_ADDRESS_FAILURE_LIMIT=4, PIT_API_AUTH_FAILURE_WINDOW=120)
def test_keys_with_no_issued_prefix_count_against_the_address_and_a_valid_key_still_passes(device_key):
    for key in ("nonsense", "0000aaaa.nope", "", "0000bbbb.nope"):
        assert api_get(key, address="10.3.0.1").status_code == 401
    refused = api_get("0000cccc.nope", address="10.3.0.1")
    assert refused.status_code == 429
    assert "without a known key" in refused.json()["message"]
    assert api_get("0000cccc.nope", address="10.3.0.2").status_code == 401  # another address
    assert api_get(device_key, address="10.3.0.1").status_code == 200


def test_the_address_limit_lets_a_floor_nat_of_200_tables_keep_working(settings):
    """Each of 200 tables behind one address sending a made-up key once and again within the window
    is under the per-address limit; the issued prefixes' limit is per device."""
    assert settings.PIT_API_AUTH_ADDRESS_FAILURE_LIMIT >= 200 * 2
    assert settings.PIT_API_AUTH_FAILURE_LIMIT == 10


@override_settings(PIT_API_AUTH_FAILURE_LIMIT=3)
def test_successes_do_not_count_and_staff_tokens_are_throttled_too(device_key, boss):
    for _ in range(5):
        assert api_get(device_key).status_code == 200
    token = staff_token_create(user=boss)[1]
    prefix = token.split(".")[0]
    for _ in range(3):
        assert api_get(f"{prefix}.nope", address="10.9.9.9", scheme="Token").status_code == 401
    assert api_get(f"{prefix}.nope", address="10.9.9.8", scheme="Token").status_code == 429
    assert api_get(token, address="10.9.9.9", scheme="Token").status_code == 200


@override_settings(PIT_TRUSTED_PROXIES=1, PIT_API_AUTH_ADDRESS_FAILURE_LIMIT=2)
def test_behind_a_proxy_the_address_it_saw_counts_not_what_the_client_claims(device_key):
    for claimed in ("1.1.1.1", "2.2.2.2"):
        client = APIClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"{claimed}, 10.5.5.5")
        client.credentials(HTTP_AUTHORIZATION="Api-Key 00000000.bad")
        assert client.get("/api/v1/tables/BB1/").status_code == 401
    client = APIClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="3.3.3.3, 10.5.5.5")
    client.credentials(HTTP_AUTHORIZATION="Api-Key 00000001.bad")
    assert client.get("/api/v1/tables/BB1/").status_code == 429
    client = APIClient(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="10.6.6.6")
    client.credentials(HTTP_AUTHORIZATION="Api-Key 00000001.bad")
    assert client.get("/api/v1/tables/BB1/").status_code == 401


# ---------------------------------------------------------------------------------------- staff tokens


def test_a_staff_token_is_stored_hashed_and_expires(boss, table):
    token, key = staff_token_create(user=boss, name="script", days=2)
    stored = StaffToken.objects.filter(pk=token.pk).values_list("key_prefix", "key_hash").get()
    assert stored == (key.split(".")[0], device_key_hash(key))
    assert key.split(".")[1] not in str(StaffToken.objects.filter(pk=token.pk).values().get())
    assert token.expires_at - token.created_at == pytest.approx(dt.timedelta(days=2), abs=dt.timedelta(seconds=1))
    assert api_get(key, scheme="Token").status_code == 200
    now = timezone.now()
    StaffToken.objects.filter(pk=token.pk).update(
        created_at=now - dt.timedelta(days=2), expires_at=now - dt.timedelta(seconds=1)
    )
    response = api_get(key, scheme="Token")
    assert (response.status_code, response.json()["message"]) == (401, "The token is unknown, expired or revoked.")


def test_a_revoked_token_or_an_inactive_user_is_refused(boss):
    token, key = staff_token_create(user=boss)
    assert staff_token_authenticate(key=key) == token
    get_user_model().objects.filter(pk=boss.pk).update(is_active=False)
    assert staff_token_authenticate(key=key) is None
    get_user_model().objects.filter(pk=boss.pk).update(is_active=True)
    staff_token_revoke(token=token, user=boss)
    assert staff_token_authenticate(key=key) is None
    assert StaffToken.objects.get(pk=token.pk).revoked_by == boss


@override_settings(PIT_STAFF_TOKEN_DAYS=30)
def test_a_token_is_valid_thirty_days_at_most(boss):
    with pytest.raises(ValidationError) as raised:
        staff_token_create(user=boss, days=31)
    assert raised.value.message_dict == {"days": ["A token is valid for 1 to 30 days."]}
    assert not StaffToken.objects.exists()


def test_create_staff_token_prints_the_token_once(boss):
    out, err = io.StringIO(), io.StringIO()
    call_command("create_staff_token", "boss", "--days", "7", "--name", "reports", stdout=out, stderr=err)
    key = out.getvalue().strip()
    token = StaffToken.objects.get()
    assert (token.user, token.name, token.key_prefix) == (boss, "reports", key.split(".")[0])
    assert "shown this once" in err.getvalue()
    assert token.audit_events.get().pgh_context == {"actor": "system", "command": "create_staff_token"}


# ---------------------------------------------------------------------------------------- admin logins


@override_settings(AXES_FAILURE_LIMIT=3)
def test_repeated_failed_admin_logins_lock_the_username_out_of_that_address(client, boss):
    url = reverse("admin:login")
    for _ in range(2):
        assert client.post(url, {"username": "boss", "password": "wrong"}, REMOTE_ADDR="10.0.0.7").status_code == 200
    locked = client.post(url, {"username": "boss", "password": "wrong"}, REMOTE_ADDR="10.0.0.7")
    assert locked.status_code == 429
    right = client.post(url, {"username": "boss", "password": PASSWORD}, REMOTE_ADDR="10.0.0.7")
    assert right.status_code == 429  # locked out: even the right password is not tried
    assert "_auth_user_id" not in client.session
    elsewhere = client.post(url, {"username": "boss", "password": PASSWORD, "next": "/admin/"}, REMOTE_ADDR="10.0.0.8")
    assert elsewhere.status_code == 302 and client.session["_auth_user_id"] == str(boss.pk)


def test_a_login_outside_a_request_is_not_counted(boss):
    from django.contrib.auth import authenticate

    assert authenticate(username="boss", password=PASSWORD) == boss


# ---------------------------------------------------------------------------------------- idle timeout


@override_settings(PIT_ADMIN_IDLE_TIMEOUT_MINUTES=30)
def test_an_idle_admin_session_is_signed_out(client, boss):
    client.force_login(boss)
    assert client.get(reverse("admin:index")).status_code == 200
    session = client.session
    session[LAST_ACTIVITY] -= 31 * 60
    session.save()
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    assert "_auth_user_id" not in client.session


@override_settings(PIT_ADMIN_IDLE_TIMEOUT_MINUTES=30)
def test_the_dashboard_refresh_is_not_activity_but_a_page_is(client, boss):
    client.force_login(boss)
    session = client.session
    session[LAST_ACTIVITY] -= 20 * 60
    session.save()
    before = client.session[LAST_ACTIVITY]
    assert client.get("/admin/pit/dashboard/data/").status_code == 200
    assert client.session[LAST_ACTIVITY] == before
    assert client.get(reverse("admin:index")).status_code == 200
    assert client.session[LAST_ACTIVITY] > before


# ---------------------------------------------------------------------------------------- 401 / 403 log


def access_lines(caplog):
    return [
        record
        for record in caplog.records
        if record.levelno >= logging.WARNING and record.name in ("pit.access", "django.request")
    ]


def test_every_401_and_403_is_logged_once_on_one_line_without_traceback(caplog, client, boss, table, device_key):
    caplog.set_level(logging.INFO)
    api_get("00000000.bad", address="10.3.3.3")
    client.force_login(boss)
    client.get(reverse("admin:auth_user_changelist"), REMOTE_ADDR="10.4.4.4")  # a pit boss may not
    other = device_create(table=factories.table("BB2"), name="terminal")[1]
    api_get(other, address="10.5.5.5")
    lines = access_lines(caplog)
    assert [(record.name, record.exc_info, "\n" in record.getMessage()) for record in lines] == [
        ("pit.access", None, False)
    ] * 3
    assert [record.getMessage() for record in lines] == [
        "access denied: 401 GET /api/v1/tables/BB1/ by anonymous from 10.3.3.3: The API key is unknown or revoked.",
        f"access denied: 403 GET /admin/auth/user/ by user {boss.pk} (boss) from 10.4.4.4: PermissionDenied",
        lines[2].getMessage(),
    ]
    assert lines[2].getMessage().startswith("access denied: 403 GET /api/v1/tables/BB1/ by device ")
    assert lines[2].getMessage().endswith("from 10.5.5.5: This device is registered for table BB2, not BB1.")
