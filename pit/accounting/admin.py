"""Table accounting in the back-office: every fact is read-only once recorded; "add" records a new
fact through its service (a count, a slip, a slip's step, a drop), for the roles that may:

- pit bosses record openers and closers, request fills and credits, and sign for them at the table;
- the cage issues fills and credits; accountants enter the soft count; auditors read everything.

A refusal from a service shows on the form, nothing is written.
"""

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from pit.core.actors import Actor
from pit.core.admin_site import (
    SERVICE_ERRORS,
    ReadOnlyInline,
    error_text,
    gaming_day_filter,
    model_page_link,
    money_html,
)
from pit.core.forms import MoneyField, money_minor
from pit.core.gaming_day import current_gaming_day
from pit.core.money import MoneyError, format_money, parse_amount, to_minor
from pit.tables.models import Table

from . import duties, selectors, services
from .models import (
    Adjustment,
    DayAction,
    DeviceGrant,
    DropCount,
    Figure,
    GamingDayEvent,
    HoldFinding,
    HoldFlag,
    InventoryCount,
    Slip,
    SlipBook,
    SlipKind,
    SlipStep,
    SlipStepKind,
    SlipVoid,
)


def chips_text(chips: dict, currency: str) -> str:
    return ", ".join(f"{format_money(int(key), currency)} x {pieces}" for key, pieces in chips.items()) or "—"


class ChipsField(forms.CharField):
    """Pieces per denomination, one per line or comma-separated: "25.00 x 40, 100 x 30"."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 40})

    def clean(self, value):
        text = super().clean(value)
        chips: dict[str, str] = {}
        for part in text.replace("\n", ",").split(","):
            if not part.strip():
                continue
            denomination, _by, pieces = part.lower().replace("×", "x").partition("x")
            if not pieces.strip().isdigit():
                raise forms.ValidationError(
                    _("Write each line as 'denomination x pieces', e.g. 25.00 x 40: %(part)s.") % {"part": repr(part)}
                )
            chips[denomination.strip().lstrip("$")] = pieces.strip()
        if not chips:
            raise forms.ValidationError(_("Count at least one denomination."))
        return chips


def chips_minor(chips: dict[str, str], currency: str) -> dict[str, int]:
    """The form's {"25.00": "40"} in minor units for the services; a bad amount is a form error."""
    converted: dict[str, int] = {}
    for denomination, pieces in chips.items():
        try:
            minor = to_minor(parse_amount(denomination, currency), currency)
        except MoneyError:
            raise forms.ValidationError(
                _("%(denomination)s is not a denomination in %(currency)s.")
                % {"denomination": repr(denomination), "currency": currency}
            ) from None
        converted[str(minor)] = converted.get(str(minor), 0) + int(pieces)
    return converted


def _staff():
    return get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")


class PeriodForm(forms.Form):
    gaming_day = forms.DateField(
        initial=current_gaming_day, widget=forms.DateInput(attrs={"type": "date"}), label=_("Gaming day")
    )
    shift = forms.IntegerField(
        min_value=1, max_value=3, initial=1, help_text=_("1 unless shifts are shorter than 24 h."), label=_("Shift")
    )


class InventoryForm(PeriodForm):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("code"), to_field_name="code", label=_("Table"))
    kind = forms.ChoiceField(choices=[("opener", _("Opener")), ("closer", _("Closer"))], label=_("Kind"))
    chips = ChipsField(help_text=_("Pieces per denomination: 25.00 x 40, 100.00 x 30"), label=_("Chips"))
    dealer = forms.ModelChoiceField(queryset=_staff(), to_field_name="username", label=_("Dealer"))
    dealer_password = forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        strip=False,
        help_text=_("The dealer signs here with their own password (not needed if you are the dealer)."),
        label=_("Dealer password"),
    )
    pit_boss = forms.ModelChoiceField(queryset=_staff(), to_field_name="username", label=_("Pit boss"))
    pit_boss_password = forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        strip=False,
        help_text=_("Only if the pit boss is not you: they sign here with their own password."),
        label=_("Pit boss password"),
    )
    field_order = ["table", "gaming_day", "shift", "kind", "chips", "dealer", "dealer_password", "pit_boss"]


