"""Ratings in the back-office: each session's rating with its wagers, the pit bosses' estimates
(entered here, through the service), the tiers' reinvestment rates and the comp points ledger.
Everything computed is read-only; the facts are added through their services, never edited."""

from django import forms
from django.conf import settings
from django.contrib import admin
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from pit.core.actors import Actor
from pit.core.admin_site import ServiceErrorsAsMessagesMixin, model_page_link
from pit.core.forms import MoneyField
from pit.core.money import exponent, format_money, from_minor, minor_unit, to_minor
from pit.players.selectors import session_wagers

from .models import AverageBetEstimate, CompEntry, ReinvestmentRate, SessionRating
from .services import average_bet_estimate, comp_redeem, reinvestment_rate_set


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(SessionRating)
class SessionRatingAdmin(_ReadOnly):
    """A session's rating (the session page): its figures, and its coups and wagers as they stand."""

    list_display = (
        "session",
        "card",
        "gaming_day",
        "final",
        "estimated",
        "minutes",
        "coups_played",
        "handle_shown",
        "theo_shown",
        "standard_shown",
        "won_shown",
    )
    list_filter = ("gaming_day", "final", "estimated")
    search_fields = ("patron__card_number",)
    list_select_related = ("session__table", "patron")
    exclude = ("theo_numerator", "theo_denominator")
    readonly_fields = ("exact_theo_fraction", "wagers_shown")

    @admin.display(description=_("Card number"))
    def card(self, rating):
        return rating.patron.card_number if rating.patron_id else _("unrated")

    @admin.display(description=_("Minutes played"))
    def minutes(self, rating):
        return rating.seconds_played // 60

    @admin.display(description=_("Handle"))
    def handle_shown(self, rating):
        return format_money(rating.handle_minor, rating.currency)

    @admin.display(description=_("Exact theo"))
    def theo_shown(self, rating):
        return format_money(round(rating.theo), rating.currency)

    @admin.display(description=_("Standard theo"))
    def standard_shown(self, rating):
        return format_money(round(rating.standard_theo_minor), rating.currency)

    @admin.display(description=_("Actual win (house)"))
    def won_shown(self, rating):
        return format_money(rating.won_minor, rating.currency)

    @admin.display(description=_("Exact theo (fraction of minor units)"))
    def exact_theo_fraction(self, rating):
        return f"{rating.theo_numerator}/{rating.theo_denominator}"

    @admin.display(description=_("Coups and wagers that stand"))
    def wagers_shown(self, rating):
        rows = session_wagers(rating.session).select_related("coup__shoe").order_by("coup__dealt_at", "bet")
        return format_html_join(
            "",
            "<div>{} coup {} ({}): {} {}</div>",
            (
                (
                    f"shoe {wager.coup.shoe.sequence}",
                    wager.coup.number,
                    f"{wager.coup.dealt_at:%H:%M:%S}",
                    wager.bet,
                    from_minor(wager.amount_minor, wager.currency),
                )
                for wager in rows
            ),
        )


class EstimateForm(forms.ModelForm):
    average_bet = MoneyField(
        min_value=0, help_text=_("The session's average bet, in the table's currency."), label=_("Average bet")
    )

    class Meta:
        model = AverageBetEstimate
        fields = ("session",)


@admin.register(AverageBetEstimate)
class AverageBetEstimateAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    """A pit boss estimates a session's average bet (the add form, through the service)."""

    form = EstimateForm
    list_display = ("session", "average_shown", "recorded_by", "recorded_at")
    list_select_related = ("session__table",)
    raw_id_fields = ("session",)

    @admin.display(description=_("Average bet"))
    def average_shown(self, estimate):
        return format_money(estimate.average_bet_minor, estimate.currency)

    def save_model(self, request, obj, form, change):
        session = form.cleaned_data["session"]
        amount = form.cleaned_data["average_bet"]
        obj.pk = average_bet_estimate(
            session=session,
            average_bet_minor=to_minor(amount, session.table.currency),
            actor=Actor(user=request.user),
        ).pk

    def has_add_permission(self, request):
        return request.user.has_perm("ratings.record_estimate")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ReinvestmentRate)
class ReinvestmentRateAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    list_display = ("tier", "rate", "starts_on", "recorded_by", "recorded_at")
    fields = ("tier", "rate", "starts_on")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        obj.pk = reinvestment_rate_set(
            tier=data["tier"], rate=data["rate"], starts_on=data["starts_on"], actor=Actor(user=request.user)
        ).pk

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RedemptionForm(forms.ModelForm):
    """A host's redemption: the patron, the currency of the comps spent, the amount in its units,
    the comp slip (optional: a slip number is recorded once per patron) and what it is for."""

    currency = forms.RegexField(
        regex=r"^[A-Z]{3}$",
        max_length=3,
        initial=settings.PIT_DEFAULT_CURRENCY,
        label=_("Currency"),
        help_text=_("The currency of the comps spent (three capital letters, e.g. USD)."),
    )
    amount = MoneyField(min_value=0, label=_("Amount"), help_text=_("In the currency's units, e.g. 150 for 150.00."))

    class Meta:
        model = CompEntry
        fields = ("patron", "reference", "reason")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reason"].required = True

    def clean(self):
        # Not ModelForm.clean: the entry's kind and amount are the service's to set, so the model's
        # constraints are checked when it writes the entry, not on this half-built instance.
        data = self.cleaned_data
        currency, amount = data.get("currency"), data.get("amount")
        if currency and amount is not None and amount != amount.quantize(minor_unit(currency)):
            self.add_error(
                "amount",
                _("%(currency)s has %(places)d decimals.")
                % {
                    "currency": currency,
                    "places": exponent(currency),
                },
            )
        return data


@admin.register(CompEntry)
class CompEntryAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    """The comp points ledger; a host redeems here (the add form, through the service, which
    refuses a redemption past the balance and names it)."""

    list_display = ("patron", "kind", "session", "amount_shown", "reason", "reference", "recorded_at")
    list_filter = ("kind",)
    search_fields = ("patron__card_number", "reference")
    list_select_related = ("patron",)
    raw_id_fields = ("patron",)

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = RedemptionForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("patron", "currency", "amount", "reference", "reason")
        return super().get_fields(request, obj)

    @admin.display(description=_("Amount"))
    def amount_shown(self, entry):
        return format_money(entry.amount_minor, entry.currency)

    def has_add_permission(self, request):
        return request.user.has_perm("ratings.redeem_comp")

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        obj.pk = comp_redeem(
            patron=data["patron"],
            currency=data["currency"],
            amount_minor=to_minor(data["amount"], data["currency"]),
            reason=data["reason"],
            reference=data["reference"] or None,
            actor=Actor(user=request.user),
        ).pk


model_page_link(
    "ratings",
    _("Ratings"),
    _("Seat sessions rated: exact and standard theo, comps."),
    "ratings.SessionRating",
    position=70,
)
