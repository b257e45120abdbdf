"""Tables in the back-office: the floor at a glance (current shoe, today's coups, open violations
today and earlier, commission boxes over and short today) in a fixed number of queries, and
open/close through the services."""

from typing import cast

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from pit.compliance.models import RuleViolation
from pit.compliance.selectors import OPEN, OPEN_LIST_QUERY
from pit.core.actors import Actor
from pit.core.admin_site import (
    SERVICE_ERRORS,
    NoSaveWhenNothingEditableMixin,
    ServiceErrorsAsMessagesMixin,
    changelist_url,
    error_text,
    money_html,
)
from pit.core.forms import MoneyField
from pit.core.gaming_day import current_gaming_day
from pit.core.money import from_minor
from pit.ledger.models import ReconciliationSeat
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import LimitChange, Table, TableLimit, TableLimitVersion
from pit.tables.services import table_close, table_create, table_limits_set, table_open

# The table page lists this many of its newest shoes; the rest are one click away.
RECENT_SHOES = 12


def _count(queryset, group_by: str):
    """A correlated COUNT(*) subquery, 0 when there is no row."""
    counted = queryset.values(group_by).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


def _box_variance(day, sign: Q):
    """Sum of the seats' box variances of one sign, over the table's shoes reconciled under `day`:
    a shoe's gaming day is that of its last coup (as the reports and the reconciliation file it)."""
    shoe_day = Q(
        Exists(Coup.objects.filter(shoe=OuterRef("reconciliation__shoe"), gaming_day=day)),
        ~Exists(Coup.objects.filter(shoe=OuterRef("reconciliation__shoe"), gaming_day__gt=day)),
    )
    seats = (
        ReconciliationSeat.objects.filter(shoe_day, sign, reconciliation__shoe__table=OuterRef("pk"))
        .values("reconciliation__shoe__table")
        .annotate(total=Sum("variance_minor"))
        .values("total")
    )
    return Subquery(seats, output_field=IntegerField())


def tables_for_floor(queryset=None):
    """Tables annotated with what the floor list shows; one query whatever the number of tables."""
    queryset = queryset if queryset is not None else Table.objects.all()
    day = current_gaming_day()
    dealing = Shoe.objects.filter(table=OuterRef("pk"), status=ShoeStatus.DEALING)
    open_here = RuleViolation.objects.filter(OPEN, table=OuterRef("pk"))
    return queryset.annotate(
        current_shoe_id=Subquery(dealing.values("pk")[:1]),
        current_shoe_sequence=Subquery(dealing.values("sequence")[:1]),
        current_shoe_coups=Subquery(dealing.values("coups_recorded")[:1]),
        current_shoe_cards_dealt=Subquery(dealing.values("cards_dealt")[:1]),
        current_shoe_cut=Subquery(dealing.values("cut_card_position")[:1]),
        coups_today=_count(Coup.objects.filter(shoe__table=OuterRef("pk"), gaming_day=day), "shoe__table"),
        open_violations=_count(open_here, "table"),
        open_violations_today=_count(open_here.filter(gaming_day=day), "table"),
        # Seats counted over and short, apart: +2.50 at one seat and -2.50 at another are not 0.
        box_over_minor=_box_variance(day, Q(variance_minor__gt=0)),
        box_short_minor=_box_variance(day, Q(variance_minor__lt=0)),
    )