class SlipForm(PeriodForm):
    kind = forms.ChoiceField(choices=SlipKind.choices, label=_("Kind"))
    number = forms.CharField(max_length=30, help_text=_("The slip number printed on the form."), label=_("Number"))
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("code"), to_field_name="code", label=_("Table"))
    reason = forms.CharField(max_length=200, label=_("Reason"))
    chips = ChipsField(help_text=_("Pieces per denomination: 25.00 x 40, 100.00 x 30"), label=_("Chips"))
    field_order = ["kind", "number", "table", "gaming_day", "shift", "reason", "chips"]


class SlipStepForm(forms.Form):
    slip = forms.ModelChoiceField(queryset=Slip.objects.select_related("table").order_by("-id"), label=_("Slip"))
    step = forms.ChoiceField(choices=SlipStepKind.choices, label=_("Step"))
    chips = ChipsField(help_text=_("What you counted: 25.00 x 40, 100.00 x 30"), label=_("Chips"))


class DropForm(PeriodForm):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("code"), to_field_name="code", label=_("Table"))
    cash = ChipsField(help_text=_("Notes per denomination: 100 x 52, 20 x 5"), label=_("Cash"))
    chips = MoneyField(
        min_value=0, initial=0, help_text=_("Chips found in the box, in the table's currency."), label=_("Chips")
    )
    markers = MoneyField(
        min_value=0, initial=0, help_text=_("Markers in the box, if any, in the table's currency."), label=_("Markers")
    )
    field_order = ["table", "gaming_day", "shift", "cash", "chips", "markers"]


def form_errors(form: forms.Form, error: Exception) -> None:
    """A refusal shown on the form: each field's message on its field when the form has it (a
    signer's password, the chips), the rest above the form."""
    if isinstance(error, forms.ValidationError) and hasattr(error, "error_dict"):
        for field, messages_ in error.message_dict.items():
            if field in form.fields:
                form.add_error(field, messages_)
            else:
                form.add_error(None, [f"{field}: {message}" for message in messages_])
        return
    form.add_error(None, error_text(error) if not isinstance(error, forms.ValidationError) else error)


