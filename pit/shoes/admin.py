"""Shoes and coups in the back-office, read-only: the cards as cards, the bead plate and the roads,
the wagers.

The only writes: a pit boss corrects a coup's wagers or voids a coup (actions, with a reason),
through `pit.shoes.services`; the coup's page shows every version of its wagers and which stands.
"""

import datetime as dt
import re
from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import BooleanField, Count, ExpressionWrapper, F, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce, Greatest
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.core.admin_site import (
    SERVICE_ERRORS,
    ReadOnlyAdminMixin,
    ReadOnlyInline,
    admin_link,
    bead_plate,
    cards_html,
    change_url,
    changelist_url,
    coup_marks_html,
    error_text,
    gaming_day_filter,
    money_html,
    note_action,
    road_grid,
    winner_html,
)
from pit.core.gaming_day import current_gaming_day
from pit.game.roads import Result, roads
from pit.ledger.models import CommissionEntry
from pit.shoes.admin_close import CLOSE_PERMISSION, ShoeCloseMixin
from pit.shoes.models import Coup, CoupCorrection, Shoe, Wager
from pit.shoes.selectors import commission_taken_minor, standing_condition, wagers_standing
from pit.shoes.services import WagerInput, coup_correct, coup_correction_preview, coup_void

ROAD_NAMES = (
    ("big_road", _("Big road")),
    ("big_eye_boy", _("Big eye boy")),
    ("small_road", _("Small road")),
    ("cockroach_pig", _("Cockroach pig")),
)


def _violations_count():
    counted = RuleViolation.objects.filter(coup=OuterRef("pk")).values("coup").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


class DealtOnFilter(admin.SimpleListFilter):
    """Shoes with a coup dealt on a gaming day (where the reports' table-day rows lead)."""

    title = _("dealt on gaming day")
    parameter_name = "dealt_on"

    def lookups(self, request, model_admin):
        day = current_gaming_day()
        previous = day - dt.timedelta(days=1)
        return [(day.isoformat(), "Current gaming day"), (previous.isoformat(), "Previous gaming day")]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            return queryset.none()
        return queryset.filter(pk__in=Coup.objects.filter(gaming_day=day).values("shoe_id"))


@admin.register(Shoe)
class ShoeAdmin(ShoeCloseMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "table",
        "sequence",
        "status",
        "decks",
        "shuffled_at",
        "closed_at",
        "coups_recorded",
        "cards_dealt",
        "cards_left",
    )
    list_display_links = ("table", "sequence")
    list_filter = ("table", "status", DealtOnFilter)
    search_fields = ("table__code", "table__name")
    list_select_related = ("table",)
    date_hierarchy = "shuffled_at"
    show_full_result_count = False
    fields = (
        "table",
        "sequence",
        "status",
        "decks",
        "shuffled_at",
        "closed_at",
        "cut_card_position",
        "burn",
        "coups_recorded",
        "cards_dealt",
        "cards_left",
        "recorded_by",
        "links",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(left_before_cut=Greatest(F("cut_card_position") - F("cards_dealt"), 0))
        )

    @admin.display(description=_("cards left before the cut"), ordering="left_before_cut")
    def cards_left(self, shoe):
        return getattr(shoe, "left_before_cut", shoe.cards_left_before_cut)

    @admin.display(description=_("burned"))
    def burn(self, shoe):
        return cards_html(shoe.burn_cards) if shoe.burn_cards else "—"

    @admin.display(description=_("see also"))
    def links(self, shoe):
        return format_html(
            gettext('<a href="{}">coups</a> · <a href="{}">violations</a> · <a href="{}">commission entries</a>'),
            changelist_url(Coup, shoe__id__exact=shoe.pk),
            changelist_url(RuleViolation, shoe__id__exact=shoe.pk),
            changelist_url(CommissionEntry, shoe=shoe.pk),
        )

    def change_view(self, request, object_id, form_url="", extra_context=None):
        coups = list(
            Coup.objects.filter(shoe_id=object_id).order_by("number").annotate(violations_count=_violations_count())
            if str(object_id).isdigit()
            else []
        )
        rows = [
            {
                "coup": coup,
                "url": change_url(Coup, coup.pk),
                "player": cards_html(coup.player_cards),
                "banker": cards_html(coup.banker_cards),
                "winner": winner_html(coup.winner),
                "marks": coup_marks_html(
                    natural=coup.natural, player_pair=coup.player_pair, banker_pair=coup.banker_pair
                ),
            }
            for coup in coups
        ]
        totals = {
            "player": sum(1 for coup in coups if coup.winner == "player"),
            "banker": sum(1 for coup in coups if coup.winner == "banker"),
            "tie": sum(1 for coup in coups if coup.winner == "tie"),
            "player_pair": sum(1 for coup in coups if coup.player_pair),
            "banker_pair": sum(1 for coup in coups if coup.banker_pair),
            "natural": sum(1 for coup in coups if coup.natural),
        }
        extra_context = {
            **(extra_context or {}),
            "coup_rows": rows,
            "bead_plate": bead_plate(coups),
            "roads": _roads(coups),
            "result_totals": totals,
            "may_close": request.user.has_perm(CLOSE_PERMISSION),
        }
        return super().change_view(request, object_id, form_url, extra_context)


