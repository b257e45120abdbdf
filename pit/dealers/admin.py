"""Dealers in the back-office: the roster with each dealer's figures over the last 30 gaming days,
the rotations (pit bosses record who comes in), and whose fault a violation was."""

import datetime as dt

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.core.admin_site import ServiceErrorsAsMessagesMixin
from pit.core.gaming_day import current_gaming_day
from pit.dealers.models import Dealer, DealerRotation, ViolationFault
from pit.dealers.selectors import dealer_statistics
from pit.dealers.services import dealer_create, dealer_rotate, violation_attribute

STATISTICS_DAYS = 30


@admin.register(Dealer)
class DealerAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "coups", "hours", "coups_per_hour", "errors", "mispaid", "device_faults")
    search_fields = ("code", "name")
    fields = ("code", "name")

    def changelist_view(self, request, extra_context=None):
        last = current_gaming_day()
        first = last - dt.timedelta(days=STATISTICS_DAYS - 1)
        self._figures = {figures.dealer.pk: figures for figures in dealer_statistics(first_day=first, last_day=last)}
        title = gettext("Dealers: their last %(days)s gaming days (%(first)s to %(last)s)")
        extra = {"title": title % {"days": STATISTICS_DAYS, "first": first, "last": last}}
        return super().changelist_view(request, {**(extra_context or {}), **extra})

    def _of(self, dealer):
        return getattr(self, "_figures", {}).get(dealer.pk)

    @admin.display(description=_("Coups"))
    def coups(self, dealer):
        return self._of(dealer).coups if self._of(dealer) else "—"

    @admin.display(description=_("Hours dealt"))
    def hours(self, dealer):
        return self._of(dealer).hours if self._of(dealer) else "—"

    @admin.display(description=_("Coups per hour"))
    def coups_per_hour(self, dealer):
        figures = self._of(dealer)
        return figures.coups_per_hour if figures and figures.coups_per_hour is not None else "—"

    @admin.display(description=_("Dealer errors per 1,000 coups"))
    def errors(self, dealer):
        figures = self._of(dealer)
        if not figures or not figures.errors:
            return "—"
        return ", ".join(f"{code} {rate}" for code, rate in figures.errors_per_1000_coups.items())

    @admin.display(description=_("Mispays"))
    def mispaid(self, dealer):
        figures = self._of(dealer)
        if not figures or not figures.mispays:
            return "—"
        money = ", ".join(f"{amount} {currency}" for currency, amount in sorted(figures.mispaid.items()))
        return f"{figures.mispays} ({money})" if money else str(figures.mispays)

    @admin.display(description=_("Not the dealer's (machine faults, put down to a device)"))
    def device_faults(self, dealer):
        figures = self._of(dealer)
        return figures.device_faults if figures else "—"

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)
        else:
            obj.pk = dealer_create(code=obj.code, name=obj.name).pk

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DealerRotation)
class DealerRotationAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    """Read-only history; a pit boss records who comes in at a table (the add form, through the service)."""

    list_display = ("table", "dealer", "started_at", "recorded_by", "recorded_at")
    list_filter = ("table", "dealer")
    list_select_related = ("table", "dealer", "recorded_by_user", "recorded_by_device")
    date_hierarchy = "started_at"
    fields = ("table", "dealer", "started_at")

    def has_add_permission(self, request):
        return request.user.has_perm("dealers.record_dealerrotation")

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        rotation, _created = dealer_rotate(
            table=obj.table, dealer=obj.dealer, started_at=obj.started_at, actor=Actor(user=request.user)
        )
        obj.pk = rotation.pk


@admin.register(ViolationFault)
class ViolationFaultAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    """Whose fault each reviewed violation was; a pit boss records a new attribution to change it."""

    list_display = ("violation", "fault", "note", "decided_by", "decided_at")
    list_filter = ("fault", "violation__code")
    list_select_related = ("violation", "decided_by")
    raw_id_fields = ("violation",)
    fields = ("violation", "fault", "note")

    def has_add_permission(self, request):
        return request.user.has_perm("dealers.attribute_violation")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        # Not the violation admin's queryset: its ordering needs its own annotations.
        if db_field.name == "violation":
            kwargs["queryset"] = RuleViolation.objects.all()
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        obj.pk = violation_attribute(violation=obj.violation, fault=obj.fault, user=request.user, note=obj.note).pk