class RecordAdmin(admin.ModelAdmin):
    """Read-only facts; the add page records one through the subclass's `record(request, data)`, a
    service call returning the recorded row (each admin below defines it)."""

    record_permissions: tuple[str, ...] = ()
    form_class = forms.Form
    help: str | Promise = ""
    submit_label: str | Promise = "Record"

    def has_add_permission(self, request, obj=None):
        return any(request.user.has_perm(perm) for perm in self.record_permissions)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_record_form(self, request, data=None):
        return self.form_class(data)

    # Records one fact from the form's cleaned data and returns its row: each admin below defines it.
    record: Callable[[HttpRequest, dict[str, Any]], models.Model]

    def add_view(self, request, form_url="", extra_context=None):
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = self.get_record_form(request, request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                recorded = self.record(request, form.cleaned_data)
            except SERVICE_ERRORS as error:
                form_errors(form, error)
            else:
                self.message_user(request, _("Recorded: %(recorded)s.") % {"recorded": recorded}, messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[recorded.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "form": form,
            "help": self.help,
            "title": _("Record %(what)s") % {"what": self.opts.verbose_name},
            "submit_label": self.submit_label,
        }
        return TemplateResponse(request, "admin/accounting/record_form.html", context)


@admin.register(InventoryCount)
class InventoryCountAdmin(RecordAdmin):
    record_permissions = ("accounting.record_inventorycount",)
    form_class = InventoryForm
    help = _(
        "The chip tray counted by denomination at the opening or closing of the table, signed by two people: "
        "you from your login, the other by their password here."
    )
    list_display = ("gaming_day", "table", "shift", "kind", "total", "dealer", "pit_boss", "recorded_at")
    list_filter = (gaming_day_filter(day_field="gaming_day"), "table", "kind")
    list_select_related = ("table", "dealer", "pit_boss")
    date_hierarchy = "gaming_day"
    fields = (
        "table",
        "gaming_day",
        "shift",
        "kind",
        "chips_counted",
        "total",
        "dealer",
        "pit_boss",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields

    @admin.display(description=_("total"), ordering="total_minor")
    def total(self, count):
        return money_html(count.total_minor, count.currency)

    @admin.display(description=_("chips"))
    def chips_counted(self, count):
        return chips_text(count.chips, count.currency)

    def get_record_form(self, request, data=None):
        form = super().get_record_form(request, data)
        form.fields["pit_boss"].initial = request.user.get_username()  # signs from their own session
        return form

    def record(self, request, data):
        table = data["table"]
        return services.inventory_record(
            table=table,
            gaming_day=data["gaming_day"],
            shift=data["shift"],
            kind=data["kind"],
            chips=chips_minor(data["chips"], table.currency),
            dealer=data["dealer"],
            pit_boss=data["pit_boss"],
            actor=Actor(user=request.user),
            secrets={"dealer": data["dealer_password"], "pit_boss": data["pit_boss_password"]},
        )


class SlipStepInline(ReadOnlyInline):
    model = SlipStep
    fields = ("step", "chips_counted", "total", "signed_by", "recorded_at", "recorded_by")
    readonly_fields = fields

    @admin.display(description=_("chips"))
    def chips_counted(self, step):
        return chips_text(step.chips, step.slip.currency)

    @admin.display(description=_("total"))
    def total(self, step):
        return money_html(step.total_minor, step.slip.currency)


@admin.register(Slip)
class SlipAdmin(RecordAdmin):
    record_permissions = ("accounting.request_slip",)
    form_class = SlipForm
    help = _("The pit asks the cage for chips (a fill) or sends chips back (a credit).")
    submit_label = _("Request")
    list_display = ("number", "kind", "table", "gaming_day", "shift", "total", "reason", "state", "recorded_by")
    list_filter = (gaming_day_filter(day_field="gaming_day"), "kind", "table")
    list_select_related = ("table", "recorded_by_user", "recorded_by_device__table")
    search_fields = ("number", "reason")
    date_hierarchy = "gaming_day"
    inlines = [SlipStepInline]
    fields = (
        "kind",
        "number",
        "table",
        "gaming_day",
        "shift",
        "reason",
        "chips_requested",
        "total",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("steps")

    @admin.display(description=_("total"), ordering="total_minor")
    def total(self, slip):
        return money_html(slip.total_minor, slip.currency)

    @admin.display(description=_("chips"))
    def chips_requested(self, slip):
        return chips_text(slip.chips, slip.currency)

    @admin.display(description=_("state"))
    def state(self, slip):
        steps = {step.step for step in slip.steps.all()}
        return "received" if "received" in steps else "issued" if "issued" in steps else "requested"

    def record(self, request, data):
        table = data["table"]
        return services.slip_request(
            kind=data["kind"],
            number=data["number"],
            table=table,
            gaming_day=data["gaming_day"],
            shift=data["shift"],
            reason=data["reason"],
            chips=chips_minor(data["chips"], table.currency),
            actor=Actor(user=request.user),
        )


_STEP_PERMISSIONS: dict[str, str] = {
    SlipStepKind.ISSUED: "accounting.issue_slip",
    SlipStepKind.RECEIVED: "accounting.receive_slip",
}


@admin.register(SlipStep)
class SlipStepAdmin(RecordAdmin):
    record_permissions = tuple(_STEP_PERMISSIONS.values())
    form_class = SlipStepForm
    help = _("The cage issues a slip's chips; the table signs for them when they arrive. Count what you sign for.")
    submit_label = _("Sign")
    list_display = ("slip", "step", "total", "signed_by", "recorded_at", "recorded_by")
    list_filter = ("step", "slip__kind", "slip__table")
    list_select_related = ("slip__table", "signed_by", "recorded_by_user", "recorded_by_device__table")
    search_fields = ("slip__number",)
    fields = ("slip", "step", "chips_counted", "total", "signed_by", "recorded_at", "recorded_by")
    readonly_fields = fields

    @admin.display(description=_("total"), ordering="total_minor")
    def total(self, step):
        return money_html(step.total_minor, step.slip.currency)

    @admin.display(description=_("chips"))
    def chips_counted(self, step):
        return chips_text(step.chips, step.slip.currency)

    def get_record_form(self, request, data=None):
        form = super().get_record_form(request, data)
        form.fields["step"].choices = [
            (step, label) for step, label in SlipStepKind.choices if request.user.has_perm(_STEP_PERMISSIONS[step])
        ]
        return form

    def record(self, request, data):
        slip = data["slip"]
        service = services.slip_issue if data["step"] == SlipStepKind.ISSUED else services.slip_receive
        return service(
            slip=slip,
            chips=chips_minor(data["chips"], slip.currency),
            actor=Actor(user=request.user),
            signed_by=request.user,
        )


@admin.register(DropCount)
class DropCountAdmin(RecordAdmin):
    record_permissions = ("accounting.record_dropcount",)
    form_class = DropForm
    help = _("The soft count of a table's drop box: notes by denomination, chips and markers found in it.")
    list_display = ("gaming_day", "table", "shift", "cash", "chips", "markers", "total", "recorded_by")
    list_filter = (gaming_day_filter(day_field="gaming_day"), "table")
    list_select_related = ("table", "recorded_by_user", "recorded_by_device__table")
    date_hierarchy = "gaming_day"
    fields = (
        "table",
        "gaming_day",
        "shift",
        "notes",
        "cash",
        "chips",
        "markers",
        "total",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields

    @admin.display(description=_("notes"))
    def notes(self, drop):
        return chips_text(drop.cash, drop.currency)

    @admin.display(description=_("cash"), ordering="cash_minor")
    def cash(self, drop):
        return money_html(drop.cash_minor, drop.currency)

    @admin.display(description=_("chips"))
    def chips(self, drop):
        return money_html(drop.chips_minor, drop.currency)

    @admin.display(description=_("markers"))
    def markers(self, drop):
        return money_html(drop.markers_minor, drop.currency)

    @admin.display(description=_("total"), ordering="total_minor")
    def total(self, drop):
        return money_html(drop.total_minor, drop.currency)

    def record(self, request, data):
        table = data["table"]
        amounts = {name: money_minor(data[name], table.currency, name) for name in ("chips", "markers")}
        return services.drop_record(
            table=table,
            gaming_day=data["gaming_day"],
            shift=data["shift"],
            cash=chips_minor(data["cash"], table.currency),
            chips_minor=amounts["chips"],
            markers_minor=amounts["markers"],
            actor=Actor(user=request.user),
        )


class FindingForm(forms.Form):
    flag = forms.ModelChoiceField(
        queryset=HoldFlag.objects.select_related("table").order_by("-gaming_day"), label=_("Flag")
    )
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "cols": 70}), label=_("Finding"))


class DayForm(forms.Form):
    gaming_day = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), label=_("Gaming day"))
    action = forms.ChoiceField(
        choices=[("closed", _("Close the day")), ("reopened", _("Re-open the day"))], label=_("Action")
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        required=False,
        help_text=_("Required to re-open: why."),
        label=_("Note"),
    )