def _roads(coups) -> list[dict]:
    """The big road and the three roads derived from it, as grids for the shoe page."""
    drawn = roads(Result(coup.winner, coup.player_pair, coup.banker_pair) for coup in coups)
    return [{"key": key, "name": name, "grid": road_grid(drawn[key])} for key, name in ROAD_NAMES]


class WagerInline(ReadOnlyInline):
    """Every version of the coup's wagers: the originals, then each correction's; `stands` marks
    those that count (none after a void)."""

    model = Wager
    fields = ("version", "stands", "seat", "bet", "amount", "result", "payout", "commission", "paid")
    readonly_fields = fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("correction", "coup__paytable")
            .annotate(standing=ExpressionWrapper(standing_condition(), output_field=BooleanField()))
            .order_by(F("correction__sequence").asc(nulls_first=True), "seat", "bet")
        )

    @admin.display(description=_("version"))
    def version(self, wager):
        return f"correction {wager.correction.sequence}" if wager.correction_id else "as recorded"

    @admin.display(description=_("stands"), boolean=True)
    def stands(self, wager):
        return wager.standing

    @admin.display(description=_("amount"))
    def amount(self, wager):
        return money_html(wager.amount_minor, wager.currency)

    @admin.display(description=_("payout"))
    def payout(self, wager):
        return money_html(wager.payout_minor, wager.currency)

    @admin.display(description=_("commission taken"))
    def commission(self, wager):
        minor, deducted = commission_taken_minor(wager)
        if deducted:
            return format_html(gettext("{} deducted from the payout"), money_html(minor, wager.currency))
        return money_html(minor, wager.currency)

    @admin.display(description=_("reported paid"))
    def paid(self, wager):
        return money_html(wager.paid_minor, wager.currency)


class CoupCorrectionInline(ReadOnlyInline):
    model = CoupCorrection
    verbose_name = _("correction or void")
    verbose_name_plural = _("corrections and voids (the last stands)")
    fields = ("sequence", "kind", "reason", "recorded_at", "recorded_by")
    readonly_fields = fields

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("recorded_by_user", "recorded_by_device__table")
            .order_by("sequence")
        )


_AMOUNT = re.compile(r"^[0-9]{1,15}(\.[0-9]{1,6})?$")


