"""The commission ledger, box counts and reconciliations, read-only: money formatted in its currency.

The only write is explaining a variance with a note (`reconciliation_explain`), from the list (an
action) or from the reconciliation's page. The page also shows the reconciliation's supplements:
commission that changed after the shoe was reconciled (late coups, corrections, voids).
"""

from django.contrib import admin, messages
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.admin_site import (
    SERVICE_ERRORS,
    NoteForm,
    ReadOnlyAdminMixin,
    ReadOnlyInline,
    admin_link,
    change_url,
    error_text,
    gaming_day_filter,
    money_html,
    note_action,
    require_permission,
    variance_html,
)
from pit.ledger.models import (
    BoxCount,
    CommissionEntry,
    Reconciliation,
    ReconciliationSeat,
    ReconciliationStatus,
    ReconciliationSupplementSeat,
)
from pit.ledger.services import reconciliation_explain
from pit.shoes.models import Shoe

# The shoe filter lists this many of the newest shoes (a link from a shoe's page filters any shoe).
RECENT_SHOES = 30


class ShoeFilter(admin.SimpleListFilter):
    """The newest shoes, in one query; `?shoe=<id>` filters any shoe."""

    title = _("shoe")
    parameter_name = "shoe"

    def lookups(self, request, model_admin):
        shoes = Shoe.objects.select_related("table").order_by("-shuffled_at", "-id")[:RECENT_SHOES]
        return [(str(shoe.pk), str(shoe)) for shoe in shoes]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(shoe_id=int(value))


class MoneyColumnsMixin:
    """`<name>` columns showing `<name>_minor` formatted in the row's currency, and the row's table
    and shoe (every ledger row belongs to a shoe)."""

    @staticmethod
    def _money(row, field: str):
        return money_html(getattr(row, f"{field}_minor"), row.currency)

    @admin.display(description=_("table"), ordering="shoe__table__code")
    def table(self, row):
        return row.shoe.table.code

    @admin.display(description=_("shoe"), ordering="shoe__sequence")
    def shoe_link(self, row):
        return admin_link(row.shoe)


@admin.register(CommissionEntry)
class CommissionEntryAdmin(ReadOnlyAdminMixin, MoneyColumnsMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "table",
        "shoe_link",
        "seat",
        "kind",
        "amount",
        "collection_reason",
        "wager",
        "reverses_link",
        "recorded_at",
        "recorded_by",
    )
    list_filter = (
        gaming_day_filter(moment_field="recorded_at"),
        "shoe__table",
        ShoeFilter,
        "seat",
        "kind",
        "collection_reason",
    )
    search_fields = ("shoe__table__code", "note")
    # The page's SELECT joins only small tables: the wagers (a partitioned table as large as the
    # ledger) are read for the page's rows alone (get_queryset), the reversed entry is linked by id.
    list_select_related = ("shoe__table", "recorded_by_user", "recorded_by_device__table")
    date_hierarchy = "recorded_at"
    # Newest first, by the recorded_at index; the model's order (shoe, seat) sorts every entry.
    ordering = ("-recorded_at", "-id")
    show_full_result_count = False
    fields = (
        "shoe_link",
        "seat",
        "kind",
        "amount",
        "collection_reason",
        "wager",
        "reverses_link",
        "note",
        "recorded_at",
        "recorded_by",
    )
    readonly_fields = fields

    def get_queryset(self, request):
        """The wagers in a second query for the listed entries only (a prefetch runs on the page's
        rows), not a join of every wager partition into the page's SELECT."""
        return super().get_queryset(request).prefetch_related("wager")

    @admin.display(description=_("amount"), ordering="amount_minor")
    def amount(self, entry):
        return self._money(entry, "amount")

    @admin.display(description=_("reverses"))
    def reverses_link(self, entry):
        if not entry.reverses_id:
            return "—"
        url = change_url(CommissionEntry, entry.reverses_id)
        return format_html(gettext('<a href="{}">entry {}</a>'), url, entry.reverses_id)


@admin.register(BoxCount)
class BoxCountAdmin(ReadOnlyAdminMixin, MoneyColumnsMixin, admin.ModelAdmin):
    list_display = ("id", "table", "shoe_link", "seat", "counted", "recorded_at", "recorded_by")
    list_filter = (gaming_day_filter(moment_field="recorded_at"), "shoe__table", ShoeFilter, "seat")
    search_fields = ("shoe__table__code",)
    list_select_related = ("shoe__table", "recorded_by_user", "recorded_by_device__table")
    date_hierarchy = "recorded_at"
    show_full_result_count = False
    fields = ("shoe_link", "seat", "counted", "recorded_at", "recorded_by")
    readonly_fields = fields

    @admin.display(description=_("counted"), ordering="counted_minor")
    def counted(self, count):
        return self._money(count, "counted")


class ReconciliationSeatInline(ReadOnlyInline):
    model = ReconciliationSeat
    fields = ("seat", "accrued", "collected_earlier", "expected", "counted", "variance")
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("reconciliation")

    def _money(self, line, field):
        return money_html(getattr(line, f"{field}_minor"), line.reconciliation.currency)

    @admin.display(description=_("accrued"))
    def accrued(self, line):
        return self._money(line, "accrued")

    @admin.display(description=_("collected earlier"))
    def collected_earlier(self, line):
        return self._money(line, "collected_earlier")

    @admin.display(description=_("expected in the box"))
    def expected(self, line):
        return self._money(line, "expected")

    @admin.display(description=_("counted"))
    def counted(self, line):
        return self._money(line, "counted")

    @admin.display(description=_("variance (counted - expected)"))
    def variance(self, line):
        return variance_html(line.variance_minor, line.reconciliation.currency)


