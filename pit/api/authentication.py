"""Who is calling the API: a floor device by its API key, or a staff user by token or admin session.

Reuse these (they are the defaults in REST_FRAMEWORK): a view needs nothing but `PitAccess`
(pit/api/permissions.py) to get the same rules.
"""

from django.utils.functional import cached_property
from rest_framework import authentication, exceptions

from pit.accounts.services import device_authenticate


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
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Send the key as 'Authorization: Api-Key <key>'.")
        try:
            key = header[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("The API key is not valid.") from None
        device = device_authenticate(key=key)
        if device is None:
            raise exceptions.AuthenticationFailed("The API key is unknown or revoked.")
        return DevicePrincipal(device), device

    def authenticate_header(self, request) -> str:
        return f'{self.keyword} realm="pit"'


class StaffTokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Token <token>`: a staff user's personal token (rest_framework.authtoken)."""

    keyword = "Token"


class StaffSessionAuthentication(authentication.SessionAuthentication):
    """The admin session of a logged-in staff user (CSRF-checked on writes, as the admin is)."""


def request_device(request):
    """The device making the request, or None for a staff user."""
    user = getattr(request, "user", None)
    return user.device if isinstance(user, DevicePrincipal) else None
