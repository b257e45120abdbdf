"""Tables in the back-office: the floor at a glance (current shoe, today's coups, open violations
today and earlier, commission boxes over and short today) in a fixed number of queries, and
open/close through the services."""

from django.contrib import admin, messages
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.html import format_html, format_html_join

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
from pit.core.gaming_day import current_gaming_day
from pit.core.money import from_minor
from pit.ledger.models import ReconciliationSeat
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import Table, TableLimit, TableLimitVersion
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
    verbose_name = "limits in force from"
    verbose_name_plural = "limit history"
    extra = 0
    can_delete = False
    fields = ("effective_from", "bet", "minimum", "maximum", "set_by")
    readonly_fields = fields

    @admin.display(description="minimum")
    def minimum(self, version):
        return money_html(version.minimum_minor, version.table.currency)

    @admin.display(description="maximum")
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
    """Limits are set by superusers; everyone else reads them formatted in the table's currency."""

    model = TableLimit
    extra = 0
    fields = ("bet", "minimum_minor", "maximum_minor", "minimum", "maximum")
    readonly_fields = ("minimum", "maximum")

    def get_fields(self, request, obj=None):
        if request.user.is_superuser:
            return self.fields
        return ("bet", "minimum", "maximum")

    @admin.display(description="minimum")
    def minimum(self, limit):
        return money_html(limit.minimum_minor, limit.table.currency) if limit.pk else "—"

    @admin.display(description="maximum")
    def maximum(self, limit):
        return money_html(limit.maximum_minor, limit.table.currency) if limit.pk else "—"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("table")

    def has_add_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


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
        return self.inlines if obj is not None else (TableLimitInline,)  # no history before the table

    add_fields = ("code", "name", "game", "paytable", "seats", "squeeze", "currency")

    def get_queryset(self, request):
        return tables_for_floor(super().get_queryset(request))

    def get_fields(self, request, obj=None):
        if obj is None:
            return self.add_fields
        return (
            "code",
            "name",
            "status",
            "game",
            "paytable",
            "seats",
            "squeeze",
            "currency",
            "created_at",
            "recent_shoes",
            "violations_link",
        )

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

    def save_formset(self, request, form, formset, change):
        """Limits edited on the page are set through the service, as a new version in force from
        now (the old set stays in the history), never changed in place."""
        if formset.model is not TableLimit:
            return super().save_formset(request, form, formset, change)
        table = form.instance
        limits = {
            row.cleaned_data["bet"]: (
                from_minor(row.cleaned_data["minimum_minor"], table.currency),
                from_minor(row.cleaned_data["maximum_minor"], table.currency),
            )
            for row in formset.forms
            if row.cleaned_data and not row.cleaned_data.get("DELETE")
        }
        if formset.has_changed():
            table_limits_set(table=table, limits=limits, user=request.user)
        # What the admin's change message reads: the rows were replaced by the service.
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        return None

    # ------------------------------------------------------------------ columns

    @admin.display(description="status", ordering="status")
    def status_badge(self, table):
        return format_html('<span class="pit-status pit-status-{}">{}</span>', table.status, table.get_status_display())

    @admin.display(description="current shoe", ordering="current_shoe_sequence")
    def current_shoe(self, table):
        if table.current_shoe_id is None:
            return "—"
        return format_html(
            '<a href="{}">shoe {}</a>',
            reverse("admin:shoes_shoe_change", args=[table.current_shoe_id]),
            table.current_shoe_sequence,
        )

    @admin.display(description="shoe progress", ordering="current_shoe_cards_dealt")
    def shoe_progress(self, table):
        if table.current_shoe_id is None:
            return "—"
        left = max(table.current_shoe_cut - table.current_shoe_cards_dealt, 0)
        return format_html(
            '{} coups · <span title="cards left before the cut card">{} to the cut</span>',
            table.current_shoe_coups,
            left,
        )

    @admin.display(description="coups today", ordering="coups_today")
    def coups_today(self, table):
        return table.coups_today

    @admin.display(description="open violations (today · earlier)", ordering="open_violations")
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

    @admin.display(description="box over, today's shoes", ordering="box_over_minor")
    def box_over(self, table):
        """Commission box counts above the ledger, summed over the seats of today's reconciled shoes."""
        return self._box_figure(table, table.box_over_minor)

    @admin.display(description="box short, today's shoes", ordering="box_short_minor")
    def box_short(self, table):
        return self._box_figure(table, table.box_short_minor)

    @admin.display(description="shoes")
    def recent_shoes(self, table):
        shoes = list(table.shoes.order_by("-sequence")[:RECENT_SHOES])
        links = format_html_join(
            " ",
            '<a class="pit-chip pit-status-{}" href="{}">shoe {}</a>',
            ((shoe.status, reverse("admin:shoes_shoe_change", args=[shoe.pk]), shoe.sequence) for shoe in shoes),
        )
        return format_html(
            '{} <a href="{}">all shoes of {} &rarr;</a>',
            links,
            changelist_url(Shoe, table__id__exact=table.pk),
            table.code,
        )

    @admin.display(description="violations")
    def violations_link(self, table):
        return format_html(
            '<a href="{}">violations at {}</a>',
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
            self.message_user(request, f"{changed} table{'s' if changed != 1 else ''} {verb}.", messages.SUCCESS)

    @admin.action(description="Open the selected tables", permissions=["change"])
    def open_tables(self, request, queryset):
        self._set_status(request, queryset, table_open, "opened")

    @admin.action(description="Close the selected tables", permissions=["change"])
    def close_tables(self, request, queryset):
        self._set_status(request, queryset, table_close, "closed")
