"""The back-office as a pit boss sees it: the admin site's title and the pieces every app's admin
shares (cards shown as cards, money formatted, gaming-day filters, actions that demand a note).

The admin writes nothing itself: every change goes through a service; errors come back as
admin messages, never as a server error.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from pit import game
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.money import format_money, variance_label

admin.site.site_header = "Pit back-office"
admin.site.site_title = "Pit back-office"
admin.site.index_title = "The pit"
# The lists are wide (a table row carries its shoe, coups, violations and variance): no side bar.
admin.site.enable_nav_sidebar = False
# Rows of this back-office are history: nobody deletes them in bulk from a list.
admin.site.disable_action("delete_selected")

RED_SUITS = frozenset({"H", "D"})

# The mixins below are for ModelAdmin classes and call its methods: to the type checker they are one.
# Django's admin classes are generic to the type checker only (not subscriptable at run time).
if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[Any]
    _TabularInline = admin.TabularInline[Any, Any]
else:
    _ModelAdmin = object
    _TabularInline = admin.TabularInline


# ---------------------------------------------------------------------------------- display helpers


def card_html(code: str) -> str:
    """One card as a pit boss writes it (5♥), red for hearts and diamonds; unreadable codes as given."""
    try:
        card = game.parse_card(code)
    except game.InvalidCard:
        return format_html('<span class="pit-card pit-card-bad" title="not a card code">{}</span>', code)
    colour = "pit-card-red" if card.suit in RED_SUITS else "pit-card-black"
    return format_html('<span class="pit-card {}" title="{}">{}</span>', colour, card.code, card.symbol)


def cards_html(codes: Iterable[str] | None) -> str:
    return format_html(
        '<span class="pit-cards">{}</span>',
        format_html_join(" ", "{}", ((card_html(c),) for c in codes or ())),
    )


def money_html(minor: int | None, currency: str) -> str:
    text = format_money(minor, currency)
    css = "pit-money pit-money-negative" if minor is not None and minor < 0 else "pit-money"
    return format_html('<span class="{}">{}</span>', css, text)


def variance_html(minor: int | None, currency: str) -> str:
    """A box variance (counted - expected) with its word beside it: "-$5.00 short", "$2.00 over"."""
    if minor is None:
        return money_html(minor, currency)
    return format_html("{} {}", money_html(minor, currency), variance_label(minor))


def admin_url(obj: Model, action: str = "change") -> str:
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{action}", args=[obj.pk])


def admin_link(obj: Model | None, text: object = None) -> str:
    if obj is None:
        return "—"
    return format_html('<a href="{}">{}</a>', admin_url(obj), text if text is not None else str(obj))


def change_url(model: type[Model], pk: object) -> str:
    opts = model._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[pk])


def changelist_url(model: type[Model], **query: object) -> str:
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    if query:
        url += "?" + "&".join(f"{key}={value}" for key, value in query.items())
    return url


def winner_html(winner: str) -> str:
    letter = {"player": "P", "banker": "B", "tie": "T"}.get(winner, "?")
    return format_html('<span class="pit-winner pit-winner-{}">{}</span>', winner, letter)


def coup_marks_html(*, natural: bool, player_pair: bool, banker_pair: bool) -> str:
    marks = [label for flag, label in ((natural, "natural"), (player_pair, "P pair"), (banker_pair, "B pair")) if flag]
    return format_html_join(" ", '<span class="pit-mark">{}</span>', ((mark,) for mark in marks)) or "—"


def bead_plate(coups: Iterable[Any], rows: int = 6) -> list[list[dict[str, Any] | None]]:
    """The shoe's results as the bead plate: `rows` rows, filled top to bottom, then left to right.

    `coups` are objects with winner, player_pair, banker_pair and number, in dealing order.
    Returns the grid row by row; an empty cell is None.
    """
    coups = list(coups)
    columns = max((len(coups) + rows - 1) // rows, 1)
    grid: list[list[dict[str, Any] | None]] = [[None] * columns for _ in range(rows)]
    for index, coup in enumerate(coups):
        grid[index % rows][index // rows] = {
            "letter": {"player": "P", "banker": "B", "tie": "T"}[coup.winner],
            "winner": coup.winner,
            "number": coup.number,
            "player_pair": coup.player_pair,
            "banker_pair": coup.banker_pair,
        }
    return grid


def road_grid(cells: list[dict[str, Any]], rows: int = 6) -> list[list[dict[str, Any] | None]]:
    """A road's cells (`pit.game.roads`, as dicts with col and row) as a grid, row by row; an
    empty cell is None. Each cell gets `mark` (its winner, or its colour on a derived road) and
    `ties`. At least one column, so an empty road still draws its frame."""
    columns = max((cell["col"] for cell in cells), default=0) + 1
    grid: list[list[dict[str, Any] | None]] = [[None] * columns for _ in range(rows)]
    for cell in cells:
        grid[cell["row"]][cell["col"]] = {"ties": 0, **cell, "mark": cell.get("winner") or cell.get("colour")}
    return grid


# ---------------------------------------------------------------------------------- filters


def _recent_gaming_days(count: int = 7) -> list[dt.date]:
    today = current_gaming_day()
    return [today - dt.timedelta(days=offset) for offset in range(count)]


def gaming_day_filter(*, day_field: str | None = None, moment_field: str | None = None) -> type[admin.SimpleListFilter]:
    """A list filter by gaming day, with no query of its own: the current and the six days before.

    `day_field` filters a stored gaming day (a DateField); `moment_field` a timestamp within the
    day's [start, end) bounds (the day starts at PIT_GAMING_DAY_START_HOUR, not at midnight).
    """

    class GamingDayFilter(admin.SimpleListFilter):
        title = "gaming day"
        parameter_name = "gaming_day"

        def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, str]]:
            days = _recent_gaming_days()
            labels = ["Current gaming day", "Previous gaming day"]
            return [
                (day.isoformat(), labels[i] if i < 2 else day.strftime("%Y-%m-%d (%a)")) for i, day in enumerate(days)
            ]

        def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
            value = self.value()
            if not value:
                return queryset
            try:
                day = dt.date.fromisoformat(value)
            except ValueError:
                return queryset.none()
            if day_field:
                return queryset.filter(**{day_field: day})
            start, end = gaming_day_bounds(day)
            return queryset.filter(**{f"{moment_field}__gte": start, f"{moment_field}__lt": end})

    return GamingDayFilter


# ---------------------------------------------------------------------------------- service errors


def error_text(exc: Exception) -> str:
    """What a service said, in one line for an admin message."""
    if isinstance(exc, ValidationError):
        if hasattr(exc, "error_dict"):
            return "; ".join(f"{' '.join(errors)}" for errors in exc.message_dict.values())
        return " ".join(exc.messages)
    if isinstance(exc, Conflict):
        return exc.message
    return str(exc)


SERVICE_ERRORS = (ValidationError, Conflict)


class ServiceErrorsAsMessagesMixin(_ModelAdmin):
    """A service that refuses a save from the add/change form shows as an admin message (the
    transaction of the form is rolled back), not as a server error."""

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except SERVICE_ERRORS as exc:
            self.message_user(request, f"Not saved: {error_text(exc)}", messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())


class NoSaveWhenNothingEditableMixin(_ModelAdmin):
    """A change page on which this user may edit nothing (every field read-only for them, no
    editable inline) offers no Save button, and a POST of its form is refused: saving would say
    "changed successfully" having changed nothing. Actions (open a table, review a violation) are
    untouched: they are other forms."""

    def _nothing_editable(self, request: HttpRequest, obj: Model) -> bool:
        fields = set(flatten_fieldsets(self.get_fieldsets(request, obj)))
        if fields - set(self.get_readonly_fields(request, obj)):
            return False
        return not any(inline.has_change_permission(request, obj) for inline in self.get_inline_instances(request, obj))

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        obj = self.get_object(request, object_id) if object_id else None
        if obj is not None and self._nothing_editable(request, obj):
            if request.method == "POST":
                raise PermissionDenied("Nothing on this page is yours to change.")
            extra_context = {
                **(extra_context or {}),
                "show_save": False,
                "show_save_and_continue": False,
                "show_save_and_add_another": False,
            }
        return super().changeform_view(request, object_id, form_url, extra_context)


class ReadOnlyAdminMixin:
    """History, not data entry: view only, for everyone (superusers too)."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class ReadOnlyInline(_TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


