"""The audit trail in the admin: one read-only list per audited model (works on SQLite and
PostgreSQL). pghistory's aggregate "events" view (pghistory.admin) queries with PostgreSQL-only
SQL, so on SQLite it is taken out of the admin."""

from django.contrib import admin
from django.utils import timezone

from pit.accounts.audit import _EVENT_MODELS
from pit.core.db import is_postgresql


class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["pgh_created_at", "pgh_label", "pgh_obj_id", "who", "pgh_context_id"]
    list_filter = ["pgh_label"]
    date_hierarchy = "pgh_created_at"
    ordering = ["-pgh_created_at", "-pgh_id"]

    def get_search_fields(self, request):
        return ["pgh_obj_id"]

    @admin.display(description="who")
    def who(self, event):
        context = event.pgh_context or {}
        if context.get("user") is not None:
            return f"user {context['user']}"
        return context.get("actor") or "system"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


def _event_str(event) -> str:
    """What an event's page and breadcrumbs call it: "update of rule violation 4, 2026-11-30 16:55:03"
    (not "RuleViolationAuditEvent object (4)")."""
    tracked = event._meta.get_field("pgh_obj").related_model._meta.verbose_name
    moment = timezone.localtime(event.pgh_created_at).strftime("%Y-%m-%d %H:%M:%S") if event.pgh_created_at else ""
    return f"{event.pgh_label} of {tracked} {event.pgh_obj_id}, {moment}".rstrip(", ")


for event_model in _EVENT_MODELS.values():
    # A function set on the class is its method; mypy checks it against the bound `__str__` (no self).
    event_model.__str__ = _event_str  # type: ignore[assignment]
    if not admin.site.is_registered(event_model):
        admin.site.register(event_model, AuditEventAdmin)

if not is_postgresql():
    from pghistory.models import Events, MiddlewareEvents

    for aggregate in (Events, MiddlewareEvents):
        if admin.site.is_registered(aggregate):
            admin.site.unregister(aggregate)
