"""The back-office as a pit boss sees it: the admin site's title and the pieces every app's admin
shares (cards shown as cards, money formatted, gaming-day filters, actions that demand a note).

The admin writes nothing itself: every change goes through a service; errors come back as
admin messages, never as a server error.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import unescape
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import ImproperlyConfigured, PermissionDenied, ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve, reverse
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from pit import game
from pit.core.errors import Conflict
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from pit.core.money import format_money, variance_display

admin.site.site_header = _("Pit back-office")
admin.site.site_title = _("Pit back-office")
admin.site.index_title = _("The pit")
# The lists are wide (a table row carries its shoe, coups, violations and variance): no side bar.
admin.site.enable_nav_sidebar = False
# Rows of this back-office are history: nobody deletes them in bulk from a list.
admin.site.disable_action("delete_selected")

RED_SUITS = frozenset({"H", "D"})

# The mixins below are for ModelAdmin classes and call its methods: to the type checker they are one.
# Django's admin classes are generic to the type checker only (not subscriptable at run time).
if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise

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
    return format_html("{} {}", money_html(minor, currency), variance_display(minor))


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


def winner_letter(winner: str) -> str:
    """A winner as one letter (P, B, T), or its one character in Chinese (閒, 莊, 和)."""
    letters = {
        "player": pgettext("player, one letter", "P"),
        "banker": pgettext("banker, one letter", "B"),
        "tie": pgettext("tie, one letter", "T"),
    }
    return letters.get(winner, "?")


def winner_word(winner: str) -> str:
    """A winner or a derived road's colour in words, for titles ("banker", "red")."""
    words = {
        "player": pgettext("winner", "player"),
        "banker": pgettext("winner", "banker"),
        "tie": pgettext("winner", "tie"),
        "red": pgettext("derived road", "red"),
        "blue": pgettext("derived road", "blue"),
    }
    return words.get(winner, winner)


def winner_html(winner: str) -> str:
    letter = winner_letter(winner)
    return format_html('<span class="pit-winner pit-winner-{}">{}</span>', winner, letter)


def coup_marks_html(*, natural: bool, player_pair: bool, banker_pair: bool) -> str:
    labels = ((natural, gettext("natural")), (player_pair, gettext("P pair")), (banker_pair, gettext("B pair")))
    marks = [label for flag, label in labels if flag]
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
            "letter": winner_letter(coup.winner),
            "winner": coup.winner,
            "winner_display": winner_word(coup.winner),
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
        mark = cell.get("winner") or cell.get("colour")
        grid[cell["row"]][cell["col"]] = {
            "ties": 0,
            **cell,
            "mark": mark,
            "mark_display": winner_word(mark) if mark else "",
        }
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
        title = _("gaming day")
        parameter_name = "gaming_day"

        def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[Any]) -> list[tuple[str, str]]:
            days = _recent_gaming_days()
            labels = [gettext("Current gaming day"), gettext("Previous gaming day")]
            return [
                (day.isoformat(), labels[i] if i < 2 else date_format(day, "Y-m-d (D)")) for i, day in enumerate(days)
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
            self.message_user(
                request, gettext("Not saved: {error_text}").format(error_text=error_text(exc)), messages.ERROR
            )
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
                raise PermissionDenied(gettext("Nothing on this page is yours to change."))
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
        help_text=_("Required: what was done, or why."),
        label=_("Note"),
    )