@admin.register(Reconciliation)
class ReconciliationAdmin(ReadOnlyAdminMixin, MoneyColumnsMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "table",
        "shoe_link",
        "status",
        "accrued",
        "collected_earlier",
        "expected",
        "counted",
        "variance",
        "reconciled_at",
        "explained_by",
    )
    list_filter = (gaming_day_filter(moment_field="shoe__closed_at"), "status", "shoe__table", ShoeFilter)
    search_fields = ("shoe__table__code", "explanation")
    list_select_related = ("shoe__table", "explained_by")
    date_hierarchy = "shoe__closed_at"
    show_full_result_count = False
    inlines = (ReconciliationSeatInline,)
    actions = (
        note_action(
            service=lambda reconciliation, user, note: reconciliation_explain(
                reconciliation=reconciliation, user=user, note=note
            ),
            description=_("Explain the variance of the selected reconciliations (with a note)"),
            verb="Explain variance",
            permission="explain",
            done="explained",
        ),
    )
    fields = (
        "shoe_link",
        "status",
        "accrued",
        "collected_earlier",
        "expected",
        "counted",
        "variance",
        "reconciled_at",
        "explanation",
        "explained_by",
        "explained_at",
        "supplements",
    )
    readonly_fields = fields

    @admin.display(description=_("supplementary reconciliations"))
    def supplements(self, reconciliation):
        """One row per seat of each supplement, in order: what changed after the reconciliation, what
        the box should have held then, what was counted (unchanged), the variance now."""
        lines = list(
            ReconciliationSupplementSeat.objects.filter(supplement__reconciliation=reconciliation)
            .select_related("supplement")
            .order_by("supplement__sequence", "seat")
        )
        if not lines:
            return "none: nothing changed in the ledger after this reconciliation"
        currency = reconciliation.currency
        header = mark_safe(  # noqa: S308 (a constant)
            "<tr><th>supplement</th><th>status</th><th>seat</th><th>change</th><th>accrued</th>"
            "<th>collected earlier</th><th>expected</th><th>counted</th><th>variance now</th></tr>"
        )
        rows = format_html_join(
            "",
            "<tr><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td></tr>",
            (
                (
                    line.supplement.sequence,
                    line.supplement.recorded_at.strftime("%Y-%m-%d %H:%M"),
                    line.supplement.get_status_display(),
                    line.seat,
                    *(
                        money_html(getattr(line, f"{name}_minor"), currency)
                        for name in ("change", "accrued", "collected_earlier", "expected", "counted")
                    ),
                    variance_html(line.variance_minor, currency),
                )
                for line in lines
            ),
        )
        return format_html('<table class="pit-supplements">{}{}</table>', header, rows)

    # ------------------------------------------------------------------ the explanation form on the page

    def get_urls(self):
        opts = self.opts
        return [
            path(
                "<path:object_id>/explain/",
                self.admin_site.admin_view(self.explain_view),
                name=f"{opts.app_label}_{opts.model_name}_explain",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra_context = dict(extra_context or {})
        reconciliation = self.get_object(request, object_id)
        if (
            reconciliation is not None
            and reconciliation.status == ReconciliationStatus.VARIANCE
            and self.has_explain_permission(request)
        ):
            extra_context["explain_url"] = reverse("admin:ledger_reconciliation_explain", args=[reconciliation.pk])
        return super().change_view(request, object_id, form_url, extra_context)

    def explain_view(self, request, object_id):
        """POST a note: the service explains the variance; a refusal comes back as a message."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        reconciliation = get_object_or_404(self.get_queryset(request), pk=object_id)
        require_permission(self.has_explain_permission(request))
        form = NoteForm(request.POST)
        if not form.is_valid():
            self.message_user(request, gettext("Not explained: a note is required."), messages.ERROR)
        else:
            try:
                reconciliation_explain(reconciliation=reconciliation, user=request.user, note=form.cleaned_data["note"])
            except SERVICE_ERRORS as exc:
                self.message_user(
                    request, gettext("Not explained: {error_text}").format(error_text=error_text(exc)), messages.ERROR
                )
            else:
                self.message_user(
                    request,
                    gettext("The variance of {reconciliation_shoe} is explained.").format(
                        reconciliation_shoe=reconciliation.shoe
                    ),
                    messages.SUCCESS,
                )
        return HttpResponseRedirect(reverse("admin:ledger_reconciliation_change", args=[reconciliation.pk]))

    def has_explain_permission(self, request):
        opts = self.opts
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")

    @admin.display(description=_("accrued"), ordering="accrued_minor")
    def accrued(self, reconciliation):
        return self._money(reconciliation, "accrued")

    @admin.display(description=_("collected earlier"), ordering="collected_earlier_minor")
    def collected_earlier(self, reconciliation):
        return self._money(reconciliation, "collected_earlier")

    @admin.display(description=_("expected"), ordering="expected_minor")
    def expected(self, reconciliation):
        return self._money(reconciliation, "expected")

    @admin.display(description=_("counted"), ordering="counted_minor")
    def counted(self, reconciliation):
        return self._money(reconciliation, "counted")

    @admin.display(description=_("variance (counted - expected)"), ordering="variance_minor")
    def variance(self, reconciliation):
        return variance_html(reconciliation.variance_minor, reconciliation.currency)
