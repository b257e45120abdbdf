"""The patrons' cash in the back-office.

- Cash rules: compliance records the casino's rules from a preset (any value changed on the form).
- Exchange rates: the cage records the day's rates.
- Cash transactions: the cage records its own (the tables' come from the seats' buy-ins); a mistaken
  one is reversed from its page with a reason. The MTL of a day is the list filtered by the day.
- Cash findings: compliance works each (acknowledge, file with the filing's reference and date,
  dismiss) on its page, which shows its evidence; deadlines close to passing are marked.
Names show only to whoever holds `players.view_patron_personal`; a finding page that shows a name is
a look at the patron (recorded). Every form calls the services; nothing here writes a row itself."""

import json

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.accounts.roles import PATRON_PERSONAL
from pit.cash import selectors, services
from pit.cash.models import CashFinding, CashRules, CashTransaction, ExchangeRate, FindingStatus
from pit.cash.presets import PRESETS
from pit.core.actors import Actor
from pit.core.admin_site import SERVICE_ERRORS, ServiceErrorsAsMessagesMixin, error_text, model_page_link
from pit.core.forms import MoneyField
from pit.core.gaming_day import current_gaming_day
from pit.core.money import format_money
from pit.players.models import Patron
from pit.players.selectors import patron_current
from pit.players.services import patron_look_record


class _ReadOnly(admin.ModelAdmin):
    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


# --------------------------------------------------------------------------------------------- rules
class CashRulesForm(forms.ModelForm):
    preset = forms.ChoiceField(
        label=_("Preset"), choices=[(code, preset.name) for code, preset in PRESETS.items()], initial="us"
    )
    mtl_threshold = MoneyField(label=_("MTL threshold"), required=False, help_text=_("Empty: the preset's."))
    ctr_threshold = MoneyField(label=_("CTR threshold"), required=False, help_text=_("Empty: the preset's."))
    sar_threshold = MoneyField(label=_("SAR threshold"), required=False, help_text=_("Empty: the preset's."))
    pattern_floor = MoneyField(
        label=_("Pattern floor"), required=False, help_text=_("Empty: the SAR threshold (the MTL's where it is zero).")
    )

    class Meta:
        model = CashRules
        fields = ("preset", "effective_from", "mtl_threshold", "ctr_threshold", "sar_threshold", "pattern_floor")


@admin.register(CashRules)
class CashRulesAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("effective_from", "preset", "reporting_currency", "ctr_threshold", "mtl_threshold", "recorded_by")
    form = CashRulesForm

    def has_add_permission(self, request):
        return request.user.has_perm("cash.record_cashrules")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        overrides = {
            name: data[name]
            for name in ("mtl_threshold", "ctr_threshold", "sar_threshold", "pattern_floor")
            if data.get(name) is not None
        }
        obj.pk = services.rules_record(
            preset=data["preset"],
            effective_from=data["effective_from"],
            overrides=overrides,
            actor=Actor(user=request.user),
        ).pk


# --------------------------------------------------------------------------------------------- rates
class ExchangeRateForm(forms.ModelForm):
    rate = forms.DecimalField(
        label=_("Rate"), max_digits=20, decimal_places=10, help_text=_("Reporting-currency units for one unit.")
    )

    class Meta:
        model = ExchangeRate
        fields = ("day", "currency", "rate")


@admin.register(ExchangeRate)
class ExchangeRateAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("day", "currency", "rate", "reporting_currency", "recorded_by")
    list_filter = ("currency",)
    date_hierarchy = "day"
    form = ExchangeRateForm

    def has_add_permission(self, request):
        return request.user.has_perm("cash.record_exchangerate")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        obj.pk = services.rate_record(
            day=data["day"], currency=data["currency"], rate=data["rate"], actor=Actor(user=request.user)
        ).pk


# -------------------------------------------------------------------------------------- transactions
class CashTransactionForm(forms.ModelForm):
    card_number = forms.CharField(label=_("Card number"), max_length=32, required=False)
    amount = MoneyField(label=_("Amount"))

    class Meta:
        model = CashTransaction
        fields = ("reference", "kind", "at", "location", "card_number", "description", "currency", "amount")

    def clean_card_number(self):
        card = self.cleaned_data["card_number"].strip()
        if not card:
            return None
        patron = Patron.objects.filter(card_number=card).first()
        if patron is None:
            raise ValidationError(gettext("There is no patron with card %(card)s.") % {"card": card})
        return patron


class ReverseForm(forms.Form):
    reason = forms.CharField(label=_("Why the transaction is reversed"), max_length=200)


