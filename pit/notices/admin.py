"""The notices in the admin: surveillance's room (what the pit told it, acknowledged from the list),
the pit's notifications (a drop about to begin, decks leaving storage), and the notices owed to the
regulator with their filings. Every write goes through pit.notices.services."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from pit.accounting.admin import RecordAdmin
from pit.core.actors import Actor
from pit.core.admin_site import ReadOnlyAdminMixin, model_page_link, money_html, note_action
from pit.core.gaming_day import current_gaming_day
from pit.tables.models import Table

from . import services
from .models import (
    NotificationKind,
    RegulatorNotice,
    RegulatorNoticeFiling,
    SurveillanceAcknowledgement,
    SurveillanceNotification,
)


class NotifyForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What"),
        choices=[
            (NotificationKind.DROP, NotificationKind.DROP.label),
            (NotificationKind.DECKS, NotificationKind.DECKS.label),
        ],
    )
    table = forms.ModelChoiceField(label=_("Table"), queryset=Table.objects.order_by("code"))
    decks = forms.IntegerField(label=_("Decks (decks leaving storage)"), min_value=1, max_value=16, required=False)
    reference = forms.CharField(label=_("Reference (decks leaving storage)"), max_length=40, required=False)

    def clean(self):
        data = super().clean() or {}
        if data.get("kind") == NotificationKind.DECKS and not (data.get("decks") and data.get("reference")):
            raise forms.ValidationError(_("Decks leaving storage: give the number of decks and the issue's reference."))
        return data


class AcknowledgedFilter(admin.SimpleListFilter):
    title = _("acknowledged")
    parameter_name = "acknowledged"

    def lookups(self, request, model_admin):
        return (("no", _("Not yet")), ("yes", _("Acknowledged")))

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(is_acknowledged=self.value() == "yes")
        return queryset


def _acknowledge(notification, user, note):
    return services.surveillance_acknowledge(notification=notification, user=user, note=note)


@admin.register(SurveillanceNotification)
class SurveillanceNotificationAdmin(RecordAdmin):
    """Surveillance's room: newest first, the ones not yet acknowledged marked, acknowledged from the
    list (select, then "Acknowledge", with what was seen)."""

    record_permissions = ("notices.notify_surveillancenotification",)
    form_class = NotifyForm
    help = _("Tell surveillance: a drop about to begin, decks leaving storage. Surveillance acknowledges it.")
    submit_label = _("Notify surveillance")
    list_display = ("notified_at", "kind", "table", "message", "due_by", "acknowledged")
    list_filter = (AcknowledgedFilter, "kind", "table")
    list_select_related = ("table", "acknowledgement__acknowledged_by")
    date_hierarchy = "notified_at"
    search_fields = ("message",)
    fields = ("kind", "table", "message", "source", "violation", "notified_at", "due_by", "recorded_at", "recorded_by")
    readonly_fields = fields
    actions = [
        note_action(
            service=_acknowledge,
            description=_("Acknowledge (surveillance)"),
            verb="Acknowledge",
            permission="acknowledge",
            done="acknowledged",
        )
    ]

    def get_queryset(self, request):
        acknowledged = SurveillanceAcknowledgement.objects.filter(notification=OuterRef("pk"))
        return super().get_queryset(request).annotate(is_acknowledged=Exists(acknowledged))

    def has_acknowledge_permission(self, request):
        return request.user.has_perm("notices.acknowledge_surveillancenotification")

    @admin.display(description=_("acknowledged"), boolean=False)
    def acknowledged(self, notification):
        acknowledgement = getattr(notification, "acknowledgement", None)
        if acknowledgement is None:
            late = notification.due_by < timezone.now()
            return _("LATE: not acknowledged") if late else _("not yet")
        return f"{acknowledgement.acknowledged_by} {timezone.localtime(acknowledgement.acknowledged_at):%H:%M}"

    def record(self, request, data):
        actor = Actor(user=request.user)
        if data["kind"] == NotificationKind.DECKS:
            return services.decks_leaving_notify(
                table=data["table"], decks=data["decks"], reference=data["reference"], actor=actor
            )
        return services.drop_notify(table=data["table"], gaming_day=current_gaming_day(), actor=actor)


@admin.register(SurveillanceAcknowledgement)
class SurveillanceAcknowledgementAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("notification", "acknowledged_by", "acknowledged_at", "note")
    list_select_related = ("notification__table", "acknowledged_by")
    date_hierarchy = "acknowledged_at"


class FilingForm(forms.Form):
    notice = forms.ModelChoiceField(
        label=_("Notice"),
        queryset=RegulatorNotice.objects.filter(filing__isnull=True).select_related("table").order_by("due_at"),
    )
    reference = forms.CharField(label=_("Reference"), max_length=100, help_text=_("The regulator's or the filing's."))
    note = forms.CharField(label=_("Note"), max_length=300, required=False)


@admin.register(RegulatorNotice)
class RegulatorNoticeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("due_at", "rule_code", "table", "gaming_day", "discrepancy", "message", "filed")
    list_filter = ("rule_code", "jurisdiction", "table")
    list_select_related = ("table", "filing")
    date_hierarchy = "due_at"
    fields = (
        "rule_code",
        "jurisdiction",
        "rule",
        "table",
        "gaming_day",
        "message",
        "discrepancy",
        "source",
        "found_at",
        "due_at",
        "filed",
    )
    readonly_fields = fields

    @admin.display(description=_("discrepancy"), ordering="amount_minor")
    def discrepancy(self, notice):
        return money_html(notice.amount_minor, notice.currency)

    @admin.display(description=_("filed"))
    def filed(self, notice):
        filing = getattr(notice, "filing", None)
        if filing is None:
            return _("OVERDUE") if notice.due_at < timezone.now() else _("not yet")
        return f"{filing.reference} ({timezone.localtime(filing.filed_at):%Y-%m-%d %H:%M})"


@admin.register(RegulatorNoticeFiling)
class RegulatorNoticeFilingAdmin(RecordAdmin):
    record_permissions = ("notices.file_regulatornotice",)
    form_class = FilingForm
    help = _("A notice filed with the regulator: its reference, so the deadline's alarm is cleared.")
    submit_label = _("Record the filing")
    list_display = ("notice", "reference", "filed_at", "filed_by", "note")
    list_select_related = ("notice__table", "filed_by")
    date_hierarchy = "filed_at"
    fields = ("notice", "reference", "filed_at", "filed_by", "note", "recorded_at")
    readonly_fields = fields

    def record(self, request, data):
        return services.regulator_notice_file(
            notice=data["notice"], reference=data["reference"], user=request.user, note=data["note"]
        )


model_page_link(
    "surveillance",
    _("Surveillance"),
    _("What the pit told surveillance: acknowledge it in time."),
    "notices.SurveillanceNotification",
    "acknowledged=no",
    position=45,
)
model_page_link(
    "regulator_notices",
    _("Notices to the regulator"),
    _("Errors to report by their deadline, and their filings."),
    "notices.RegulatorNotice",
    position=85,
)