class CorrectionForm(forms.Form):
    wagers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8, "cols": 50}),
        help_text=_(
            "Every wager as it should stand, one a line: seat, bet, amount and, if the table paid "
            "other than the paytable owes on that amount, what it paid (e.g. <code>2 banker 500.00</code>; "
            "<code>2 banker 500.00 450.00</code>). Without a paid figure the wager is paid what it owes. "
            "A wager left out no longer stands. The next page shows what each wager owes before anything is saved."
        ),
        label=_("Wagers"),
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 70}),
        strip=True,
        help_text=_("Required: why (the misread stake), in words read later."),
        label=_("Reason"),
    )

    def clean_wagers(self) -> tuple[WagerInput, ...]:
        wagers, problems = [], []
        for number, line in enumerate(self.cleaned_data["wagers"].splitlines(), start=1):
            parts = line.split()
            if not parts:
                continue
            amounts = parts[2:]
            if (
                len(parts) not in (3, 4)
                or not parts[0].isascii()
                or not parts[0].isdigit()
                or not all(_AMOUNT.match(amount) for amount in amounts)
            ):
                problems.append(
                    f"Line {number} ({line.strip()!r}): write seat, bet, amount [paid], e.g. 2 banker 500.00."
                )
                continue
            wagers.append(
                WagerInput(
                    seat=int(parts[0]),
                    bet=parts[1],
                    amount=Decimal(amounts[0]),
                    paid=Decimal(amounts[1]) if len(amounts) > 1 else None,
                )
            )
        if problems:
            raise forms.ValidationError(problems)
        return tuple(wagers)


def _wager_lines(coup: Coup) -> str:
    """The standing wagers as the form's lines. A paid figure is written only where the table paid
    other than the wager owed: a corrected stake is then paid what it owes, not the old stake's payout."""
    lines = []
    for wager in wagers_standing(coup.wagers.all()).order_by("seat", "bet"):
        mispaid = wager.paid_minor is not None and wager.paid_minor != wager.payout_minor
        paid = f" {wager.paid}" if mispaid else ""
        lines.append(f"{wager.seat} {wager.bet} {wager.amount}{paid}")
    return "\n".join(lines)


def _preview_rows(coup: Coup, wagers: tuple[WagerInput, ...]) -> list[dict]:
    """What the correction would store, wager by wager, as the confirmation page shows it."""
    currency = coup.shoe.table.currency
    return [
        {
            "seat": wager.seat,
            "bet": wager.bet,
            "stake": money_html(wager.amount_minor, currency),
            "result": wager.result,
            "owed": money_html(wager.payout_minor, currency),
            "commission": money_html(wager.commission_minor, currency),
            "paid": money_html(wager.paid_minor, currency),
            "mispaid": wager.paid_minor != wager.payout_minor,
        }
        for wager in coup_correction_preview(coup=coup, wagers=wagers)
    ]


@admin.action(description=_("Correct the wagers of the selected coup (with a reason)"), permissions=["correct"])
def correct_wagers(modeladmin, request, queryset):
    """One coup: a form with its standing wagers to edit and a reason, then a page showing what each
    wager owes under the paytable and what it is paid (saved only from there); the service has the
    last word."""
    coups = list(queryset.select_related("shoe__table")[:2])
    if len(coups) != 1:
        modeladmin.message_user(request, gettext("Select exactly one coup to correct its wagers."), messages.ERROR)
        return None
    (coup,) = coups
    posted = request.POST.get("post") == "yes"
    form = CorrectionForm(request.POST if posted else None, initial={"wagers": _wager_lines(coup)})
    preview = None
    if form.is_bound and form.is_valid() and request.POST.get("confirm") != "yes":
        try:
            preview = _preview_rows(coup, form.cleaned_data["wagers"])
        except SERVICE_ERRORS as exc:
            form.add_error("wagers", error_text(exc))
    elif form.is_bound and form.is_valid():
        try:
            outcome = coup_correct(
                coup=coup,
                wagers=form.cleaned_data["wagers"],
                reason=form.cleaned_data["reason"],
                actor=Actor(user=request.user),
            )
        except SERVICE_ERRORS as exc:
            modeladmin.message_user(
                request,
                gettext("{coup}: not corrected: {error_text}").format(coup=coup, error_text=error_text(exc)),
                messages.ERROR,
            )
        else:
            done = "corrected" if outcome.created else "stands corrected already; nothing written"
            level = messages.SUCCESS if outcome.created else messages.INFO
            modeladmin.message_user(request, f"{coup}: {done} ({outcome.correction}).", level)
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": _("Correct the wagers of %(coup)s") % {"coup": coup},
        "coup": coup,
        "form": form,
        "preview": preview,
        "opts": modeladmin.model._meta,
        "action_name": request.POST.get("action", ""),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": modeladmin.media,
    }
    request.current_app = modeladmin.admin_site.name
    return TemplateResponse(request, "admin/shoes/coup/correct_wagers.html", context)


