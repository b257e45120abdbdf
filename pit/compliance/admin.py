"""The violation queue: open first, each linked to its coup, shoe and table, reviewed with a note
(acknowledge, resolve, dismiss) through the compliance services, from the list or the page."""

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import (
    BigIntegerField,
    Case,
    F,
    Func,
    IntegerField,
    OuterRef,
    Prefetch,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from pit.compliance.models import RuleViolation, ViolationStatus
from pit.compliance.services import violation_acknowledge, violation_dismiss, violation_resolve
from pit.compliance.wording import violation_sentence, violation_title
from pit.core.admin_site import (
    SERVICE_ERRORS,
    NoSaveWhenNothingEditableMixin,
    admin_link,
    cards_html,
    error_text,
    gaming_day_filter,
    money_html,
    note_action,
    require_permission,
    winner_html,
)
from pit.core.bet_names import bet_name
from pit.dealers.models import Fault
from pit.dealers.selectors import dealer_at
from pit.dealers.services import violation_attribute
from pit.ledger.models import ReconciliationSeat
from pit.protection.selectors import alarm_event_members
from pit.shoes.models import Coup, Shoe, Wager

# Severities in the order they are worked: high first.
SEVERITY_RANK = Case(
    When(severity="high", then=Value(0)),
    When(severity="medium", then=Value(1)),
    default=Value(2),
    output_field=IntegerField(),
)


def at_stake_minor():
    """What a violation puts in doubt, in minor units of its table's currency: the difference
    between what was paid and what the paytable owes (a mispayment), the stake of the wager it is
    about, the seat's box variance, or else the handle of its coup (its result is in question).
    Subqueries, not joins: a query that does not select it (a count, a filter's choices) reads the
    violations alone."""
    wager = Wager.objects.filter(pk=OuterRef("wager_id"))
    mispaid = (
        wager.filter(paid_minor__isnull=False)
        .annotate(difference=Func(F("paid_minor") - F("payout_minor"), function="ABS"))
        .values("difference")[:1]
    )
    stake = wager.values("amount_minor")[:1]
    seat_variance = ReconciliationSeat.objects.filter(
        reconciliation__shoe=OuterRef("shoe"), seat=OuterRef("seat")
    ).values("variance_minor")[:1]
    coup_handle = (
        Wager.objects.filter(coup=OuterRef("coup")).order_by().values("coup").annotate(total=Sum("amount_minor"))
    ).values("total")
    return Case(
        When(code="payout_mismatch", wager__isnull=False, then=Coalesce(Subquery(mispaid), Subquery(stake))),
        When(wager__isnull=False, then=Subquery(stake)),
        When(code="box_variance", then=Func(Subquery(seat_variance), function="ABS")),
        When(coup__isnull=False, then=Subquery(coup_handle)),
        default=Value(None),
        output_field=BigIntegerField(),
    )


def violation_in_context(violation) -> dict:
    """What the violation page shows beside the facts: the rule in words, the coup's cards as
    cards with what the engine reads from them against what was reported, and the coup's wagers
    with what the paytable owes against what was paid (the violation's own wager marked)."""
    context: dict[str, Any] = {"rule": violation_title(violation.code), "coup": None, "wagers": []}
    coup = violation.coup
    if coup is None:
        return context
    currency = violation.table.currency
    context["coup"] = {
        "player": cards_html(coup.player_cards),
        "banker": cards_html(coup.banker_cards),
        "totals": f"{coup.player_total}–{coup.banker_total}",
        "winner": winner_html(coup.winner),
        "winner_name": coup.get_winner_display(),
        "reported": coup.get_reported_winner_display() if coup.reported_winner else "",
        "reported_differs": bool(coup.reported_winner) and coup.reported_winner != coup.winner,
    }
    for wager in coup.wagers.order_by("seat", "bet"):
        paid = wager.paid_minor
        mispaid = None if paid is None or paid == wager.payout_minor else paid - wager.payout_minor
        context["wagers"].append(
            {
                "seat": wager.seat,
                "bet": bet_name(wager.bet),
                "stake": money_html(wager.amount_minor, currency),
                "result": wager.get_result_display(),
                "owed": money_html(wager.payout_minor, currency),
                "paid": "—" if paid is None else money_html(paid, currency),
                "difference": "—" if mispaid is None else money_html(mispaid, currency),
                "this": wager.pk == violation.wager_id,
            }
        )
    return context


FAULT_PERMISSION = "dealers.attribute_violation"

REVIEWS = {
    "acknowledge": (violation_acknowledge, _("Acknowledge"), _("acknowledged")),
    "resolve": (violation_resolve, _("Resolve"), _("resolved")),
    "dismiss": (violation_dismiss, _("Dismiss"), _("dismissed")),
}
REVIEW_DESCRIPTIONS = {
    "acknowledge": _("Acknowledge the selected violations (with a note)"),
    "resolve": _("Resolve the selected violations (with a note)"),
    "dismiss": _("Dismiss the selected violations (with a note)"),
}
# Which review buttons a violation in a given status offers (the service has the final word).
REVIEWS_FROM = {
    ViolationStatus.OPEN: ("acknowledge", "resolve", "dismiss"),
    ViolationStatus.ACKNOWLEDGED: ("resolve", "dismiss"),
}


class ClearedFilter(admin.SimpleListFilter):
    title = _("cleared by a re-check")
    parameter_name = "cleared"

    def lookups(self, request, model_admin):
        return (("no", _("Still holds")), ("yes", _("Cleared")))

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(cleared_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(cleared_at__isnull=True)
        return queryset


class FaultForm(forms.Form):
    fault = forms.ChoiceField(choices=Fault.choices, label=_("Whose fault"))
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2, "cols": 70}), strip=True, label=_("Note"))


