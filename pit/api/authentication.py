"""Who is calling the API: a floor device by its API key, or a staff user by token or admin session.

Reuse these (they are the defaults in REST_FRAMEWORK): a view needs nothing but `PitAccess`
(pit/api/permissions.py) to get the same rules.
"""

from django.utils.functional import cached_property
from django.utils.translation import gettext
from rest_framework import authentication, exceptions

from pit.accounts.access import auth_blocked_for, auth_failure_record, client_address
from pit.accounts.services import (
    device_authenticate,
    device_key_split,
    key_prefix_issued,
    staff_token_authenticate,
)
from pit.core.actors import Actor


def _key_from_header(request, keyword: str) -> str | None:
    """The credential after `keyword` in the Authorization header; None when the header names
    another scheme (the next class tries). A malformed header is a failure like a wrong key."""
    header = authentication.get_authorization_header(request).split()
    if not header or header[0].lower() != keyword.lower().encode():
        return None
    key = ""
    if len(header) == 2:
        try:
            key = header[1].decode()
        except UnicodeError:
            key = ""
    return key


def _throttled(wait: int, detail: str) -> exceptions.Throttled:
    return exceptions.Throttled(wait=wait, detail=f"{detail}; retry in {wait} s.")


def _authenticate_throttled(request, key: str, check):
    """`check(key)`, throttled by the rule of pit.accounts.access: a key that authenticates is never
    refused. A wrong key with an issued prefix counts against that prefix (past the limit: 429 with
    Retry-After); any other wrong key counts against the client's address, and once the address is
    past its limit such keys are not even tried."""
    parts = device_key_split(key)
    prefix = parts[0] if parts else None
    if prefix is None:
        address = client_address(request)
        wait = auth_blocked_for(address=address)
        if wait:
            raise _throttled(wait, "Too many failed authentications from this address without a known key")
        auth_failure_record(address=address)
        return None
    found = check(key)
    if found is not None:
        return found
    if key_prefix_issued(prefix):
        wait = auth_blocked_for(prefix=prefix)
        if wait:
            raise _throttled(wait, "Too many failed authentications with this key")
        auth_failure_record(prefix=prefix)
        return None
    address = client_address(request)
    wait = auth_blocked_for(address=address)
    if wait:
        raise _throttled(wait, "Too many failed authentications from this address without a known key")
    auth_failure_record(address=address)
    return None


class DevicePrincipal:
    """`request.user` for a floor device: authenticated, holds no Django permission at all.

    The device itself is `request.auth` (and `.device` here); what it may do is decided by
    PitAccess and by the table it is scoped to, never by model permissions.
    """

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False
    pk = None
    id = None

    def __init__(self, device):
        self.device = device

    def __str__(self) -> str:
        return f"device {self.device.name} ({self.device.table.code})"

    def has_perm(self, perm, obj=None) -> bool:
        return False

    def has_perms(self, perm_list, obj=None) -> bool:
        return False

    @cached_property
    def username(self) -> str:
        return str(self)


class DeviceKeyAuthentication(authentication.BaseAuthentication):
    """`Authorization: Api-Key <key>`: the key printed once by `manage.py create_device_key`.

    An unknown, malformed or revoked key is a 401; no header lets the next class try.
    """

    keyword = "Api-Key"

    def authenticate(self, request):
        key = _key_from_header(request, self.keyword)
        if key is None:
            return None
        device = _authenticate_throttled(request, key, lambda key: device_authenticate(key=key))
        if device is None:
            raise exceptions.AuthenticationFailed(gettext("The API key is unknown or revoked."))
        return DevicePrincipal(device), device

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="pit"'


class StaffTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Token <token>`: a staff user's personal token (`manage.py create_staff_token`),
    stored as a hash and valid until it expires or is revoked."""

    keyword = "Token"

    def authenticate(self, request):
        key = _key_from_header(request, self.keyword)
        if key is None:
            return None
        token = _authenticate_throttled(request, key, lambda key: staff_token_authenticate(key=key))
        if token is None:
            raise exceptions.AuthenticationFailed(gettext("The token is unknown, expired or revoked."))
        return token.user, token

    def authenticate_header(self, request) -> str:
        return self.keyword


class StaffSessionAuthentication(authentication.SessionAuthentication):
    """The admin session of a logged-in staff user (CSRF-checked on writes, as the admin is)."""


def request_device(request):
    """The device making the request, or None for a staff user."""
    user = getattr(request, "user", None)
    return user.device if isinstance(user, DevicePrincipal) else None


def actor_for(request) -> Actor:
    """Who a write is recorded against: the device, or the staff user."""
    if isinstance(request.user, DevicePrincipal):
        return Actor(device=request.user.device)
    return Actor(user=request.user)