@admin.register(CashTransaction)
class CashTransactionAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("at", "reference", "kind", "direction", "location", "card", "shown_amount", "reporting", "reverses")
    list_filter = ("gaming_day", "direction", "kind")
    search_fields = ("reference", "patron__card_number", "description")
    form = CashTransactionForm

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("patron", "table", "reverses")

    @admin.display(description=_("Card"))
    def card(self, row):
        return row.patron.card_number if row.patron_id else row.description

    @admin.display(description=_("Amount"))
    def shown_amount(self, row):
        return format_money(row.amount_minor, row.currency)

    @admin.display(description=_("Reporting amount"))
    def reporting(self, row):
        return f"{selectors.exact_text(row.reporting_amount)} {row.reporting_currency}"

    def has_add_permission(self, request):
        return request.user.has_perm("cash.record_cashtransaction")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        obj.pk = services.transaction_record(
            cash=services.CashInput(
                reference=data["reference"],
                kind=data["kind"],
                at=data["at"],
                currency=data["currency"],
                amount=data["amount"],
                location=data["location"],
                patron=data["card_number"],
                description=data.get("description", ""),
            ),
            actor=Actor(user=request.user),
        ).pk

    def get_urls(self):
        return [
            path(
                "<int:object_id>/reverse/",
                self.admin_site.admin_view(self.reverse_view),
                name="cash_cashtransaction_reverse",
            ),
            *super().get_urls(),
        ]

    def reverse_view(self, request, object_id):
        row = get_object_or_404(CashTransaction, pk=object_id)
        if not self.has_add_permission(request):
            return HttpResponseRedirect(reverse("admin:cash_cashtransaction_change", args=[row.pk]))
        form = ReverseForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                reversal = services.transaction_reverse(
                    reversed_=row,
                    reason=form.cleaned_data["reason"],
                    reference=f"{row.reference}-R",
                    actor=Actor(user=request.user),
                )
            except SERVICE_ERRORS as exc:
                self.message_user(request, gettext("Not reversed: %(why)s") % {"why": error_text(exc)}, messages.ERROR)
            else:
                self.message_user(request, gettext("Reversed by %(ref)s.") % {"ref": reversal.reference})
                return HttpResponseRedirect(reverse("admin:cash_cashtransaction_change", args=[reversal.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Reverse %(ref)s") % {"ref": row.reference},
            "form": form,
            "record": row,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/cash/reverse.html", context)


# ------------------------------------------------------------------------------------------ findings
class ReviewForm(forms.Form):
    status = forms.ChoiceField(
        label=_("Mark it"),
        choices=[(s, FindingStatus(s).label) for s in ("acknowledged", "filed", "dismissed")],
    )
    note = forms.CharField(label=_("Note"), widget=forms.Textarea(attrs={"rows": 3}))
    filing_reference = forms.CharField(label=_("Filing reference"), max_length=60, required=False)
    filed_on = forms.DateField(label=_("Filed on"), required=False)


@admin.register(CashFinding)
class CashFindingAdmin(_ReadOnly):
    list_display = ("gaming_day", "kind", "who", "cash_in", "cash_out", "reporting_currency", "due", "status")
    list_filter = ("status", "kind", "gaming_day")
    readonly_fields = ("evidence_shown",)
    exclude = ("evidence",)

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("patron", "table")

    @admin.display(description=_("Who"))
    def who(self, finding):
        if finding.patron_id is None:
            return finding.description or (finding.table.code if finding.table_id else "")
        return finding.patron.card_number

    @admin.display(description=_("Deadline"))
    def due(self, finding):
        if finding.deadline is None:
            return "—"
        left = (finding.deadline - current_gaming_day()).days
        open_ = finding.status in (FindingStatus.OPEN, FindingStatus.ACKNOWLEDGED) and finding.cleared_at is None
        if open_ and left < 0:
            return format_html('<strong class="errornote">{} ({})</strong>', finding.deadline, gettext("overdue"))
        if open_ and left <= settings.PIT_CASH_DEADLINE_WARNING_DAYS:
            return format_html("<strong>{} ({})</strong>", finding.deadline, gettext("due in %(n)s days") % {"n": left})
        return finding.deadline

    @admin.display(description=_("Evidence"))
    def evidence_shown(self, finding):
        return format_html("<pre>{}</pre>", json.dumps(finding.evidence, indent=2))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        finding = get_object_or_404(CashFinding.objects.select_related("patron"), pk=object_id)
        personal = request.user.has_perm(PATRON_PERSONAL)
        if finding.patron_id is not None:
            patron_look_record(patron=finding.patron, user=request.user, where="cash finding", personal=personal)
        extra = {
            "patron_name": patron_current(finding.patron).name if finding.patron_id and personal else None,
            "review_form": ReviewForm() if request.user.has_perm("cash.review_cashfinding") else None,
            "review_url": reverse("admin:cash_cashfinding_review", args=[finding.pk]),
        }
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def get_urls(self):
        return [
            path(
                "<int:object_id>/review/",
                self.admin_site.admin_view(self.review_view),
                name="cash_cashfinding_review",
            ),
            *super().get_urls(),
        ]

    def review_view(self, request, object_id):
        finding = get_object_or_404(CashFinding, pk=object_id)
        back = HttpResponseRedirect(reverse("admin:cash_cashfinding_change", args=[finding.pk]))
        if request.method != "POST" or not request.user.has_perm("cash.review_cashfinding"):
            return back
        form = ReviewForm(request.POST)
        if not form.is_valid():
            self.message_user(request, gettext("Not saved: %(why)s") % {"why": form.errors.as_text()}, messages.ERROR)
            return back
        data = form.cleaned_data
        try:
            services.finding_review(
                finding=finding,
                status=data["status"],
                note=data["note"],
                filing_reference=data["filing_reference"],
                filed_on=data["filed_on"],
                actor=Actor(user=request.user),
            )
        except SERVICE_ERRORS as exc:
            self.message_user(request, gettext("Not saved: %(why)s") % {"why": error_text(exc)}, messages.ERROR)
        else:
            self.message_user(request, gettext("Marked %(status)s.") % {"status": FindingStatus(data["status"]).label})
        return back


model_page_link(
    "cash_findings",
    _("Cash findings"),
    _("CTR worksheets, identifications and SAR candidates to work, with their deadlines."),
    "cash.CashFinding",
    "status__exact=open",
    position=60,
)
model_page_link(
    "cash_transactions",
    _("Cash transactions"),
    _("The cage's and the tables' cash; the day's MTL."),
    "cash.CashTransaction",
    position=61,
)
