"""The cage's own screens: the queue of slips waiting to be issued (oldest first), the issue form
with the requested chips on it, a printable slip with its number as a Code 128 barcode for the
table to sign, and the cage's balance of a gaming day (chips issued on fills, taken back on
credits). Issuing goes through `services.slip_issue`, like the slip step's add page."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef, Sum
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from pit.core.actors import Actor
from pit.core.admin_site import SERVICE_ERRORS, PageLink, error_text, page_link_register, view_check_register
from pit.core.gaming_day import current_gaming_day
from pit.core.money import format_money

from . import services
from .admin import ChipsField, chips_minor, chips_text
from .barcode import code128_svg
from .models import Slip, SlipKind, SlipStep, SlipStepKind

ISSUE_PERMISSION = "accounting.issue_slip"
VIEW_PERMISSION = "accounting.view_slip"
QUEUE_DAYS = 2  # the queue holds the slips of today and the day before


def cage_allowed(request) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(ISSUE_PERMISSION)


def print_allowed(request) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm(VIEW_PERMISSION)


def _issued():
    return Exists(SlipStep.objects.filter(slip=OuterRef("pk"), step=SlipStepKind.ISSUED))


def slips_waiting(*, today: dt.date) -> list[Slip]:
    """Slips no cage has issued yet, of today and the QUEUE_DAYS - 1 days before, oldest first."""
    first = today - dt.timedelta(days=QUEUE_DAYS - 1)
    return list(
        Slip.objects.filter(gaming_day__gte=first, gaming_day__lte=today)
        .annotate(issued=_issued())
        .filter(issued=False)
        .select_related("table", "recorded_by_user")
        .order_by("recorded_at", "id")
    )


def cage_balance(*, gaming_day: dt.date) -> list[dict]:
    """Per currency, what the cage gave out (fills it issued) and took back (credits it counted in)
    on this gaming day, how many slips each, and the cage's net (in - out)."""
    rows = (
        SlipStep.objects.filter(step=SlipStepKind.ISSUED, slip__gaming_day=gaming_day)
        .values("slip__currency", "slip__kind")
        .annotate(total=Sum("total_minor"), slips=Count("id"))
        .order_by()
    )
    by_currency: dict[str, dict[str, int]] = defaultdict(lambda: {"out": 0, "in": 0, "fills": 0, "credits": 0})
    for row in rows:
        figures = by_currency[row["slip__currency"]]
        if row["slip__kind"] == SlipKind.FILL:
            figures["out"] += row["total"]
            figures["fills"] += row["slips"]
        else:
            figures["in"] += row["total"]
            figures["credits"] += row["slips"]
    return [
        {
            "currency": currency,
            "out": figures["out"],
            "in": figures["in"],
            "net": figures["in"] - figures["out"],
            "out_display": format_money(figures["out"], currency),
            "in_display": format_money(figures["in"], currency),
            "net_display": format_money(figures["in"] - figures["out"], currency),
            "fills": figures["fills"],
            "credits": figures["credits"],
        }
        for currency, figures in sorted(by_currency.items())
    ]


class DayForm(forms.Form):
    gaming_day = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label=_("Gaming day"))


def cage_view(request):
    if not cage_allowed(request):
        raise PermissionDenied(_("The cage's page is for the cage."))
    today = current_gaming_day()
    form = DayForm(request.GET or None)
    day = form.cleaned_data["gaming_day"] if form.is_valid() and form.cleaned_data["gaming_day"] else today
    waiting = [
        {
            "slip": slip,
            "chips": chips_text(slip.chips, slip.currency),
            "total": format_money(slip.total_minor, slip.currency),
            "issue_url": reverse("cage-issue", args=[slip.pk]),
            "print_url": reverse("slip-print", args=[slip.pk]),
        }
        for slip in slips_waiting(today=today)
    ]
    context = {
        **admin.site.each_context(request),
        "title": _("The cage"),
        "waiting": waiting,
        "balance": cage_balance(gaming_day=day),
        "day": day,
        "form": form,
    }
    return TemplateResponse(request, "admin/accounting/cage.html", context)


class IssueForm(forms.Form):
    chips = ChipsField(
        help_text=_("What you count out (a fill) or take back (a credit): 25.00 x 40, 100.00 x 30"), label=_("Chips")
    )


def cage_issue_view(request, pk: int):
    """The issue form of one slip, its requested chips written in; the cage corrects what it counts."""
    if not cage_allowed(request):
        raise PermissionDenied(_("Issuing slips is for the cage."))
    slip = get_object_or_404(Slip.objects.select_related("table"), pk=pk)
    requested = chips_text(slip.chips, slip.currency)
    form = IssueForm(request.POST or None, initial={"chips": requested})
    if request.method == "POST" and form.is_valid():
        try:
            services.slip_issue(
                slip=slip,
                chips=chips_minor(form.cleaned_data["chips"], slip.currency),
                actor=Actor(user=request.user),
                signed_by=request.user,
            )
        except forms.ValidationError as error:
            form.add_error(None, error)
        except SERVICE_ERRORS as error:
            form.add_error(None, error_text(error))
        else:
            messages.success(request, _("%(slip)s issued: print it for the table to sign.") % {"slip": slip})
            return HttpResponseRedirect(reverse("slip-print", args=[slip.pk]))
    context = {
        **admin.site.each_context(request),
        "title": _("Issue %(slip)s") % {"slip": slip},
        "slip": slip,
        "requested": requested,
        "total": format_money(slip.total_minor, slip.currency),
        "form": form,
    }
    return TemplateResponse(request, "admin/accounting/cage_issue.html", context)


def slip_print_view(request, pk: int):
    """The slip as printed for signatures: number (and its barcode), table, period, chips, the
    steps so far and the signature lines."""
    if not print_allowed(request):
        raise PermissionDenied(_("Printing a slip needs to see slips."))
    slip = get_object_or_404(Slip.objects.select_related("table", "recorded_by_user"), pk=pk)
    steps = [
        {
            "step": step.get_step_display(),
            "chips": chips_text(step.chips, slip.currency),
            "total": format_money(step.total_minor, slip.currency),
            "signed_by": step.signed_by,
            "at": step.recorded_at,
        }
        for step in slip.steps.select_related("signed_by").order_by("id")
    ]
    context = {
        "slip": slip,
        "barcode": code128_svg(slip.number),
        "chips": [
            (
                format_money(int(denomination), slip.currency),
                pieces,
                format_money(int(denomination) * pieces, slip.currency),
            )
            for denomination, pieces in slip.chips.items()
        ],
        "total": format_money(slip.total_minor, slip.currency),
        "steps": steps,
    }
    return TemplateResponse(request, "admin/accounting/slip_print.html", context)


page_link_register(
    PageLink(
        "cage",
        _("The cage"),
        _("Slips waiting to be issued, the issue form with the requested chips, the cage's balance."),
        url=lambda: reverse("cage"),
        allowed=cage_allowed,
        position=50,
    )
)
view_check_register("cage-issue", cage_allowed)
view_check_register("slip-print", print_allowed)