def violation_people(violation) -> dict:
    """Who dealt when it happened (the table's rotation at the coup, or when it was found) and
    whose fault the latest attribution says it was (None: nobody has said)."""
    moment = violation.coup.dealt_at if violation.coup is not None else violation.found_at
    dealer = dealer_at(table=violation.table, moment=moment)
    fault = violation.faults.select_related("decided_by").order_by("-decided_at", "-id").first()
    return {
        "dealer": admin_link(dealer) if dealer is not None else gettext("nobody on the rotation"),
        "fault": None
        if fault is None
        else {
            "fault": fault.get_fault_display(),
            "note": fault.note,
            "by": fault.decided_by.get_full_name() or fault.decided_by.get_username(),
            "at": fault.decided_at,
        },
    }


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[(key, label) for key, (_service, label, _done) in REVIEWS.items()], label=_("Decision")
    )
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 70}), strip=True, label=_("Note"))


def _review(decision: str):
    service, verb, done = REVIEWS[decision]
    # note_action takes str: a lazy translation is one wherever it is shown.
    return note_action(
        service=lambda violation, user, note: service(violation=violation, user=user, note=note),
        description=cast(str, REVIEW_DESCRIPTIONS[decision]),
        verb=cast(str, verb),
        done=cast(str, done),
    )


