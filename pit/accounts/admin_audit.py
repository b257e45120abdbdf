"""The audit trail in the admin, as an auditor reads it: one read-only list per audited model (works
on SQLite and PostgreSQL) saying who (by name), when, which record (its name, linked) and what
changed (field by field, before -> after, in the fields' own names); filtered by record and by
person, downloadable as CSV; and the records verification of a range of gaming days, run from the
admin through the records service. pghistory's aggregate "events" view (pghistory.admin) is taken
out of the admin: one query over every event table, too slow over a year on PostgreSQL and not
runnable on SQLite."""

import csv
import datetime as dt
from contextvars import ContextVar

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import NoReverseMatch, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pghistory.models import Events, MiddlewareEvents

from pit.accounts.audit import _EVENT_MODELS, event_changes, who_text
from pit.core.admin_site import PageLink, model_page_link, page_link_register
from pit.core.gaming_day import current_gaming_day
from pit.records.services import records_verify

# The staff's names, read once per page (a handful of rows: the staff, not the players).
_names: ContextVar[dict[int, str] | None] = ContextVar("pit_audit_names", default=None)
VERIFY_PERMISSION = "records.view_chainhead"
VERIFY_MAX_DAYS = 31
# What each audited record's name (its __str__) reads beyond its own row, read with it.
RECORD_NAME_RELATED: dict[str, tuple[str, ...]] = {
    "compliance.RuleViolation": ("table", "shoe__table", "coup__shoe__table"),
    "ledger.Reconciliation": ("shoe__table",),
    "tables.TableLimit": ("table",),
    "accounts.Device": ("table",),
    "accounts.StaffToken": ("user",),
}
EVENT_PAGE_FIELDS = ("when", "who", "action", "record", "changes", "how")


def staff_names() -> dict[int, str]:
    names = _names.get()
    if names is None:
        names = {
            pk: (f"{first} {last}".strip() or username) + (f" ({username})" if (first or last) else "")
            for pk, username, first, last in get_user_model().objects.values_list(
                "pk", "username", "first_name", "last_name"
            )
        }
        _names.set(names)
    return names


class PersonFilter(admin.SimpleListFilter):
    title = _("person")
    parameter_name = "person"

    def lookups(self, request, model_admin):
        return sorted(((str(pk), name) for pk, name in staff_names().items()), key=lambda pair: pair[1])

    def queryset(self, request, queryset):
        value = self.value() or ""
        if value.isdigit():
            return queryset.filter(pgh_context__user=int(value))
        return queryset


class RecordFilter(admin.SimpleListFilter):
    """One record's events (?record=<its id>): the link "this record's history" on each row sets it."""

    title = _("record")
    parameter_name = "record"

    def lookups(self, request, model_admin):
        value = request.GET.get(self.parameter_name)
        return [(value, f"#{value} only")] if value else []

    def queryset(self, request, queryset):
        value = self.value() or ""
        if value.isdigit():
            return queryset.filter(pgh_obj_id=int(value))
        return queryset