class AdjustmentForm(PeriodForm):
    table = forms.ModelChoiceField(queryset=Table.objects.order_by("code"), to_field_name="code", label=_("Table"))
    figure = forms.ChoiceField(choices=Figure.choices, label=_("Figure"))
    amount = MoneyField(
        help_text=_("In the table's currency, added to the figure; negative to take off."), label=_("Amount")
    )
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 70}), label=_("Reason"))
    field_order = ["table", "gaming_day", "shift", "figure", "amount", "reason"]


class HoldFindingInline(ReadOnlyInline):
    model = HoldFinding
    fields = ("text", "written_by", "written_at")
    readonly_fields = fields


@admin.register(HoldFlag)
class HoldFlagAdmin(admin.ModelAdmin):
    """Table-days whose win-to-drop the investigation rule flagged; findings are written on HoldFinding."""

    list_display = (
        "gaming_day",
        "table",
        "hold_percent",
        "low_percent",
        "high_percent",
        "win",
        "drop",
        "rule",
        "explained",
    )
    list_filter = (gaming_day_filter(day_field="gaming_day"), "table")
    list_select_related = ("table",)
    inlines = [HoldFindingInline]
    fields = ("table", "gaming_day", "rule", "hold_percent", "low_percent", "high_percent", "win", "drop", "flagged_at")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("findings")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("win"))
    def win(self, flag):
        return money_html(flag.win_minor, flag.currency)

    @admin.display(description=_("drop"))
    def drop(self, flag):
        return money_html(flag.drop_minor, flag.currency)

    @admin.display(description=_("finding written"), boolean=True)
    def explained(self, flag):
        return bool(flag.findings.all())