@admin.register(RuleViolation)
class RuleViolationAdmin(NoSaveWhenNothingEditableMixin, admin.ModelAdmin):
    # Where it happened right after its id: at 1,024 px the message wraps, the table/shoe/coup stays in view.
    list_display = (
        "id",
        "status_badge",
        "severity_badge",
        "where",
        "code",
        "at_stake",
        "short_message",
        "gaming_day",
        "cleared",
    )
    list_display_links = ("id", "code")
    list_filter = (
        gaming_day_filter(day_field="gaming_day"),
        "status",
        "severity",
        "table",
        "code",
        ClearedFilter,
        "found_by",
    )
    search_fields = ("message", "code")
    # Read after the page is cut, one query each, not joined: the open-first sort of the whole
    # history then reads the violations alone (joined, it sorted 100,000 joined rows).
    list_select_related = False
    date_hierarchy = "found_at"
    show_full_result_count = False
    actions = (_review("acknowledge"), _review("resolve"), _review("dismiss"))
    # The page reads top down: what and where (the summary), the context and the review form
    # (templates/admin/compliance/ruleviolation/change_form.html), then the raw record, folded.
    fieldsets = (
        (
            _("The record, field by field"),
            {
                "classes": ("collapse",),
                "fields": (
                    "code",
                    "severity",
                    "message",
                    "table_link",
                    "shoe_link",
                    "coup_link",
                    "wager",
                    "seat",
                    "gaming_day",
                    "found_at",
                    "found_by",
                    "cleared_at",
                    "fingerprint",
                    "status",
                    "status_note",
                    "status_changed_by",
                    "status_changed_at",
                ),
            },
        ),
    )
    readonly_fields = (
        "code",
        "severity",
        "message",
        "table_link",
        "shoe_link",
        "coup_link",
        "wager",
        "seat",
        "gaming_day",
        "found_at",
        "found_by",
        "cleared_at",
        "fingerprint",
        "status",
        "status_note",
        "status_changed_by",
        "status_changed_at",
    )

    def get_queryset(self, request):
        """Annotated with what the ordering uses. The money at stake joins the wagers: only the
        open queue, which is ordered by it, or a list sorted by it carries it in SQL; the other
        lists compute it for the rows of their page alone (get_changelist_instance)."""
        queryset = self.model._default_manager.get_queryset().annotate(
            open_first=Case(
                When(status=ViolationStatus.OPEN, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
            severity_rank=SEVERITY_RANK,
        )
        if self._orders_by_stake(request):
            queryset = queryset.annotate(at_stake_minor=at_stake_minor())
        queryset = queryset.prefetch_related(
            "table",
            Prefetch("shoe", queryset=Shoe.objects.select_related("table")),
            Prefetch("coup", queryset=Coup.objects.select_related("shoe__table")),
        )
        return queryset.order_by(*self.get_ordering(request))

    def _orders_by_stake(self, request) -> bool:
        if request.GET.get("status__exact") == ViolationStatus.OPEN:
            return True
        column = str(self.list_display.index("at_stake")) if "at_stake" in self.list_display else None
        return column is not None and column in request.GET.get("o", "").replace("-", "").split(".")

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        rows = list(changelist.result_list)
        if rows and not hasattr(rows[0], "at_stake_minor"):
            stakes = dict(
                RuleViolation.objects.filter(pk__in=[row.pk for row in rows])
                .annotate(at_stake_minor=at_stake_minor())
                .values_list("pk", "at_stake_minor")
            )
            for row in rows:
                row.at_stake_minor = stakes.get(row.pk)
        changelist.result_list = rows
        return changelist

    def get_ordering(self, request):
        """The open queue (?status__exact=open, the header's "Open violations") is worked by the
        worst kind, then the most money at stake, then the newest. The whole history lists open
        first, then by kind and the newest: its money at stake is not computed for every one of
        100,000 rows to sort them (a click on "at stake" still sorts by it)."""
        if request.GET.get("status__exact") == ViolationStatus.OPEN:
            return ("severity_rank", "-at_stake_minor", "-found_at", "-id")
        return ("open_first", "severity_rank", "-found_at", "-id")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        """Every field is read-only; the review goes through the review form and the services."""

    # ------------------------------------------------------------------ columns

    @admin.display(description=_("status"), ordering="open_first")
    def status_badge(self, violation):
        return format_html(
            '<span class="pit-status pit-status-{}">{}</span>',
            violation.status,
            violation.get_status_display(),
        )

    @admin.display(description=_("at stake"), ordering="at_stake_minor")
    def at_stake(self, violation):
        """The money the violation puts in doubt: a mispayment's difference, a wager's stake, a
        box's variance, or the handle of the coup whose result is in question."""
        if violation.at_stake_minor is None:
            return "—"
        return money_html(violation.at_stake_minor, violation.table.currency)

    @admin.display(description=_("severity"), ordering="severity_rank")
    def severity_badge(self, violation):
        return format_html(
            '<span class="pit-severity pit-severity-{}">{}</span>',
            violation.severity,
            violation.get_severity_display(),
        )

    @admin.display(description=_("message"))
    def short_message(self, violation):
        """The sentence in the reader's language (the recorded English stays the record)."""
        return Truncator(violation_sentence(violation.code, violation.message)).chars(90)

    @admin.display(description=_("table"), ordering="table__code")
    def table_link(self, violation):
        return admin_link(violation.table, violation.table.code)

    @admin.display(description=_("shoe"))
    def shoe_link(self, violation):
        return admin_link(violation.shoe)

    @admin.display(description=_("coup"))
    def coup_link(self, violation):
        return admin_link(violation.coup)

    @admin.display(description=_("where"), ordering="table__code")
    def where(self, violation):
        """Table, shoe, coup and seat in one cell (the list fits a 1,366 px screen with room for
        the message)."""
        parts = [admin_link(violation.table, violation.table.code)]
        if violation.shoe_id:
            parts.append(admin_link(violation.shoe, gettext("shoe %(shoe)s") % {"shoe": violation.shoe.sequence}))
        if violation.coup_id:
            parts.append(admin_link(violation.coup, gettext("coup %(coup)s") % {"coup": violation.coup.number}))
        if violation.seat:
            parts.append(format_html("{}", gettext("seat %(seat)s") % {"seat": violation.seat}))
        return format_html_join(" · ", "{}", ((part,) for part in parts))

    @admin.display(description=_("the violation"))
    def summary(self, violation):
        """Severity, status, where and what, on one line above everything else; the sentence in the
        reader's language (pit.compliance.wording), the code as it is."""
        return format_html(
            gettext("{severity} {status} <strong>{code}</strong> at {where} on gaming day {day}: {sentence}"),
            severity=self.severity_badge(violation),
            status=self.status_badge(violation),
            code=violation.code,
            where=self.where(violation),
            day=violation.gaming_day,
            sentence=violation_sentence(violation.code, violation.message),
        )

    @admin.display(description=_("cleared"), boolean=True, ordering="cleared_at")
    def cleared(self, violation):
        return violation.cleared_at is not None

    # ------------------------------------------------------------------ the review form on the page

    def get_urls(self):
        opts = self.model._meta
        return [
            path(
                "<path:object_id>/review/",
                self.admin_site.admin_view(self.review_view),
                name=f"{opts.app_label}_{opts.model_name}_review",
            ),
            path(
                "alarms/<int:object_id>/acknowledge/",
                self.admin_site.admin_view(self.alarm_acknowledge_view),
                name=f"{opts.app_label}_{opts.model_name}_alarm_acknowledge",
            ),
            path(
                "<path:object_id>/fault/",
                self.admin_site.admin_view(self.fault_view),
                name=f"{opts.app_label}_{opts.model_name}_fault",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "show_save": False,
            "show_save_and_continue": False,
            "show_save_and_add_another": False,
            "show_delete": False,
        }
        violation = self.get_object(request, object_id)
        if violation is not None:
            extra_context["in_context"] = violation_in_context(violation)
            extra_context["people"] = violation_people(violation)
            extra_context["summary"] = self.summary(violation)
            if request.user.has_perm(FAULT_PERMISSION):
                extra_context["fault_form"] = FaultForm()
                extra_context["fault_url"] = reverse("admin:compliance_ruleviolation_fault", args=[violation.pk])
        if violation is not None and self.has_change_permission(request, violation):
            extra_context["review_form"] = ReviewForm()
            extra_context["review_url"] = reverse("admin:compliance_ruleviolation_review", args=[violation.pk])
            extra_context["review_choices"] = [(key, REVIEWS[key][1]) for key in REVIEWS_FROM.get(violation.status, ())]
        return super().change_view(request, object_id, form_url, extra_context)

    def review_view(self, request, object_id):
        """POST a decision and a note: the service reviews; any refusal comes back as a message."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        violation = get_object_or_404(self.get_queryset(request), pk=object_id)
        require_permission(self.has_change_permission(request, violation))
        page = reverse("admin:compliance_ruleviolation_change", args=[violation.pk])
        form = ReviewForm(request.POST)
        if not form.is_valid():
            problems = "; ".join(f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items())
            self.message_user(request, gettext("Not reviewed: %(problems)s") % {"problems": problems}, messages.ERROR)
            return HttpResponseRedirect(page)
        service, _label, done = REVIEWS[form.cleaned_data["decision"]]
        try:
            service(violation=violation, user=request.user, note=form.cleaned_data["note"])
        except SERVICE_ERRORS as exc:
            self.message_user(
                request, gettext("Not reviewed: %(problems)s") % {"problems": error_text(exc)}, messages.ERROR
            )
        else:
            self.message_user(
                request, gettext("%(violation)s %(done)s.") % {"violation": violation, "done": done}, messages.SUCCESS
            )
        return HttpResponseRedirect(page)

    def fault_view(self, request, object_id):
        """POST whose fault it was and a note: the dealers' service records the attribution."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        violation = get_object_or_404(RuleViolation.objects.all(), pk=object_id)
        require_permission(request.user.has_perm(FAULT_PERMISSION))
        page = reverse("admin:compliance_ruleviolation_change", args=[violation.pk])
        form = FaultForm(request.POST)
        if not form.is_valid():
            problems = "; ".join(f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items())
            self.message_user(request, gettext("Not recorded: %(problems)s") % {"problems": problems}, messages.ERROR)
            return HttpResponseRedirect(page)
        try:
            violation_attribute(
                violation=violation, fault=form.cleaned_data["fault"], user=request.user, note=form.cleaned_data["note"]
            )
        except SERVICE_ERRORS as exc:
            self.message_user(
                request, gettext("Not recorded: %(problems)s") % {"problems": error_text(exc)}, messages.ERROR
            )
        else:
            fault = Fault(form.cleaned_data["fault"]).label
            self.message_user(
                request,
                gettext("%(violation)s: %(fault)s.") % {"violation": violation, "fault": fault},
                messages.SUCCESS,
            )
        return HttpResponseRedirect(page)

    def alarm_acknowledge_view(self, request, object_id):
        """POST from the dashboard's alarm banner: acknowledge every unreviewed finding of the event
        this alarm belongs to, each through the review service (attributed to this user, in the
        audit trail), with the note typed or else a note saying where it was acknowledged."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        violation = get_object_or_404(RuleViolation.objects.all(), pk=object_id)
        require_permission(self.has_change_permission(request, violation))
        note = request.POST.get("note", "").strip() or gettext("Acknowledged from the dashboard's alarm banner.")
        where = f"{violation.table.code} {violation.code}"
        try:
            with transaction.atomic():  # the whole event or none of it
                members = list(alarm_event_members(violation))
                for member in members:
                    violation_acknowledge(violation=member, user=request.user, note=note)
        except SERVICE_ERRORS as exc:
            self.message_user(
                request,
                gettext("%(where)s: not acknowledged: %(problems)s") % {"where": where, "problems": error_text(exc)},
                messages.ERROR,
            )
        else:
            acknowledged = ngettext(
                "%(where)s: %(count)s finding acknowledged.",
                "%(where)s: %(count)s findings acknowledged.",
                len(members),
            )
            self.message_user(request, acknowledged % {"where": where, "count": len(members)}, messages.SUCCESS)
        return HttpResponseRedirect(reverse("dashboard:index"))
