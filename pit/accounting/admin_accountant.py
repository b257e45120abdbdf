"""The accountant's screens beside the records: the day-close checklist (what blocks the close,
read from `services.day_close_blockers`, the very function `gaming_day_close` refuses with, and
what is pending without blocking it), and variance investigations (assignee, due date, evidence
attached, a conclusion) with their files served to who may read them."""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from pit.compliance.models import RuleViolation
from pit.compliance.selectors import OPEN
from pit.core.admin_site import (
    SERVICE_ERRORS,
    PageLink,
    ServiceErrorsAsMessagesMixin,
    admin_link,
    error_text,
    page_link_register,
    view_check_register,
)
from pit.core.gaming_day import current_gaming_day
from pit.ledger.models import Reconciliation, ReconciliationStatus

from . import investigations, services
from .models import HoldFlag, InvestigationAttachment, InvestigationStatus, Slip, SlipStepKind, VarianceInvestigation
from .selectors import day_is_closed

CLOSE_PERMISSION = "accounting.close_gamingday"
INVESTIGATE_PERMISSION = "accounting.investigate_holdflag"
READ_PERMISSION = "accounting.view_holdflag"

# ------------------------------------------------------------------------------------ day-close checklist


def day_close_allowed(request) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(CLOSE_PERMISSION)


def day_pending(*, gaming_day: dt.date) -> list[dict]:
    """What is still open on the day without blocking its close: open violations, slips not yet
    issued by the cage, open investigations due by the day, each with where to work it."""
    pending = []
    violations = RuleViolation.objects.filter(OPEN, gaming_day=gaming_day).count()
    if violations:
        pending.append(
            {
                "text": ngettext(
                    "%(count)s open violation of the day to review.",
                    "%(count)s open violations of the day to review.",
                    violations,
                )
                % {"count": violations},
                "url": reverse("admin:compliance_ruleviolation_changelist")
                + f"?gaming_day={gaming_day.isoformat()}&status__exact=open&cleared=no",
            }
        )
    not_issued = Slip.objects.filter(gaming_day=gaming_day).exclude(steps__step=SlipStepKind.ISSUED).count()
    if not_issued:
        pending.append(
            {
                "text": ngettext(
                    "%(count)s slip the cage has not issued.", "%(count)s slips the cage has not issued.", not_issued
                )
                % {"count": not_issued},
                "url": "",
            }
        )
    overdue = VarianceInvestigation.objects.filter(status=InvestigationStatus.OPEN, due_on__lte=gaming_day).count()
    if overdue:
        pending.append(
            {
                "text": ngettext(
                    "%(count)s open investigation due by this day.",
                    "%(count)s open investigations due by this day.",
                    overdue,
                )
                % {"count": overdue},
                "url": reverse("admin:accounting_varianceinvestigation_changelist") + "?status__exact=open",
            }
        )
    return pending


class CloseForm(forms.Form):
    gaming_day = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), label=_("Gaming day"))
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 70}), required=False, label=_("Note"))


def day_close_view(request):
    """The checklist of a gaming day, then Close: the close calls `gaming_day_close`, which refuses
    with the same list the page shows."""
    if not day_close_allowed(request):
        raise PermissionDenied(_("Closing a gaming day is for accountants."))
    default = current_gaming_day() - dt.timedelta(days=1)
    form = CloseForm(request.POST or request.GET or None, initial={"gaming_day": default})
    day = form.cleaned_data["gaming_day"] if form.is_valid() else default
    if request.method == "POST" and form.is_valid():
        try:
            services.gaming_day_close(gaming_day=day, user=request.user, note=form.cleaned_data["note"])
        except SERVICE_ERRORS as exc:
            messages.error(request, _("Not closed: %(error_text)s") % {"error_text": error_text(exc)})
        else:
            messages.success(request, _("Gaming day %(day)s closed.") % {"day": day})
        return HttpResponseRedirect(f"{reverse('day-close')}?gaming_day={day.isoformat()}")
    blockers = services.day_close_blockers(gaming_day=day)
    context = {
        **admin.site.each_context(request),
        "title": _("Closing gaming day %(day)s") % {"day": day},
        "day": day,
        "closed": day_is_closed(day),
        "blockers": blockers,
        "pending": day_pending(gaming_day=day),
        "form": CloseForm(initial={"gaming_day": day}),
    }
    return TemplateResponse(request, "admin/accounting/day_close.html", context)


# ------------------------------------------------------------------------------------ investigations


def _staff():
    return get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")