@admin.register(HoldFinding)
class HoldFindingAdmin(RecordAdmin):
    record_permissions = ("accounting.investigate_holdflag",)
    form_class = FindingForm
    help = _("What the investigation of a flagged win-to-drop found: it stays on record with your name and the time.")
    list_display = ("flag", "written_by", "written_at")
    list_select_related = ("flag__table", "written_by")
    fields = ("flag", "text", "written_by", "written_at")
    readonly_fields = fields

    def record(self, request, data):
        return services.hold_finding_write(flag=data["flag"], text=data["text"], user=request.user)


@admin.register(GamingDayEvent)
class GamingDayEventAdmin(RecordAdmin):
    """Closing and re-opening gaming days: the list is their audit trail (who, when, why)."""

    record_permissions = ("accounting.close_gamingday",)
    form_class = DayForm
    help = _(
        "A day closes once every shoe is closed and reconciled, every variance explained and every table's "
        "opener, closer, fills, credits and drop recorded. A closed day is locked: later changes are adjustments."
    )
    submit_label = _("Record")
    list_display = ("gaming_day", "action", "by", "at", "note")
    list_filter = ("action",)
    list_select_related = ("by",)
    fields = ("gaming_day", "action", "note", "by", "at")
    readonly_fields = fields

    def record(self, request, data):
        if data["action"] == DayAction.CLOSED:
            return services.gaming_day_close(gaming_day=data["gaming_day"], user=request.user, note=data["note"])
        return services.gaming_day_reopen(gaming_day=data["gaming_day"], user=request.user, note=data["note"])


@admin.register(Adjustment)
class AdjustmentAdmin(RecordAdmin):
    record_permissions = ("accounting.record_adjustment",)
    form_class = AdjustmentForm
    help = _("A change to a figure of a closed gaming day, with its reason; the master game report lists it.")
    list_display = ("gaming_day", "table", "figure", "amount", "reason", "recorded_by", "recorded_at")
    list_filter = (gaming_day_filter(day_field="gaming_day"), "table", "figure")
    list_select_related = ("table", "recorded_by_user", "recorded_by_device__table")
    fields = ("table", "gaming_day", "shift", "figure", "amount", "reason", "recorded_at", "recorded_by")
    readonly_fields = fields

    @admin.display(description=_("amount"), ordering="amount_minor")
    def amount(self, adjustment):
        return money_html(adjustment.amount_minor, adjustment.currency)

    def record(self, request, data):
        table = data["table"]
        amount = money_minor(data["amount"], table.currency, "amount")
        return services.adjustment_record(
            table=table,
            gaming_day=data["gaming_day"],
            shift=data["shift"],
            figure=data["figure"],
            amount_minor=amount,
            reason=data["reason"],
            actor=Actor(user=request.user),
        )