class TableLimitVersionInline(admin.TabularInline):
    """Every set of limits the table has had, newest first: a coup is judged by the set in force
    when it was dealt. History: read-only for everyone."""

    model = TableLimitVersion
    verbose_name = _("limits in force from")
    verbose_name_plural = _("limit history")
    extra = 0
    can_delete = False
    fields = ("effective_from", "bet", "minimum", "maximum", "set_by")
    readonly_fields = fields

    @admin.display(description=_("minimum"))
    def minimum(self, version):
        return money_html(version.minimum_minor, version.table.currency)

    @admin.display(description=_("maximum"))
    def maximum(self, version):
        return money_html(version.maximum_minor, version.table.currency)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("table", "set_by")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class TableLimitInline(admin.TabularInline):
    """The limits in force, formatted in the table's currency; read-only here for everyone. A
    superuser changes them on the table's limits page (typed in units, checked before saving)."""

    model = TableLimit
    extra = 0
    can_delete = False
    fields = ("bet", "minimum", "maximum")
    readonly_fields = fields

    @admin.display(description=_("minimum"))
    def minimum(self, limit):
        return money_html(limit.minimum_minor, limit.table.currency)

    @admin.display(description=_("maximum"))
    def maximum(self, limit):
        return money_html(limit.maximum_minor, limit.table.currency)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("table")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class LimitForm(forms.Form):
    """One bet's limits, typed in units of the table's currency (500 is 500.00, not 5.00)."""

    bet = forms.ChoiceField(required=False, help_text=_("Leave empty to drop the row."), label=_("Bet"))
    minimum = MoneyField(minor=True, required=False, min_value=0, label=_("Minimum"))
    maximum = MoneyField(minor=True, required=False, min_value=0, label=_("Maximum"))

    def __init__(self, *args, table: Table, **kwargs):
        super().__init__(*args, **kwargs)
        bets = sorted(engine_paytable(table.paytable).bets)
        cast(forms.ChoiceField, self.fields["bet"]).choices = [
            ("", "—"),
            *((bet, bet.replace("_", " ")) for bet in bets),
        ]
        for name in ("minimum", "maximum"):
            cast(MoneyField, self.fields[name]).set_currency(table.currency)

    def clean(self):
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean returns its cleaned_data
        if cleaned.get("bet"):
            for name in ("minimum", "maximum"):
                if cleaned.get(name) is None and name not in self.errors:
                    self.add_error(
                        name,
                        gettext("Give the {name} of {replace}.").format(
                            name=name, replace=cleaned["bet"].replace("_", " ")
                        ),
                    )
        return cleaned


class BaseLimitFormSet(forms.BaseFormSet):
    def clean(self):
        bets = [form.cleaned_data.get("bet") for form in self.forms if form.cleaned_data.get("bet")]
        repeated = sorted({bet for bet in bets if bets.count(bet) > 1})
        if repeated:
            raise forms.ValidationError(
                gettext("One row per bet: {names} given twice.").format(names=", ".join(repeated))
            )

    def limits_minor(self) -> dict[str, tuple[int, int]]:
        return {
            form.cleaned_data["bet"]: (form.cleaned_data["minimum"], form.cleaned_data["maximum"])
            for form in self.forms
            if form.cleaned_data.get("bet")
        }


LimitFormSet = cast(type[BaseLimitFormSet], forms.formset_factory(LimitForm, formset=BaseLimitFormSet, extra=2))


def limit_changes(table: Table, new: dict[str, tuple[int, int]]) -> list[dict]:
    """Bet by bet, the limits in force and those about to be set, formatted in the table's currency."""
    old = {limit.bet: (limit.minimum_minor, limit.maximum_minor) for limit in table.limits.all()}

    def shown(pair):
        return (money_html(pair[0], table.currency), money_html(pair[1], table.currency)) if pair else ("—", "—")

    return [
        {
            "bet": bet.replace("_", " "),
            "old": shown(old.get(bet)),
            "new": shown(new.get(bet)),
            "changed": old.get(bet) != new.get(bet),
        }
        for bet in sorted(old.keys() | new.keys())
    ]


