"""Staff and floor devices in the back-office: users with their role (a column and a field), the
two-factor admin login (`pit.accounts.two_factor`), floor devices created (their key shown once, on
the page answering the creation; only its hash is stored), listed and revoked."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm, UserCreationForm
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from pit.accounts.models import Device, Role, StaffToken
from pit.accounts.services import STAFF_ROLES, device_create, device_revoke, staff_token_revoke, user_role_set
from pit.accounts.two_factor import TwoFactorLoginForm
from pit.core.admin_site import SERVICE_ERRORS, error_text
from pit.tables.models import Table

# The admin login asks for the authenticator code of a user enrolled in two-factor login.
admin.site.login_form = TwoFactorLoginForm
admin.site.login_template = "admin/accounts/login.html"

ROLE_CHOICES = [("", "— no role —"), *((role, Role(role).label) for role in STAFF_ROLES)]


def _role_of(user) -> str:
    names = [group.name for group in user.groups.all() if group.name in STAFF_ROLES]
    return names[0] if len(names) == 1 else ""


class RoleFormMixin(forms.Form):
    role = forms.ChoiceField(
        choices=ROLE_CHOICES,
        required=False,
        help_text=_("What the user may see and change (pit.accounts.roles)."),
        label=_("Role"),
    )


class PitUserChangeForm(RoleFormMixin, UserChangeForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["role"].initial = _role_of(self.instance)


class PitUserCreationForm(RoleFormMixin, UserCreationForm):
    pass


class PitUserAdmin(UserAdmin):
    """Users with their role: a column, a filter and a field (the role's group, set by the service)."""

    form = PitUserChangeForm
    add_form = PitUserCreationForm
    list_display = ("username", "role", "is_active", "is_staff", "is_superuser", "last_login")
    list_filter = ("groups", "is_active", "is_staff", "is_superuser")
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("Role"), {"fields": ("role",)}),
        (_("Personal info"), {"fields": ("first_name", "last_name", "email")}),
        (_("Permissions"), {"fields": ("is_active", "is_staff", "is_superuser")}),
        (_("Important dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("username", "password1", "password2", "role")}),)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("groups")

    @admin.display(description=_("role"))
    def role(self, user):
        role = _role_of(user)
        return Role(role).label if role else "—"

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user_role_set(user=form.instance, role=form.cleaned_data.get("role") or "")


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, PitUserAdmin)


class DeviceCreateForm(forms.Form):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("code"), to_field_name="code", label=_("Table"))
    name = forms.CharField(max_length=100, help_text=_("Unique at the table, e.g. 'shoe reader 1'."), label=_("Name"))


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

    @admin.display(description=_("active"), boolean=True, ordering="revoked_at")
    def active(self, device):
        return device.is_active

    @admin.action(description=_("Revoke the selected devices' keys"), permissions=["change"])
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
            ngettext("{count} device key revoked.", "{count} device keys revoked.", revoked).format(count=revoked),
            messages.SUCCESS,
        )

    def add_view(self, request, form_url="", extra_context=None):
        """Create a device through the service (as `manage.py create_device_key` does) and answer with
        its key, shown on this page only: it is never stored, never redirected to, never shown again."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = DeviceCreateForm(request.POST or None)
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": _("Add a floor device")}
        if request.method == "POST" and form.is_valid():
            try:
                device, key = device_create(
                    table=form.cleaned_data["table"], name=form.cleaned_data["name"], user=request.user
                )
            except SERVICE_ERRORS as exc:
                form.add_error(None, error_text(exc))
            else:
                response = TemplateResponse(
                    request,
                    "admin/accounts/device/key_shown.html",
                    {**context, "title": _("The device's key, shown once"), "device": device, "key": key},
                )
                response["Cache-Control"] = "no-store"  # the admin adds no-cache, private: kept by nobody
                return response
        return TemplateResponse(request, "admin/accounts/device/add.html", {**context, "form": form})

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

    @admin.display(description=_("live"), boolean=True)
    def live(self, token):
        return token.revoked_at is None and token.expires_at > timezone.now()

    @admin.action(description=_("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request, queryset):
        revoked = 0
        for token in queryset.filter(revoked_at__isnull=True):
            staff_token_revoke(token=token, user=request.user)
            revoked += 1
        self.message_user(
            request,
            ngettext("{count} token revoked.", "{count} tokens revoked.", revoked).format(count=revoked),
            messages.SUCCESS,
        )

    def has_add_permission(self, request):
        return False  # the command shows the token once; the admin never could

    def has_delete_permission(self, request, obj=None):
        return False