class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["pgh_created_at", "who", "action", "record", "changes"]
    list_filter = ["pgh_label", PersonFilter, RecordFilter]
    date_hierarchy = "pgh_created_at"
    ordering = ["-pgh_created_at", "-pgh_id"]
    change_list_template = "admin/pit/audit_change_list.html"

    def get_search_fields(self, request):
        return ["pgh_obj_id"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return list(EVENT_PAGE_FIELDS)

    def get_fields(self, request, obj=None):
        return list(EVENT_PAGE_FIELDS)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(previous_pgh_id=previous_event_id(self.model))

    # ------------------------------------------------------------------ one page's rows, read at once

    def get_changelist_instance(self, request):
        _names.set(None)
        changelist = super().get_changelist_instance(request)
        changelist.result_list = events_with_context(self.model, list(changelist.result_list))
        return changelist

    def get_object(self, request, object_id, from_field=None):
        _names.set(None)
        event = super().get_object(request, object_id, from_field)
        return events_with_context(self.model, [event])[0] if event is not None else None

    # ------------------------------------------------------------------ columns

    @admin.display(description=_("when"), ordering="pgh_created_at")
    def when(self, event):
        return timezone.localtime(event.pgh_created_at).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description=_("who"))
    def who(self, event):
        return who_text(event.pgh_context, staff_names())

    @admin.display(description=_("what"), ordering="pgh_label")
    def action(self, event):
        return {"insert": "created", "update": "changed", "delete": "deleted"}.get(event.pgh_label, event.pgh_label)

    @admin.display(description=_("record"))
    def record(self, event):
        tracked = event._meta.get_field("pgh_obj").related_model
        name = event.pit_record_text
        history = f"?record={event.pgh_obj_id}"
        parts = [format_html("{} {}", tracked._meta.verbose_name, name)]
        url = event.pit_record_url
        if url:
            parts[0] = format_html('<a href="{}">{}</a>', url, parts[0])
        parts.append(format_html(gettext('<a href="{}" class="pit-quiet">its history</a>'), history))
        return format_html_join(" · ", "{}", ((part,) for part in parts))

    @admin.display(description=_("what changed (before → after)"))
    def changes(self, event):
        rows = event.pit_changes
        if event.pgh_label == "delete":
            return "the record was deleted"
        if not rows:
            return "—"
        return format_html(
            '<ul class="pit-changes">{}</ul>',
            format_html_join("", "<li><strong>{}</strong>: {} → {}</li>", rows),
        )

    @admin.display(description=_("how"))
    def how(self, event):
        context = event.pgh_context or {}
        parts = [f"{key}: {context[key]}" for key in ("url", "address", "task") if context.get(key)]
        return "; ".join(parts) or "—"

    # ------------------------------------------------------------------ CSV of the filtered list

    def get_urls(self):
        opts = self.model._meta
        return [
            path(
                "export.csv",
                self.admin_site.admin_view(self.export_view),
                name=f"{opts.app_label}_{opts.model_name}_export",
            ),
            *super().get_urls(),
        ]

    def changelist_view(self, request, extra_context=None):
        opts = self.model._meta
        query = request.GET.urlencode()
        export = reverse(f"admin:{opts.app_label}_{opts.model_name}_export") + (f"?{query}" if query else "")
        return super().changelist_view(request, {**(extra_context or {}), "export_url": export})

    def export_view(self, request):
        """The list as filtered (every page), one row per change of one field."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        _names.set(None)
        changelist = super().get_changelist_instance(request)
        events = list(changelist.get_queryset(request)[:EXPORT_MAX_ROWS])
        events = events_with_context(self.model, events)
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="audit_{self.model._meta.model_name}.csv"'
        writer = csv.writer(response)
        writer.writerow(["when", "who", "what", "record type", "record id", "record", "field", "before", "after"])
        for event in events:
            base = [
                self.when(event),
                self.who(event),
                self.action(event),
                event._meta.get_field("pgh_obj").related_model._meta.verbose_name,
                event.pgh_obj_id,
                event.pit_record_text,
            ]
            for field, before, after in event.pit_changes or [("", "", "")]:
                writer.writerow([*base, field, before, after])
        return response


EXPORT_MAX_ROWS = 100_000


def previous_event_id(event_model) -> Subquery:
    """The pgh_id of the event before this one on the same record (None for its first)."""
    return Subquery(
        event_model.objects.filter(pgh_obj_id=OuterRef("pgh_obj_id"), pgh_id__lt=OuterRef("pgh_id"))
        .order_by("-pgh_id")
        .values("pgh_id")[:1]
    )


def events_with_context(event_model, events: list) -> list:
    """Each event (annotated with `previous_pgh_id`) with what its row shows: the record's name and
    page (one query for the records still on file) and its changes against the previous event of
    the same record (one query)."""
    tracked = event_model._meta.get_field("pgh_obj").related_model
    related = RECORD_NAME_RELATED.get(tracked._meta.label, ())
    records = tracked._default_manager.select_related(*related).in_bulk({event.pgh_obj_id for event in events})
    previous = event_model.objects.in_bulk([event.previous_pgh_id for event in events if event.previous_pgh_id])
    for event in events:
        record = records.get(event.pgh_obj_id)
        event.pit_record_text = str(record) if record is not None else f"#{event.pgh_obj_id} (deleted)"
        event.pit_record_url = _record_url(record)
        event.pit_changes = event_changes(event, previous.get(event.previous_pgh_id))
    return events


def _record_url(record) -> str:
    if record is None:
        return ""
    opts = record._meta
    try:
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[record.pk])
    except NoReverseMatch:
        return ""


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

# pghistory's aggregate events pages are taken out of the admin on every database: on PostgreSQL
# their list is one UNION over every event table, sorted and counted whole (5 s with 100,000
# violations), and on SQLite their SQL does not run. The per-model lists above are the trail.
for aggregate in (Events, MiddlewareEvents):
    if admin.site.is_registered(aggregate):
        admin.site.unregister(aggregate)


# ---------------------------------------------------------------------------------------- records verification


class VerifyForm(forms.Form):
    first_day = forms.DateField(label=_("From gaming day"), widget=forms.DateInput(attrs={"type": "date"}))
    last_day = forms.DateField(label=_("To gaming day"), widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self):
        data = super().clean() or {}
        first, last = data.get("first_day"), data.get("last_day")
        if first and last:
            if last < first:
                self.add_error("last_day", gettext("The last day comes before the first."))
            elif (last - first).days + 1 > VERIFY_MAX_DAYS:
                self.add_error(
                    "last_day",
                    gettext("At most {verify_max_days} gaming days at a time.").format(verify_max_days=VERIFY_MAX_DAYS),
                )
        return data


def verify_allowed(request) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(VERIFY_PERMISSION)


def verify_records_view(request):
    """GET: the form (today by default); POST: verify the hash chains of the shoes of those gaming
    days and every other fact's stream through the records service (a shoe's break is recorded as a
    violation, once) and show the result."""
    if not verify_allowed(request):
        raise PermissionDenied(gettext("Verifying the records is for auditors."))
    today = current_gaming_day()
    form = VerifyForm(request.POST or None, initial={"first_day": today - dt.timedelta(days=1), "last_day": today})
    result = streams = None
    breaks: list[str] = []
    if request.method == "POST" and form.is_valid():
        result, streams = records_verify(
            first_day=form.cleaned_data["first_day"], last_day=form.cleaned_data["last_day"]
        )
        breaks = [str(found) for found in (*result.breaks, *streams.breaks)]
    context = {
        **admin.site.each_context(request),
        "title": _("Verify the records"),
        "form": form,
        "result": result,
        "streams": streams,
        "ok": not breaks,
        "breaks": breaks,
    }
    return TemplateResponse(request, "admin/pit/verify_records.html", context)


page_link_register(
    PageLink(
        "verify_records",
        _("Verify the records"),
        _("Check the hash chains of a range of gaming days; a break is recorded as a violation."),
        url=lambda: reverse("verify-records"),
        allowed=verify_allowed,
        position=80,
    )
)
model_page_link(
    "audit_trail",
    _("Audit trail"),
    _("Who changed what and when: violations' reviews (the other records' trails are on the start page)."),
    "compliance.RuleViolationAuditEvent",
    position=90,
)