# ---------------------------------------------------------------------------------- actions with a note


class NoteForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 70}),
        strip=True,
        help_text="Required: what was done, or why.",
    )


def note_action(
    *,
    service: Callable[[Any, Any, str], object],
    description: str,
    verb: str,
    permission: str = "change",
    done: str,
) -> Callable[[admin.ModelAdmin[Any], HttpRequest, QuerySet[Any]], TemplateResponse | None]:
    """An admin action that asks for a note on an intermediate page, then calls
    `service(obj=..., user=..., note=...)` (through `call`) for each selected row.

    `service` is a callable (obj, user, note) -> object. Errors of one row are shown as
    messages naming the row; the others go through.
    """

    @admin.action(description=description, permissions=[permission])
    def action(
        modeladmin: admin.ModelAdmin[Any], request: HttpRequest, queryset: QuerySet[Any]
    ) -> TemplateResponse | None:
        form = NoteForm(request.POST if request.POST.get("post") == "yes" else None)
        if form.is_bound and form.is_valid():
            done_count = 0
            for obj in queryset:
                try:
                    service(obj, request.user, form.cleaned_data["note"])
                except SERVICE_ERRORS as exc:
                    modeladmin.message_user(request, f"{obj}: {error_text(exc)}", messages.ERROR)
                else:
                    done_count += 1
            if done_count:
                noun = (
                    modeladmin.model._meta.verbose_name
                    if done_count == 1
                    else modeladmin.model._meta.verbose_name_plural
                )
                modeladmin.message_user(request, f"{done_count} {noun} {done}.", messages.SUCCESS)
            return None
        opts = modeladmin.model._meta
        context = {
            **modeladmin.admin_site.each_context(request),
            "title": f"{verb}: a note is required",
            "verb": verb,
            "objects": list(queryset),
            "form": form,
            "opts": opts,
            "action_name": request.POST.get("action", ""),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": modeladmin.media,
        }
        request.current_app = modeladmin.admin_site.name
        return TemplateResponse(request, "admin/pit/note_action.html", context)

    action.__name__ = f"{verb.lower().replace(' ', '_')}_with_note"
    return action


def require_permission(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied
