"""The dashboard's records in the admin: the floor map's positions (placed by the operator) and the
shift notes (written by pit bosses, read by the next shift on the dashboard)."""

from django import forms
from django.contrib import admin

from pit.accounts.models import Role
from pit.core.admin_site import ServiceErrorsAsMessagesMixin
from pit.dashboard.models import FloorPosition, ShiftNote
from pit.dashboard.services import shift_note_write
from pit.dashboard.views import dashboard_allowed


@admin.register(FloorPosition)
class FloorPositionAdmin(admin.ModelAdmin):
    list_display = ("table", "row", "column")
    list_select_related = ("table",)


def writes_shift_notes(user) -> bool:
    return user.is_superuser or user.groups.filter(name=Role.PIT_BOSS).exists()


class ShiftNoteForm(forms.ModelForm):
    class Meta:
        model = ShiftNote
        fields = ("table", "text")


@admin.register(ShiftNote)
class ShiftNoteAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    """Who watches the floor reads the notes; pit bosses write them. A note is kept as written."""

    form = ShiftNoteForm
    list_display = ("written_at", "gaming_day", "shift", "table", "text", "written_by")
    list_filter = ("gaming_day", "shift", "table")
    list_select_related = ("table", "written_by")
    search_fields = ("text",)

    def has_view_permission(self, request, obj=None):
        return dashboard_allowed(request.user)

    def has_module_permission(self, request):
        return dashboard_allowed(request.user)

    def has_add_permission(self, request):
        return request.user.is_active and request.user.is_staff and writes_shift_notes(request.user)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        note = shift_note_write(text=obj.text, user=request.user, table=obj.table)
        obj.pk, obj.gaming_day, obj.shift, obj.written_by, obj.written_at = (
            note.pk,
            note.gaming_day,
            note.shift,
            note.written_by,
            note.written_at,
        )