def note_action(
    *,
    service: Callable[[Any, Any, str], object],
    description: StrOrPromise,
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
            "title": _("%(verb)s: a note is required") % {"verb": verb},
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


# ---------------------------------------------------------------------------------- the pit's own pages


@dataclass(frozen=True)
class PageLink:
    """A page of the back-office in its header and on its start page. `allowed(request)` is the
    very function the page's view checks before it answers: a link shows exactly when its page
    opens (a link to a model's list checks what the admin's list checks)."""

    key: str
    label: StrOrPromise  # marked for translation: gettext_lazy
    description: StrOrPromise
    url: Callable[[], str]
    allowed: Callable[[HttpRequest], bool]
    position: int = 100  # the header's order, left to right


PAGE_LINKS: dict[str, PageLink] = {}


def page_link_register(link: PageLink) -> PageLink:
    """One registry of the pit's pages, in the order they are registered. A link is registered at
    import, before any request has a language: its label and description are lazy translations,
    rendered in each reader's language (a plain string would stay in the language of the import)."""
    for text in (link.label, link.description):
        if not isinstance(text, Promise):
            raise ImproperlyConfigured(f"page link {link.key!r}: {text!r} is not a lazy translation (gettext_lazy)")
    PAGE_LINKS[link.key] = link
    return link


def model_page_link(
    key: str, label: StrOrPromise, description: StrOrPromise, model_label: str, query: str = "", position: int = 100
) -> PageLink:
    """A link to a model's admin list (with an optional query: a filter), shown to whoever may open it."""

    def url() -> str:
        app_label, model_name = model_label.lower().split(".")
        return reverse(f"admin:{app_label}_{model_name}_changelist") + (f"?{query}" if query else "")

    def allowed(request: HttpRequest) -> bool:  # what the admin's list itself checks
        return link_allowed(request, urlsplit(url()).path)

    return page_link_register(PageLink(key, label, description, url, allowed, position))


def page_links(request: HttpRequest) -> list[dict[str, StrOrPromise]]:
    """The pit's pages this request's user may open, as (label, url, description) for a template."""
    user = getattr(request, "user", None)
    if user is None or not (user.is_active and user.is_staff):
        return []
    return [
        {"key": link.key, "label": str(link.label), "url": link.url(), "description": str(link.description)}
        for link in sorted(PAGE_LINKS.values(), key=lambda link: link.position)
        if link.allowed(request)
    ]


model_page_link("tables", _("Tables"), _("Open and close tables; current shoes."), "tables.Table", position=30)
model_page_link(
    "open_violations",
    _("Open violations"),
    _("Review with a note: acknowledge, resolve or dismiss."),
    "compliance.RuleViolation",
    "status__exact=open",
    position=40,
)


# ---------------------------------------------------------------------------------- links a reader may open

# The kind of admin page a URL name ends with -> what its ModelAdmin view checks before it answers.
_PAGE_CHECKS: dict[str, Callable[[Any, HttpRequest], bool]] = {
    "changelist": lambda model_admin, request: model_admin.has_view_or_change_permission(request),
    "change": lambda model_admin, request: model_admin.has_view_or_change_permission(request),
    "history": lambda model_admin, request: model_admin.has_view_or_change_permission(request),
    "add": lambda model_admin, request: model_admin.has_add_permission(request),
    "delete": lambda model_admin, request: model_admin.has_delete_permission(request),
}


def link_allowed(request: HttpRequest, path: str) -> bool:
    """Whether this request's user may open the back-office page at `path`: a ModelAdmin's page by
    what that view checks (_PAGE_CHECKS), a registered page (PAGE_LINKS) by its own check. Pages of
    another kind (a review form, the login) are not judged here: True."""
    try:
        match = resolve(path)
    except Resolver404:
        return True
    model_admin = getattr(match.func, "model_admin", None)
    if model_admin is not None:
        kind = (match.url_name or "").rsplit("_", 1)[-1]
        check = _PAGE_CHECKS.get(kind)
        return check is None or check(model_admin, request)
    view_check = VIEW_CHECKS.get(match.view_name)
    if view_check is not None:
        return view_check(request)
    for link in PAGE_LINKS.values():
        if urlsplit(link.url()).path == path:
            return link.allowed(request)
    return True


# URL name -> the check its view makes before it answers, for pages that are neither a ModelAdmin's
# nor in the header (a slip's print page): registered beside the view, read by link_allowed.
VIEW_CHECKS: dict[str, Callable[[HttpRequest], bool]] = {}


def view_check_register(url_name: str, allowed: Callable[[HttpRequest], bool]) -> None:
    VIEW_CHECKS[url_name] = allowed


_ANCHOR = re.compile(r'<a\b[^>]*?\bhref="(/admin/[^"]*)"[^>]*>(.*?)</a>', re.DOTALL)


def links_refused_removed(request: HttpRequest, html: str) -> str:
    """The page with every link its reader may not open (link_allowed) turned into its plain text."""
    verdicts: dict[str, bool] = {}

    def replace(anchor: re.Match[str]) -> str:
        path = urlsplit(unescape(anchor.group(1))).path
        if path not in verdicts:
            verdicts[path] = link_allowed(request, path)
        if verdicts[path]:
            return anchor.group(0)
        return f'<span class="pit-unlinked" title="not yours to open">{anchor.group(2)}</span>'

    return _ANCHOR.sub(replace, html)


class RefusedLinksMiddleware:
    """Every HTML page under /admin/ (the admin's, the dashboard's, the reports', a refusal's) links
    only pages its reader may open: a link to a page the reader's role may not open shows as text.
    One function decides (link_allowed), from the same check the linked page's view makes."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (
            request.path.startswith("/admin/")
            and user is not None
            and user.is_authenticated
            and not user.is_superuser
            and not getattr(response, "streaming", False)
            and response.get("Content-Type", "").startswith("text/html")
        ):
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()
            charset = response.charset or "utf-8"
            response.content = links_refused_removed(request, response.content.decode(charset)).encode(charset)
        return response
