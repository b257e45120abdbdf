"""Who may do what through the API: the admin's role rules for staff, one table for a device.

`PitAccess` is the default permission class (REST_FRAMEWORK in settings). A view says what it needs:

    read_permissions = ("shoes.view_coup",)      # staff, for GET/HEAD/OPTIONS (Django model permissions)
    write_permissions = ("shoes.add_coup",)      # staff, for POST/PUT/PATCH/DELETE
    device_access = frozenset({"read", "write"})  # floor devices; empty (the default) refuses them

and calls `ensure_table_access(request, table)` on the table an object belongs to, so that a
device for BB1 gets 403 on BB2's shoes. Reports: `read_permissions = ("accounts.run_reports",)`
and no device access.
"""

from django.utils.translation import gettext
from rest_framework import exceptions, permissions

from pit.api.authentication import DevicePrincipal

READ, WRITE = "read", "write"
# What a view lets floor devices do (`device_access`).
DEVICE_READ = frozenset({READ})
DEVICE_WRITE = frozenset({WRITE})
DEVICE_READ_WRITE = frozenset({READ, WRITE})


def _access_kind(request) -> str:
    return READ if request.method in permissions.SAFE_METHODS else WRITE


class PitAccess(permissions.BasePermission):
    """Devices: only what `device_access` allows (scoped to their table by the view).
    Staff: Django model permissions, the same the admin's roles give (pit/accounts/roles.py)."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        if user is None or not user.is_authenticated:
            return False  # DRF answers 401 with the Api-Key challenge
        kind = _access_kind(request)
        if isinstance(user, DevicePrincipal):
            if kind in getattr(view, "device_access", frozenset()):
                return True
            raise exceptions.PermissionDenied(
                gettext("Floor devices cannot read this resource.")
                if kind == READ
                else gettext("Floor devices cannot write to this resource.")
            )
        if not user.is_active:
            return False
        needed = getattr(view, "read_permissions" if kind == READ else "write_permissions", None)
        if needed is None:  # a view that declares nothing is closed to staff rather than open
            raise exceptions.PermissionDenied(gettext("This resource is for floor devices only."))
        missing = [perm for perm in needed if not user.has_perm(perm)]
        if missing:
            raise exceptions.PermissionDenied(
                gettext("Your role lacks the permission {names}.").format(names=", ".join(missing))
            )
        return True


def ensure_table_access(request, table) -> None:
    """403 unless the caller may act on `table`: a device only on its own; staff on every table."""
    user = request.user
    if isinstance(user, DevicePrincipal) and user.device.table_id != table.pk:
        raise exceptions.PermissionDenied(
            gettext("This device is registered for table {code}, not {table_code}.").format(
                code=user.device.table.code, table_code=table.code
            )
        )
