"""Progressive meters in the back-office: every row is read-only once recorded; "add" files or records
through the services, for the roles that may:

- accountants file a meter and supersede its configuration (from now on, never backdated);
- pit bosses record a hit's payout, signed by them and a second person (the cage's cashier), who
  signs by their password here; the meter resets to its filed reset amount;
- the meters' list shows each as it stands (computed from the recorded wagers).

A refusal from a service shows on the form, nothing is written.
"""

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.actors import Actor
from pit.core.admin_site import SERVICE_ERRORS, ReadOnlyInline, error_text, model_page_link, money_html
from pit.core.forms import MoneyField
from pit.shoes.models import Coup
from pit.tables.models import Table

from . import services
from .models import BankTable, Meter, MeterConfiguration, MeterPayout, MeterReading
from .selectors import meter_figures


class RateField(forms.CharField):
    """The rate of progression, a share typed as a decimal (0.05 is 5%): not money, so not a MoneyField."""

    def clean(self, value):
        text = super().clean(value)
        try:
            rate = Decimal(text.strip())
        except InvalidOperation:
            raise forms.ValidationError(gettext("A decimal share, e.g. 0.05 for 5%.")) from None
        return rate


def _staff():
    return get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")


class MeterForm(forms.Form):
    code = forms.SlugField(max_length=20, label=_("code"))
    name = forms.CharField(max_length=80, label=_("name"))
    bet = forms.CharField(max_length=20, label=_("bet"), help_text=_("The paytable's bet key, e.g. player_pair."))
    currency = forms.CharField(max_length=3, initial="USD", label=_("currency"))
    effective_from = forms.DateTimeField(initial=timezone.now, label=_("effective from"))
    base = MoneyField(min_value=0, label=_("base amount"))
    reset = MoneyField(min_value=0, label=_("reset amount"))
    rate = RateField(
        max_length=12,
        label=_("rate of progression"),
        # xgettext:no-python-format (a percent sign, no placeholder)
        help_text=_("0.05 is 5% of each stake."),
    )
    tables = forms.ModelMultipleChoiceField(queryset=Table.objects.order_by("code"), label=_("bank"))
    filing_reference = forms.CharField(max_length=80, label=_("filing reference"))


class ConfigurationForm(forms.Form):
    meter = forms.ModelChoiceField(queryset=Meter.objects.order_by("code"), to_field_name="code", label=_("meter"))
    effective_from = forms.DateTimeField(initial=timezone.now, label=_("effective from"))
    reset = MoneyField(min_value=0, label=_("reset amount"))
    rate = RateField(
        max_length=12,
        label=_("rate of progression"),
        # xgettext:no-python-format (a percent sign, no placeholder)
        help_text=_("0.05 is 5% of each stake."),
    )
    tables = forms.ModelMultipleChoiceField(queryset=Table.objects.order_by("code"), label=_("bank"))
    filing_reference = forms.CharField(max_length=80, label=_("filing reference"))


class PayoutForm(forms.Form):
    meter = forms.ModelChoiceField(queryset=Meter.objects.order_by("code"), to_field_name="code", label=_("meter"))
    coup = forms.IntegerField(min_value=1, label=_("coup"), help_text=_("The winning coup's id (its admin page)."))
    seat = forms.IntegerField(min_value=1, max_value=99, label=_("seat"))
    paid_by = forms.ModelChoiceField(queryset=_staff(), to_field_name="username", label=_("pit boss"))
    paid_by_password = forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        strip=False,
        label=_("pit boss's password"),
        help_text=_("Only if the pit boss is not you."),
    )
    witnessed_by = forms.ModelChoiceField(queryset=_staff(), to_field_name="username", label=_("second signer"))
    witnessed_by_password = forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        strip=False,
        label=_("second signer's password"),
        help_text=_("The second signer enters their own password here."),
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label=_("note"))


def _form_errors(form: forms.Form, error: Exception) -> None:
    if isinstance(error, forms.ValidationError) and hasattr(error, "error_dict"):
        for field, texts in error.message_dict.items():
            form.add_error(field if field in form.fields else None, texts)
        return
    form.add_error(None, error_text(error))