class InvestigationForm(forms.ModelForm):
    class Meta:
        model = VarianceInvestigation
        fields = ("reconciliation", "hold_flag", "title", "assignee", "due_on", "conclusion")
        widgets = {"due_on": forms.DateInput(attrs={"type": "date"})}

    close = forms.BooleanField(required=False, label=_("Close with this conclusion"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        choices = {
            "reconciliation": Reconciliation.objects.filter(
                status__in=(ReconciliationStatus.VARIANCE, ReconciliationStatus.EXPLAINED)
            ).select_related("shoe__table"),
            "hold_flag": HoldFlag.objects.select_related("table"),
            "assignee": _staff(),
        }
        for name, queryset in choices.items():
            field = self.fields.get(name)
            if isinstance(field, forms.ModelChoiceField):
                field.queryset = queryset


class AttachmentForm(forms.ModelForm):
    class Meta:
        model = InvestigationAttachment
        fields = ("file", "description")


class AttachmentInline(admin.TabularInline):
    model = InvestigationAttachment
    form = AttachmentForm
    extra = 1
    can_delete = False
    fields = ("file", "description", "link", "uploaded_by", "uploaded_at")
    readonly_fields = ("link", "uploaded_by", "uploaded_at")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(READ_PERMISSION)

    def has_add_permission(self, request, obj=None):
        return request.user.has_perm(INVESTIGATE_PERMISSION)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("download"))
    def link(self, attachment):
        if not attachment.pk:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("investigation-file", args=[attachment.pk]), attachment)


@admin.register(VarianceInvestigation)
class VarianceInvestigationAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    form = InvestigationForm
    inlines = [AttachmentInline]
    list_display = ("id", "title", "variance", "assignee", "due_on", "overdue", "status", "files")
    list_filter = ("status", "assignee")
    list_select_related = ("assignee", "reconciliation__shoe__table", "hold_flag__table")
    search_fields = ("title", "conclusion")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(READ_PERMISSION)

    def has_module_permission(self, request):
        return self.has_view_permission(request)

    def has_add_permission(self, request):
        return request.user.has_perm(INVESTIGATE_PERMISSION)

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.status != InvestigationStatus.OPEN:
            return False
        return request.user.has_perm(INVESTIGATE_PERMISSION)

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("attachments")

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("reconciliation", "hold_flag", "title", "assignee", "due_on")
        return ("variance", "title", "assignee", "due_on", "status", "conclusion", "close", "opened_by", "opened_at")

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        fixed = ("variance", "title", "status", "opened_by", "opened_at")
        if obj.status != InvestigationStatus.OPEN or not self.has_change_permission(request, obj):
            return (*fixed, "assignee", "due_on", "conclusion", "closed_at")
        return fixed

    @admin.display(description=_("variance"))
    def variance(self, investigation):
        return admin_link(investigation.reconciliation or investigation.hold_flag)

    @admin.display(description=_("overdue"), boolean=True)
    def overdue(self, investigation):
        return investigation.status == InvestigationStatus.OPEN and investigation.due_on < timezone.localdate()

    @admin.display(description=_("files"))
    def files(self, investigation):
        return (
            format_html_join(
                ", ",
                '<a href="{}">{}</a>',
                ((reverse("investigation-file", args=[file.pk]), file) for file in investigation.attachments.all()),
            )
            or "—"
        )

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        if not change:
            opened = investigations.investigation_open(
                title=data["title"],
                assignee=data["assignee"],
                due_on=data["due_on"],
                opened_by=request.user,
                reconciliation=data.get("reconciliation"),
                hold_flag=data.get("hold_flag"),
            )
            obj.pk, obj.opened_by, obj.opened_at = opened.pk, opened.opened_by, opened.opened_at
            return
        investigations.investigation_update(investigation=obj, assignee=data["assignee"], due_on=data["due_on"])
        if data.get("close"):
            investigations.investigation_close(investigation=obj, conclusion=data.get("conclusion", ""))

    def save_formset(self, request, form, formset, change):
        # The change message reads these (Django's own save() sets them).
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        for attachment_form in formset.forms:
            if attachment_form.has_changed() and attachment_form.cleaned_data.get("file"):
                added = investigations.attachment_add(
                    investigation=form.instance,
                    file=attachment_form.cleaned_data["file"],
                    description=attachment_form.cleaned_data.get("description", ""),
                    user=request.user,
                )
                formset.new_objects.append(added)


def investigation_read_allowed(request) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(READ_PERMISSION)


def attachment_view(request, pk: int):
    """An attachment's file, to who may read investigations (the media root is not served)."""
    if not investigation_read_allowed(request):
        raise PermissionDenied(_("Investigations are read by the accounting roles."))
    attachment = get_object_or_404(InvestigationAttachment, pk=pk)
    return FileResponse(
        attachment.file.open("rb"), as_attachment=True, filename=(attachment.file.name or "").rsplit("/", 1)[-1]
    )


page_link_register(
    PageLink(
        "day_close",
        _("Close the day"),
        _("The day-close checklist: what blocks the close, what is pending; then Close."),
        url=lambda: reverse("day-close"),
        allowed=day_close_allowed,
        position=60,
    )
)
view_check_register("investigation-file", investigation_read_allowed)
