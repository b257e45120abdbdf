"""Writes to staff accounts and floor devices: users with a role, device API keys and their revocation."""
import hashlib
import hmac
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from pit.accounts.models import Device, Role

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


@transaction.atomic
def device_create(*, table, name: str, user=None) -> tuple[Device, str]:
    """A new floor device for `table` and its API key, returned only here: only its hash is kept."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Name the device, e.g. 'shoe reader 1'."})
    if Device.objects.filter(table=table, name=name).exists():
        raise ValidationError({"name": f"Table {table.code} has a device named {name!r} already."})
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
def device_revoke(*, device: Device) -> Device:
    """The device's key stops working at once (a no-op if it was revoked already)."""
    device = Device.objects.select_for_update().get(pk=device.pk)
    if device.revoked_at is None:
        device.revoked_at = timezone.now()
        device.save(update_fields=["revoked_at"])
    return device


def device_authenticate(*, key: str) -> Device | None:
    """The active device a key belongs to, or None (unknown, malformed, wrong secret or revoked)."""
    parts = device_key_split(key)
    if parts is None:
        return None
    device = Device.objects.select_related("table").filter(key_prefix=parts[0]).first()
    if device is None or not hmac.compare_digest(device.key_hash, device_key_hash(key)):
        return None
    if device.revoked_at is not None:
        return None
    return device


# ---------------------------------------------------------------------------------------- staff
@transaction.atomic
def user_create_with_role(*, username: str, password: str, role: str, email: str = ""):
    """A staff user (admin login) in the group of `role` ("pit boss", "accountant", "auditor")."""
    if role not in Role.values:
        raise ValidationError({"role": f"Unknown role {role!r}; one of {', '.join(Role.values)}."})
    if role == Role.FLOOR_DEVICE:
        raise ValidationError({"role": "Floor devices authenticate with an API key, not as staff users."})
    user = get_user_model()(username=username, email=email, is_staff=True)
    user.set_password(password)
    user.full_clean(exclude=["password"])
    user.save()
    user.groups.add(Group.objects.get(name=role))
    return user