@admin.register(DeviceGrant)
class DeviceGrantAdmin(admin.ModelAdmin):
    """Superusers grant a device the cage or count-room scope; nobody edits a grant."""

    list_display = ("device", "scope", "granted_at")
    list_select_related = ("device__table",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


from . import admin_accountant  # noqa: E402, F401  (the accountant's checklist and investigations, kept apart)


# ---------------------------------------------------------------------------------------- the slip series
class SlipBookForm(forms.Form):
    first = forms.IntegerField(label=_("First number"), min_value=1)
    last = forms.IntegerField(label=_("Last number"), min_value=1)
    note = forms.CharField(label=_("Note"), required=False, max_length=200)


class SlipVoidForm(forms.Form):
    number = forms.IntegerField(label=_("Slip number"), min_value=1)
    reason = forms.CharField(label=_("Reason"), max_length=200)
    witness = forms.ModelChoiceField(
        label=_("Witness"), queryset=get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")
    )
    witness_password = forms.CharField(
        label=_("Witness's password"),
        widget=forms.PasswordInput,
        required=False,
        help_text=_("The witness signs here, or from their own login."),
    )


@admin.register(SlipBook)
class SlipBookAdmin(RecordAdmin):
    record_permissions = ("accounting.keep_slipbook",)
    form_class = SlipBookForm
    help = _(
        "A book of pre-numbered fill and credit slips from the printer. Fills and credits share the one series; "
        "once a book is recorded every new slip takes one of its numbers."
    )
    list_display = ("__str__", "first", "last", "received_at", "used", "voided", "unused", "gaps", "recorded_by")
    fields = ("first", "last", "received_at", "note", "recorded_at", "recorded_by")
    readonly_fields = fields

    def changelist_view(self, request, extra_context=None):
        self._states = {state.book.pk: state for state in selectors.slip_series()}
        return super().changelist_view(request, extra_context)

    def _state(self, book):
        states = getattr(self, "_states", None) or {state.book.pk: state for state in selectors.slip_series()}
        return states.get(book.pk)

    @admin.display(description=_("used"))
    def used(self, book):
        return len(self._state(book).used)

    @admin.display(description=_("voided"))
    def voided(self, book):
        return len(self._state(book).voided)

    @admin.display(description=_("unused"))
    def unused(self, book):
        return ", ".join(f"{first}-{last}" if last > first else str(first) for first, last in self._state(book).unused)

    @admin.display(description=_("gaps"))
    def gaps(self, book):
        return ", ".join(str(gap.number) for gap in self._state(book).gaps) or "—"

    def record(self, request, data):
        return services.slip_book_record(
            first=data["first"], last=data["last"], note=data["note"], actor=Actor(user=request.user)
        )


@admin.register(SlipVoid)
class SlipVoidAdmin(RecordAdmin):
    record_permissions = ("accounting.keep_slipbook",)
    form_class = SlipVoidForm
    help = _("A slip form spoiled or cancelled: its number is voided with the reason and a witness.")
    list_display = ("number", "book", "reason", "witness", "recorded_at", "recorded_by")
    list_select_related = ("book", "witness", "recorded_by_user", "recorded_by_device__table")
    search_fields = ("reason",)
    fields = ("number", "book", "reason", "witness", "recorded_at", "recorded_by")
    readonly_fields = fields

    def record(self, request, data):
        actor = Actor(user=request.user)
        duties.signature_check(
            field="witness",
            signer=data["witness"],
            role="witness",
            actor=actor,
            secrets={"witness": data.get("witness_password") or ""},
        )
        return services.slip_number_void(
            number=data["number"], reason=data["reason"], witness=data["witness"], actor=actor
        )


model_page_link(
    "slip_series",
    _("Slip series"),
    _("Fill and credit slip books: every number used, voided or unused; gaps."),
    "accounting.SlipBook",
    position=75,
)
