"""Floor devices in the back-office: listed and revoked, never shown their key (the key is shown
once, by the service that creates the device; only its hash is stored)."""

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html

from pit.accounts.models import Device, StaffToken
from pit.accounts.services import device_revoke, staff_token_revoke
from pit.core.admin_site import SERVICE_ERRORS, error_text


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    list_display = ("name", "table", "key_prefix", "active", "created_at", "created_by", "revoked_at", "revoked_by")
    list_filter = ("table", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "key_prefix", "table__code")
    list_select_related = ("table", "created_by", "revoked_by")
    date_hierarchy = "created_at"
    show_full_result_count = False
    actions = ("revoke",)
    fields = ("name", "table", "key_prefix", "created_at", "created_by", "revoked_at", "revoked_by")
    readonly_fields = fields

    @admin.display(description="active", boolean=True, ordering="revoked_at")
    def active(self, device):
        return device.is_active

    @admin.action(description="Revoke the selected devices' keys", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for device in queryset:
            if not device.is_active:
                continue
            try:
                device_revoke(device=device, user=request.user)
            except SERVICE_ERRORS as exc:
                self.message_user(request, f"{device}: {error_text(exc)}", messages.ERROR)
            else:
                revoked += 1
        self.message_user(
            request,
            format_html("{} device key{} revoked.", revoked, "" if revoked == 1 else "s"),
            messages.SUCCESS,
        )

    def has_add_permission(self, request):
        # A device is created with its key by the API's service, which shows the key once.
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        """Every field is read-only: a device changes only by the revoke action."""


@admin.register(StaffToken)
class StaffTokenAdmin(admin.ModelAdmin):
    """Staff API tokens: listed and revoked, never shown (created with `manage.py create_staff_token`)."""

    list_display = (
        "key_prefix",
        "user",
        "name",
        "live",
        "created_at",
        "created_by",
        "expires_at",
        "revoked_at",
        "revoked_by",
    )
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("key_prefix", "name", "user__username")
    list_select_related = ("user", "created_by", "revoked_by")
    date_hierarchy = "created_at"
    show_full_result_count = False
    actions = ("revoke",)
    fields = list_display[:3] + list_display[4:]
    readonly_fields = fields

    @admin.display(description="live", boolean=True)
    def live(self, token):
        return token.revoked_at is None and token.expires_at > timezone.now()

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for token in queryset.filter(revoked_at__isnull=True):
            staff_token_revoke(token=token, user=request.user)
            revoked += 1
        self.message_user(request, f"{revoked} token{'' if revoked == 1 else 's'} revoked.", messages.SUCCESS)

    def has_add_permission(self, request):
        return False  # the command shows the token once; the admin never could

    def has_delete_permission(self, request, obj=None):
        return False