@admin.register(Table)
class TableAdmin(NoSaveWhenNothingEditableMixin, ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    list_display = (
        "code",
        "name",
        "status_badge",
        "game",
        "paytable",
        "current_shoe",
        "shoe_progress",
        "coups_today",
        "open_violations",
        "box_over",
        "box_short",
    )
    list_display_links = ("code", "name")
    list_filter = ("status", "game")
    search_fields = ("code", "name")
    list_select_related = ("paytable",)
    show_full_result_count = False
    actions = ("open_tables", "close_tables")
    inlines = (TableLimitInline, TableLimitVersionInline)

    def get_inlines(self, request, obj):
        # Limits are set once the table exists, in its currency, on its limits page.
        return self.inlines if obj is not None else ()

    add_fields = ("code", "name", "game", "paytable", "seats", "squeeze", "currency")

    def get_queryset(self, request):
        return tables_for_floor(super().get_queryset(request))

    change_fields = (
        "code",
        "name",
        "status",
        "game",
        "paytable",
        "seats",
        "squeeze",
        "currency",
        "created_at",
        "limits_link",
        "recent_shoes",
        "violations_link",
    )

    def get_fields(self, request, obj=None):
        if obj is None:
            return self.add_fields
        if request.user.is_superuser:
            return self.change_fields
        return tuple(name for name in self.change_fields if name != "limits_link")  # the page is a superuser's

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        # Status changes by the open/close actions (an event is recorded); layout and paytable are
        # what coups were settled under: they are not edited in place. Only a superuser renames.
        fixed = (
            "code",
            "status",
            "game",
            "paytable",
            "seats",
            "currency",
            "created_at",
            "limits_link",
            "recent_shoes",
            "violations_link",
        )
        return fixed if request.user.is_superuser else (*fixed, "name", "squeeze")

    def save_model(self, request, obj, form, change):
        if change:
            obj.full_clean()
            obj.save(update_fields=["name", "squeeze"])
            return
        created = table_create(
            code=obj.code,
            name=obj.name,
            game=obj.game,
            paytable=obj.paytable,
            seats=obj.seats,
            squeeze=obj.squeeze,
            currency=obj.currency,
        )
        obj.pk = created.pk
        obj.status = created.status
        obj.created_at = created.created_at

    def has_delete_permission(self, request, obj=None):
        return False

    # ------------------------------------------------------------------ the limits page

    def get_urls(self):
        limits = path(
            "<path:object_id>/limits/",
            self.admin_site.admin_view(self.limits_view),
            name="tables_table_limits",
        )
        return [limits, *super().get_urls()]

    def limits_view(self, request, object_id):
        """Change a table's limits: typed in units of its currency, then a page showing the limits in
        force beside the new ones, saved (through the service, as a new version) only from there."""
        if not request.user.is_superuser:
            raise PermissionDenied(gettext("Only a superuser sets a table's limits."))
        table = self.get_object(request, object_id)
        if table is None:
            raise Http404(gettext("There is no table {object_id}.").format(object_id=object_id))
        initial = [
            {"bet": limit.bet, "minimum": limit.minimum_minor, "maximum": limit.maximum_minor}
            for limit in table.limits.order_by("bet")
        ]
        posted = request.method == "POST"
        # A posted row is judged by what it says, not against the limits in force (a row left as it
        # was still states its bet's limits); the page shows the limits in force when first opened.
        formset = (
            LimitFormSet(request.POST, prefix="limits", form_kwargs={"table": table})
            if posted
            else LimitFormSet(initial=initial, prefix="limits", form_kwargs={"table": table})
        )
        changes = None
        if posted and formset.is_valid():
            new = formset.limits_minor()
            changes = limit_changes(table, new)
            if not any(change["changed"] for change in changes):
                self.message_user(
                    request,
                    gettext("The limits of {table_code} stay as they are.").format(table_code=table.code),
                    messages.INFO,
                )
                return HttpResponseRedirect(reverse("admin:tables_table_change", args=[table.pk]))
            if request.POST.get("confirm") == "yes":
                limits = {
                    bet: (from_minor(minimum, table.currency), from_minor(maximum, table.currency))
                    for bet, (minimum, maximum) in new.items()
                }
                try:
                    table_limits_set(table=table, limits=limits, user=request.user)
                except SERVICE_ERRORS as exc:
                    self.message_user(
                        request, gettext("Not saved: {error_text}").format(error_text=error_text(exc)), messages.ERROR
                    )
                    changes = None
                else:
                    change = table.limit_changes.order_by("-announced_at", "-id").first()
                    if change is not None and change.effective_from > change.announced_at:
                        self.message_user(
                            request,
                            gettext(
                                "The limits of %(table)s are announced: players are seated and the change "
                                "tightens them, so they take effect at %(at)s (%(rule)s). Post the sign and "
                                "announce it."
                            )
                            % {
                                "table": table.code,
                                "at": f"{timezone.localtime(change.effective_from):%Y-%m-%d %H:%M}",
                                "rule": change.rule,
                            },
                            messages.WARNING,
                        )
                    else:
                        self.message_user(
                            request,
                            gettext("The limits of {table_code} changed.").format(table_code=table.code),
                            messages.SUCCESS,
                        )
                    return HttpResponseRedirect(reverse("admin:tables_table_change", args=[table.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": table,
            "table": table,
            "formset": formset,
            "changes": changes,
            "title": _("Limits of %(table)s (%(currency)s)") % {"table": table.code, "currency": table.currency},
        }
        return TemplateResponse(request, "admin/tables/table/limits.html", context)

    @admin.display(description=_("limits"))
    def limits_link(self, table):
        if not table.pk:
            return "—"
        return format_html(
            gettext('<a href="{}">change the limits of {} &rarr;</a>'),
            reverse("admin:tables_table_limits", args=[table.pk]),
            table.code,
        )

    # ------------------------------------------------------------------ columns

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, table):
        return format_html('<span class="pit-status pit-status-{}">{}</span>', table.status, table.get_status_display())

    @admin.display(description=_("current shoe"), ordering="current_shoe_sequence")
    def current_shoe(self, table):
        if table.current_shoe_id is None:
            return "—"
        return format_html(
            gettext('<a href="{}">shoe {}</a>'),
            reverse("admin:shoes_shoe_change", args=[table.current_shoe_id]),
            table.current_shoe_sequence,
        )

    @admin.display(description=_("shoe progress"), ordering="current_shoe_cards_dealt")
    def shoe_progress(self, table):
        if table.current_shoe_id is None:
            return "—"
        left = max(table.current_shoe_cut - table.current_shoe_cards_dealt, 0)
        return format_html(
            gettext('{} coups · <span title="cards left before the cut card">{} to the cut</span>'),
            table.current_shoe_coups,
            left,
        )

    @admin.display(description=_("coups today"), ordering="coups_today")
    def coups_today(self, table):
        return table.coups_today

    @admin.display(description=_("open violations (today · earlier)"), ordering="open_violations")
    def open_violations(self, table):
        """Open and still holding (as the dashboard counts them): today's apart from the backlog."""
        if not table.open_violations:
            return 0
        day = current_gaming_day().isoformat()
        earlier = table.open_violations - table.open_violations_today
        return format_html(
            '<a class="pit-alert" href="{}" title="open today">{}</a> · <a href="{}" title="open, all days">{}</a>',
            changelist_url(RuleViolation, table__id__exact=table.pk, gaming_day=day, **OPEN_LIST_QUERY),
            table.open_violations_today,
            changelist_url(RuleViolation, table__id__exact=table.pk, **OPEN_LIST_QUERY),
            earlier,
        )

    def _box_figure(self, table, minor):
        if table.paytable.rules.get("commission_mode") != "box":
            return format_html('<span title="{}">—</span>', "no commission box at this table")
        if minor is None:
            return format_html('<span title="{}">—</span>', "no box counted over or short today")
        return money_html(minor, table.currency)

    @admin.display(description=_("box over, today's shoes"), ordering="box_over_minor")
    def box_over(self, table):
        """Commission box counts above the ledger, summed over the seats of today's reconciled shoes."""
        return self._box_figure(table, table.box_over_minor)

    @admin.display(description=_("box short, today's shoes"), ordering="box_short_minor")
    def box_short(self, table):
        return self._box_figure(table, table.box_short_minor)

    @admin.display(description=_("shoes"))
    def recent_shoes(self, table):
        shoes = list(table.shoes.order_by("-sequence")[:RECENT_SHOES])
        links = format_html_join(
            " ",
            '<a class="pit-chip pit-status-{}" href="{}">shoe {}</a>',
            ((shoe.status, reverse("admin:shoes_shoe_change", args=[shoe.pk]), shoe.sequence) for shoe in shoes),
        )
        return format_html(
            gettext('{} <a href="{}">all shoes of {} &rarr;</a>'),
            links,
            changelist_url(Shoe, table__id__exact=table.pk),
            table.code,
        )

    @admin.display(description=_("violations"))
    def violations_link(self, table):
        return format_html(
            gettext('<a href="{}">violations at {}</a>'),
            changelist_url(RuleViolation, table__id__exact=table.pk),
            table.code,
        )

    # ------------------------------------------------------------------ actions

    def _set_status(self, request, queryset, service, verb: str):
        actor, changed = Actor(user=request.user), 0
        for table in queryset:
            try:
                service(table=table, actor=actor)
            except SERVICE_ERRORS as exc:
                self.message_user(request, f"{table.code}: {error_text(exc)}", messages.ERROR)
            else:
                changed += 1
        if changed:
            self.message_user(
                request,
                (
                    ngettext("{count} table opened.", "{count} tables opened.", changed)
                    if verb == "opened"
                    else ngettext("{count} table closed.", "{count} tables closed.", changed)
                ).format(count=changed),
                messages.SUCCESS,
            )

    @admin.action(description=_("Open the selected tables"), permissions=["change"])
    def open_tables(self, request, queryset):
        self._set_status(request, queryset, table_open, "opened")

    @admin.action(description=_("Close the selected tables"), permissions=["change"])
    def close_tables(self, request, queryset):
        self._set_status(request, queryset, table_close, "closed")


@admin.register(LimitChange)
class LimitChangeAdmin(admin.ModelAdmin):
    """Each limit change as announced: when, from when it applies, and the notice it took."""

    list_display = (
        "table",
        "announced_at",
        "effective_from",
        "tightens",
        "players_seated",
        "notice_minutes",
        "grandfathering",
        "jurisdiction",
        "set_by",
    )
    list_filter = ("table", "tightens", "players_seated", "jurisdiction")
    list_select_related = ("table", "set_by")
    date_hierarchy = "announced_at"
    fields = (
        "table",
        "announced_at",
        "effective_from",
        "tightens",
        "players_seated",
        "notice_minutes",
        "grandfathering",
        "jurisdiction",
        "rule",
        "set_by",
        "recorded_at",
    )
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
