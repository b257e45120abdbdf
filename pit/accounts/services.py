"""Writes to staff accounts and floor devices: users with a role, device API keys and their revocation."""

import datetime as dt
import hashlib
import hmac
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit.accounts.models import Device, Role, StaffToken

from .persistence import device_by_prefix

# ---------------------------------------------------------------------------------------- devices
# A device key reads "<prefix>.<secret>": the prefix (8 hex characters, stored in clear) finds the
# device, the SHA-256 of the whole key is what is stored and compared in constant time.
DEVICE_KEY_PREFIX_BYTES = 4
DEVICE_KEY_SECRET_BYTES = 32


def device_key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def device_key_split(key: str) -> tuple[str, str] | None:
    """(prefix, secret) of a well-formed key, None otherwise."""
    prefix, dot, secret = (key or "").partition(".")
    if not dot or len(prefix) != DEVICE_KEY_PREFIX_BYTES * 2 or not secret:
        return None
    return prefix, secret


def key_prefix_issued(prefix: str) -> bool:
    """Whether a device key or a staff token was issued with this prefix (revoked or not): its wrong
    keys are throttled by the prefix, never by the address they come from (pit.accounts.access)."""
    return Device.objects.filter(key_prefix=prefix).exists() or StaffToken.objects.filter(key_prefix=prefix).exists()


@transaction.atomic
def device_create(*, table, name: str, user=None) -> tuple[Device, str]:
    """A new floor device for `table` and its API key, returned only here: only its hash is kept."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": gettext("Name the device, e.g. 'shoe reader 1'.")})
    if Device.objects.filter(table=table, name=name).exists():
        raise ValidationError(
            {
                "name": gettext("Table {table_code} has a device named {name!r} already.").format(
                    table_code=table.code, name=name
                )
            }
        )
    while True:
        prefix = secrets.token_hex(DEVICE_KEY_PREFIX_BYTES)
        if not Device.objects.filter(key_prefix=prefix).exists():
            break
    key = f"{prefix}.{secrets.token_urlsafe(DEVICE_KEY_SECRET_BYTES)}"
    device = Device(table=table, name=name, key_prefix=prefix, key_hash=device_key_hash(key), created_by=user)
    device.full_clean()
    device.save()
    return device, key


@transaction.atomic
def device_revoke(*, device: Device, user=None) -> Device:
    """The device's key stops working at once (a no-op if it was revoked already); `user` revoked it."""
    device = Device.objects.select_for_update().get(pk=device.pk)
    if device.revoked_at is None:
        device.revoked_at = timezone.now()
        device.revoked_by = user
        device.save(update_fields=["revoked_at", "revoked_by"])
    return device


def device_authenticate(*, key: str) -> Device | None:
    """The active device a key belongs to, or None (unknown, malformed, wrong secret or revoked)."""
    parts = device_key_split(key)
    if parts is None:
        return None
    device = device_by_prefix(parts[0])
    if device is None or not hmac.compare_digest(device.key_hash, device_key_hash(key)):
        return None
    if device.revoked_at is not None:
        return None
    return device


# ---------------------------------------------------------------------------------------- staff tokens
# A staff token reads like a device key, "<prefix>.<secret>"; only the SHA-256 of the whole is kept.


@transaction.atomic
def staff_token_create(*, user, name: str = "", days: int | None = None, created_by=None) -> tuple[StaffToken, str]:
    """A personal API token for a staff user, valid `days` (at most PIT_STAFF_TOKEN_DAYS, the default);
    the token is returned only here."""
    limit = settings.PIT_STAFF_TOKEN_DAYS
    days = limit if days is None else days
    if not isinstance(days, int) or not 1 <= days <= limit:
        raise ValidationError({"days": gettext("A token is valid for 1 to {limit} days.").format(limit=limit)})
    if not user.is_active or not user.is_staff:
        raise ValidationError({"user": gettext("{user} is not an active staff user.").format(user=user)})
    while True:
        prefix = secrets.token_hex(DEVICE_KEY_PREFIX_BYTES)
        if (
            not StaffToken.objects.filter(key_prefix=prefix).exists()
            and not Device.objects.filter(key_prefix=prefix).exists()
        ):
            break
    key = f"{prefix}.{secrets.token_urlsafe(DEVICE_KEY_SECRET_BYTES)}"
    now = timezone.now()
    token = StaffToken(
        user=user,
        name=(name or "").strip(),
        key_prefix=prefix,
        key_hash=device_key_hash(key),
        created_by=created_by,
        expires_at=now + dt.timedelta(days=days),
    )
    token.full_clean(exclude=["user", "created_by"])
    token.save()
    return token, key


@transaction.atomic
def staff_token_revoke(*, token: StaffToken, user=None) -> StaffToken:
    """The token stops working at once (a no-op if it was revoked already); `user` revoked it."""
    token = StaffToken.objects.select_for_update().get(pk=token.pk)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.revoked_by = user
        token.save(update_fields=["revoked_at", "revoked_by"])
    return token


def staff_token_authenticate(*, key: str) -> StaffToken | None:
    """The live token a key belongs to (its user active), or None: unknown, malformed, wrong secret,
    expired or revoked."""
    parts = device_key_split(key)
    if parts is None:
        return None
    token = StaffToken.objects.select_related("user").filter(key_prefix=parts[0]).first()
    if token is None or not hmac.compare_digest(token.key_hash, device_key_hash(key)):
        return None
    if token.revoked_at is not None or token.expires_at <= timezone.now() or not token.user.is_active:
        return None
    return token


# ---------------------------------------------------------------------------------------- staff
# The roles a staff user may hold (floor devices authenticate by key, not as users).
STAFF_ROLES = tuple(role for role in Role.values if role != Role.FLOOR_DEVICE)


@transaction.atomic
def user_role_set(*, user, role: str) -> None:
    """`user` holds `role` (one of STAFF_ROLES) and no other role; "" takes every role away. Groups
    that are not roles are left as they are."""
    if role and role not in STAFF_ROLES:
        raise ValidationError(
            {"role": gettext("Unknown role {role!r}; one of {names}.").format(role=role, names=", ".join(STAFF_ROLES))}
        )
    user.groups.remove(*Group.objects.filter(name__in=[name for name in Role.values if name != role]))
    if role:
        user.groups.add(Group.objects.get(name=role))


@transaction.atomic
def user_create_with_role(*, username: str, password: str, role: str, email: str = ""):
    """A staff user (admin login) in the group of `role` ("pit boss", "accountant", "auditor")."""
    if role not in Role.values:
        raise ValidationError(
            {"role": gettext("Unknown role {role!r}; one of {names}.").format(role=role, names=", ".join(Role.values))}
        )
    if role == Role.FLOOR_DEVICE:
        raise ValidationError({"role": gettext("Floor devices authenticate with an API key, not as staff users.")})
    user = get_user_model()(username=username, email=email, is_staff=True)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    user.groups.add(Group.objects.get(name=role))
    return user