class RecordAdmin(admin.ModelAdmin):
    """Read-only rows; the add page records one through `record(request, data)` (a service call)."""

    record_permissions: tuple[str, ...] = ()
    form_class: type[forms.Form] = forms.Form
    help: Any = ""
    submit_label: Any = _("Record")
    record: Callable[[HttpRequest, dict[str, Any]], models.Model]

    def has_add_permission(self, request, obj=None):
        return bool(self.record_permissions) and any(request.user.has_perm(p) for p in self.record_permissions)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_record_form(self, request, data=None):
        return self.form_class(data)

    def add_view(self, request, form_url="", extra_context=None):
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = self.get_record_form(request, request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                recorded = self.record(request, form.cleaned_data)
            except SERVICE_ERRORS as error:
                _form_errors(form, error)
            else:
                self.message_user(request, gettext("Recorded: %(row)s.") % {"row": recorded}, messages.SUCCESS)
                return HttpResponseRedirect(
                    reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[recorded.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "form": form,
            "help": self.help,
            "title": gettext("Record %(what)s") % {"what": self.opts.verbose_name},
            "submit_label": self.submit_label,
        }
        return TemplateResponse(request, "admin/accounting/record_form.html", context)


class BankInline(ReadOnlyInline):
    model = BankTable
    fields = ("table",)
    readonly_fields = fields


class ConfigurationInline(ReadOnlyInline):
    model = MeterConfiguration
    fields = ("version", "effective_from", "base_minor", "reset_minor", "rate", "filing_reference", "recorded_at")
    readonly_fields = fields


@admin.register(Meter)
class MeterAdmin(RecordAdmin):
    record_permissions = ("progressives.file_meterconfiguration",)
    form_class = MeterForm
    help = _(
        "A new progressive meter: the bet that feeds it, its bank of tables and its filed base, reset and rate. "
        "Its wagers feed it from the moment it takes effect; the filing is never edited, only superseded."
    )
    submit_label = _("File")
    list_display = ("code", "name", "bet", "currency", "amount", "payouts")
    search_fields = ("code", "name", "bet")
    list_filter = ("bet", "currency")
    fields = ("code", "name", "bet", "currency", "amount", "contributions", "carried", "recorded_at")
    readonly_fields = fields
    inlines = (ConfigurationInline,)

    @admin.display(description=_("meter (now)"))
    def amount(self, meter):
        if not meter.configurations.exists():
            return "-"
        return money_html(meter_figures(meter).amount_minor, meter.currency)

    @admin.display(description=_("contributions"))
    def contributions(self, meter):
        return money_html(int(meter_figures(meter).contributions), meter.currency)

    @admin.display(description=_("carried (corrections, voids)"))
    def carried(self, meter):
        return money_html(int(meter_figures(meter).carried), meter.currency)

    @admin.display(description=_("hits paid"))
    def payouts(self, meter):
        return meter.payouts.count()

    def record(self, request, data):
        return services.meter_file(
            code=data["code"],
            name=data["name"],
            bet=data["bet"],
            currency=data["currency"].upper(),
            effective_from=data["effective_from"],
            base=data["base"],
            reset=data["reset"],
            rate=data["rate"],
            tables=list(data["tables"]),
            filing_reference=data["filing_reference"],
            actor=Actor(user=request.user),
        )


@admin.register(MeterConfiguration)
class MeterConfigurationAdmin(RecordAdmin):
    record_permissions = ("progressives.file_meterconfiguration",)
    form_class = ConfigurationForm
    help = _(
        "A new filed configuration of a meter, in force from the moment given (now or later, never before): "
        "its reset amount, rate and bank. The base stays the first filing's."
    )
    submit_label = _("File")
    list_display = ("meter", "version", "effective_from", "base", "reset", "rate", "filing_reference")
    list_filter = ("meter",)
    list_select_related = ("meter",)
    fields = (
        "meter",
        "version",
        "effective_from",
        "base",
        "reset",
        "rate",
        "filing_reference",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields
    inlines = (BankInline,)

    @admin.display(description=_("base amount"))
    def base(self, configuration):
        return money_html(configuration.base_minor, configuration.meter.currency)

    @admin.display(description=_("reset amount"))
    def reset(self, configuration):
        return money_html(configuration.reset_minor, configuration.meter.currency)

    def record(self, request, data):
        return services.meter_configuration_file(
            meter=data["meter"],
            effective_from=data["effective_from"],
            reset=data["reset"],
            rate=data["rate"],
            tables=list(data["tables"]),
            filing_reference=data["filing_reference"],
            actor=Actor(user=request.user),
        )


@admin.register(MeterPayout)
class MeterPayoutAdmin(RecordAdmin):
    record_permissions = ("progressives.pay_meterpayout",)
    form_class = PayoutForm
    help = _(
        "A progressive hit paid: the meter as it stands to the winning wager on its bet at the seat of a coup "
        "of its bank, signed by the pit boss and a second person (the cage's cashier) by their password here. "
        "The meter resets to its filed reset amount."
    )
    submit_label = _("Pay and reset")
    list_display = ("meter", "coup_id", "table", "seat", "amount", "paid_by", "witnessed_by", "recorded_at")
    list_filter = ("meter", "table")
    list_select_related = ("meter", "table", "paid_by", "witnessed_by")
    date_hierarchy = "recorded_at"
    fields = (
        "meter",
        "coup_id",
        "table",
        "seat",
        "amount",
        "reset",
        "paid_by",
        "witnessed_by",
        "note",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields

    @admin.display(description=_("amount paid"), ordering="amount_minor")
    def amount(self, payout):
        return money_html(payout.amount_minor, payout.meter.currency)

    @admin.display(description=_("reset amount"))
    def reset(self, payout):
        return money_html(payout.reset_minor, payout.meter.currency)

    def get_record_form(self, request, data=None):
        form = super().get_record_form(request, data)
        form.fields["paid_by"].initial = request.user.get_username()  # signs from their own session
        return form

    def record(self, request, data):
        coup = Coup.objects.select_related("shoe").filter(pk=data["coup"]).first()
        if coup is None:
            raise forms.ValidationError({"coup": gettext("There is no coup %(id)s.") % {"id": data["coup"]}})
        return services.meter_payout_record(
            meter=data["meter"],
            coup=coup,
            seat=data["seat"],
            paid_by=data["paid_by"],
            witnessed_by=data["witnessed_by"],
            note=data["note"],
            actor=Actor(user=request.user),
            secrets={"paid_by": data["paid_by_password"], "witnessed_by": data["witnessed_by_password"]},
        )


@admin.register(MeterReading)
class MeterReadingAdmin(RecordAdmin):
    list_display = ("meter", "amount", "contributions", "carried", "payout", "recorded_at")
    list_filter = ("meter",)
    list_select_related = ("meter",)
    date_hierarchy = "recorded_at"
    fields = ("meter", "amount", "contributions", "carried", "payout", "recorded_at", "recorded_by")
    readonly_fields = fields

    @admin.display(description=_("amount"), ordering="amount_minor")
    def amount(self, reading):
        return money_html(reading.amount_minor, reading.meter.currency)


model_page_link(
    "progressive_meters",
    _("Progressive meters"),
    _("The meters as they stand; pay a hit with a second signer."),
    "progressives.Meter",
    position=55,
)
