"""Two-factor admin login (TOTP), device keys created from the admin and shown once, and users'
roles as a column and a field. The authenticator codes are computed here from the device's key."""

import hashlib
import time

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from pit.accounts.models import Device
from pit.accounts.services import device_authenticate, user_create_with_role
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-test-password-0123"
LOGIN = "/admin/login/"


@pytest.fixture(autouse=True)
def required_for_pit_bosses(settings):
    settings.PIT_TWO_FACTOR_ROLES = ["superuser", "pit boss"]
    settings.OTP_TOTP_THROTTLE_FACTOR = 0  # a wrong code does not delay the next one in these tests


def code(device: TOTPDevice, steps_ahead: int = 0) -> str:
    """The code an authenticator app shows for `device`, `steps_ahead` periods of 30 s from now (a
    code once used is not taken again: the next login uses the next period's, within the tolerance)."""
    device.refresh_from_db()
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + device.step * steps_ahead
    return f"{totp.token():0{device.digits}d}"


def login(client, username, token=""):
    return client.post(LOGIN, {"username": username, "password": PASSWORD, "otp_token": token, "next": "/admin/"})


def test_a_pit_boss_enrolls_then_signs_in_with_the_code(client):
    user_create_with_role(username="boss", password=PASSWORD, role="pit boss")
    assert login(client, "boss").status_code == 302  # no authenticator yet: the password lets them enroll
    assert client.get("/admin/")["Location"] == reverse("two_factor_enroll")
    assert client.get(reverse("admin:tables_table_changelist"))["Location"] == reverse("two_factor_enroll")
    page = client.get(reverse("two_factor_enroll"))
    assert page.status_code == 200 and "<svg" in page.content.decode()
    device = TOTPDevice.objects.get(user__username="boss", confirmed=False)
    assert page.context["key"] and page.context["qr"]

    wrong = client.post(reverse("two_factor_enroll"), {"otp_token": "000000" if code(device) != "000000" else "111111"})
    assert wrong.status_code == 200 and not TOTPDevice.objects.get(pk=device.pk).confirmed
    enrolled = client.post(reverse("two_factor_enroll"), {"otp_token": code(device)})
    assert enrolled["Location"] == reverse("admin:index")
    assert TOTPDevice.objects.get(pk=device.pk).confirmed
    assert client.get("/admin/").status_code == 200  # the session is verified by the code

    client.logout()
    refused = login(client, "boss")
    assert refused.status_code == 200
    assert "Enter the code your authenticator app shows." in refused.content.decode()
    assert "_auth_user_id" not in client.session
    bad = login(client, "boss", "12345x")
    assert "That authenticator code is not valid" in bad.content.decode()
    assert login(client, "boss", code(device, steps_ahead=1)).status_code == 302
    assert client.get("/admin/").status_code == 200


def test_an_enrolled_users_unverified_session_is_sent_to_the_login(client):
    boss = user_create_with_role(username="boss", password=PASSWORD, role="pit boss")
    TOTPDevice.objects.create(user=boss, name="phone", confirmed=True)
    client.force_login(boss)  # a session that never gave a code
    response = client.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith(LOGIN)


def test_a_role_that_changes_nothing_signs_in_with_the_password(client):
    user_create_with_role(username="audit", password=PASSWORD, role="auditor")
    assert login(client, "audit").status_code == 302
    assert client.get("/admin/").status_code == 200


def test_a_device_key_is_created_from_the_admin_and_shown_once(admin_client, settings):
    settings.PIT_TWO_FACTOR_ROLES = []  # admin_client's superuser signs in without a code
    table = factories.table("BB1")
    url = reverse("admin:accounts_device_add")
    assert admin_client.get(url).status_code == 200
    response = admin_client.post(url, {"table": "BB1", "name": "shoe reader 1"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    key = response.context["key"]
    device = Device.objects.get()
    assert (device.table, device.name, device.key_hash) == (
        table,
        "shoe reader 1",
        hashlib.sha256(key.encode()).hexdigest(),
    )
    assert device_authenticate(key=key) == device
    assert key not in admin_client.get(reverse("admin:accounts_device_change", args=[device.pk])).content.decode()
    again = admin_client.post(url, {"table": "BB1", "name": "shoe reader 1"})
    assert again.context["form"].non_field_errors() == ["Table BB1 has a device named 'shoe reader 1' already."]
    assert Device.objects.count() == 1


def test_a_users_role_is_a_column_and_a_field(admin_client, settings):
    settings.PIT_TWO_FACTOR_ROLES = []
    add = reverse("admin:auth_user_add")
    response = admin_client.post(
        add, {"username": "cleo", "password1": PASSWORD, "password2": PASSWORD, "role": "cage", "_save": "1"}
    )
    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else None
    cleo = get_user_model().objects.get(username="cleo")
    assert list(cleo.groups.values_list("name", flat=True)) == ["cage"]
    listing = admin_client.get(reverse("admin:auth_user_changelist")).content.decode()
    assert 'class="field-role">Cage<' in listing
    page = admin_client.get(reverse("admin:auth_user_change", args=[cleo.pk]))
    assert page.context["adminform"].form["role"].initial == "cage"
