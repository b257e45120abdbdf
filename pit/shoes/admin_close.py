"""Closing a shoe from the admin: the pit boss types each seat's commission box count (in the
table's currency units) and `pit.shoes.services.shoe_close` closes the shoe and reconciles it.
Who may: whoever runs the tables (`tables.change_table`: pit bosses), as opening and closing a
table."""

from decimal import Decimal

from django import forms
from django.contrib import messages
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext

from pit import game
from pit.core.actors import Actor
from pit.core.admin_site import SERVICE_ERRORS, _ModelAdmin, error_text, require_permission
from pit.core.money import exponent
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import shoe_close

CLOSE_PERMISSION = "tables.change_table"


def box_seats(shoe: Shoe) -> list[int]:
    """The seats whose commission box is counted at the shuffle (none on a table with no box)."""
    if engine_paytable(shoe.table.paytable).commission_mode is not game.CommissionMode.BOX:
        return []
    return sorted(shoe.table.seats)


class ShoeCloseForm(forms.Form):
    """One count per seat with a commission box, in units with the currency's decimals."""

    def __init__(self, *args, seats: list[int], currency: str, **kwargs):
        super().__init__(*args, **kwargs)
        places = exponent(currency)
        for seat in seats:
            self.fields[f"seat_{seat}"] = forms.DecimalField(
                label=gettext("Seat {seat} box ({currency})").format(seat=seat, currency=currency),
                min_value=Decimal(0),
                decimal_places=places,
                initial=Decimal(0),
                help_text=gettext("What is in the seat's commission box; 0 for an empty box."),
            )

    def box_counts(self) -> list[tuple[int, Decimal]]:
        return [(int(name.removeprefix("seat_")), value) for name, value in self.cleaned_data.items()]


class ShoeCloseMixin(_ModelAdmin):
    """The shoe admin's close page: /admin/shoes/shoe/<id>/close/."""

    def get_urls(self):
        return [
            path("<int:object_id>/close/", self.admin_site.admin_view(self.close_view), name="shoes_shoe_close"),
            *super().get_urls(),
        ]

    def close_view(self, request, object_id):
        shoe = get_object_or_404(Shoe.objects.select_related("table__paytable"), pk=object_id)
        require_permission(request.user.has_perm(CLOSE_PERMISSION))
        page = reverse("admin:shoes_shoe_change", args=[shoe.pk])
        if shoe.status != ShoeStatus.DEALING:
            self.message_user(request, gettext("{shoe} is closed already.").format(shoe=shoe), messages.WARNING)
            return HttpResponseRedirect(page)
        seats = box_seats(shoe)
        form = ShoeCloseForm(request.POST or None, seats=seats, currency=shoe.table.currency)
        if request.method == "POST" and form.is_valid():
            try:
                shoe_close(shoe=shoe, box_counts=form.box_counts(), actor=Actor(user=request.user))
            except SERVICE_ERRORS as exc:
                self.message_user(
                    request, gettext("Not closed: {error_text}").format(error_text=error_text(exc)), messages.ERROR
                )
            else:
                self.message_user(
                    request, gettext("{shoe} closed; its commission boxes are being reconciled.").format(shoe=shoe)
                )
                return HttpResponseRedirect(page)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Close %(shoe)s") % {"shoe": shoe},
            "shoe": shoe,
            "form": form,
            "seats": seats,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/shoes/shoe/close.html", context)