@admin.register(Coup)
class CoupAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "number",
        "table",
        "shoe_link",
        "dealt",
        "gaming_day",
        "player",
        "banker",
        "totals",
        "winner_mark",
        "marks",
        "violations",
    )
    list_display_links = ("number",)
    list_filter = (gaming_day_filter(day_field="gaming_day"), "shoe__table", "winner")
    search_fields = ("shoe__table__code", "=shoe__sequence")
    list_select_related = ("shoe__table",)
    date_hierarchy = "dealt_at"
    show_full_result_count = False
    inlines = (WagerInline, CoupCorrectionInline)
    actions = (
        correct_wagers,
        note_action(
            service=lambda coup, user, note: coup_void(coup=coup, reason=note, actor=Actor(user=user)),
            description=_("Void the selected coups: a misdeal, every stake returned (with a reason)"),
            verb="Void",
            permission="correct",
            done="voided",
        ),
    )
    fields = (
        "shoe_link",
        "number",
        "dealt_at",
        "gaming_day",
        "player",
        "banker",
        "totals",
        "winner_mark",
        "reported_winner",
        "marks",
        "paytable",
        "recorded_by",
        "violation_links",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(violations_count=_violations_count())

    def has_correct_permission(self, request) -> bool:
        return request.user.has_perm("shoes.correct_coup")

    @admin.display(description=_("table"), ordering="shoe__table__code")
    def table(self, coup):
        return coup.shoe.table.code

    @admin.display(description=_("dealt at"), ordering="dealt_at")
    def dealt(self, coup):
        return timezone.localtime(coup.dealt_at).strftime("%Y-%m-%d %H:%M:%S")

    @admin.display(description=_("shoe"), ordering="shoe__sequence")
    def shoe_link(self, coup):
        return admin_link(coup.shoe)

    @admin.display(description=_("player"))
    def player(self, coup):
        return cards_html(coup.player_cards)

    @admin.display(description=_("banker"))
    def banker(self, coup):
        return cards_html(coup.banker_cards)

    @admin.display(description="P–B")
    def totals(self, coup):
        return f"{coup.player_total}–{coup.banker_total}"

    @admin.display(description=_("winner"), ordering="winner")
    def winner_mark(self, coup):
        return winner_html(coup.winner)

    @admin.display(description=_("marks"))
    def marks(self, coup):
        return coup_marks_html(natural=coup.natural, player_pair=coup.player_pair, banker_pair=coup.banker_pair)

    @admin.display(description=_("violations"), ordering="violations_count")
    def violations(self, coup):
        if not coup.violations_count:
            return 0
        return format_html(
            '<a class="pit-alert" href="{}">{}</a>',
            changelist_url(RuleViolation, coup__id__exact=coup.pk),
            coup.violations_count,
        )

    @admin.display(description=_("violations"))
    def violation_links(self, coup):
        violations = list(coup.violations.order_by("found_at"))
        if not violations:
            return "none"
        return format_html_join(
            mark_safe("<br>"),
            '<a href="{}">{}</a> <span class="pit-status pit-status-{}">{}</span>',
            (
                (change_url(RuleViolation, v.pk), f"{v.code}: {v.message}", v.status, v.get_status_display())
                for v in violations
            ),
        )
