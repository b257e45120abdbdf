"""Patrons and seat sessions in the back-office.

- Patrons: the list by card number (names only for whoever holds `players.view_patron_personal`),
  the patron's page (details, versions, exclusions, sessions, and the figures other apps register
  in `pit.players.panels`); every look at it is recorded (`PatronLook`). Enrol from the add form,
  a new version of the details from the patron's page.
- Exclusions: recorded (or lifted: a record that names the one it lifts) from the add form.
- Seat sessions: seat a player from the add form; on the session's page, record what happens next
  (a break, the return, the stand-up, an identification, a buy-in, chips walked, a reversal).
Every form calls the services; nothing here writes a row itself, and nothing is changed or deleted.
"""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.accounts.roles import PATRON_PERSONAL
from pit.core.actors import Actor
from pit.core.admin_site import (
    SERVICE_ERRORS,
    ServiceErrorsAsMessagesMixin,
    error_text,
    model_page_link,
    require_permission,
    view_check_register,
)
from pit.core.forms import MoneyField
from pit.core.money import format_money
from pit.players import selectors
from pit.players.models import (
    BuyIn,
    BuyInKind,
    ChipsWalked,
    Exclusion,
    Patron,
    PatronLook,
    PatronStatus,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionIdentification,
    Tier,
    WalkKind,
)
from pit.players.panels import PATRON_PANELS, SESSION_PANELS, panels_rendered
from pit.players.services import (
    buy_in_record,
    buy_in_reverse,
    exclusion_lift,
    exclusion_record,
    patron_enrol,
    patron_look_record,
    patron_version_record,
    session_identify,
    session_pause,
    session_resume,
    session_sit,
    session_stand,
    walk_record,
    walk_reverse,
)

RECORD_PATRON = "players.record_patron"
RECORD_EXCLUSION = "players.record_exclusion"
RECORD_SESSION = "players.record_seatsession"
SESSIONS_SHOWN = 200


def sees_personal(request) -> bool:
    return request.user.has_perm(PATRON_PERSONAL)


class _ReadOnly(admin.ModelAdmin):
    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Tier)
class TierAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "colour", "rank")

    def has_delete_permission(self, request, obj=None):
        return False


# ------------------------------------------------------------------------------------------ patrons
class PatronEnrolForm(forms.ModelForm):
    name = forms.CharField(label=_("Name"), max_length=120)
    tier = forms.ModelChoiceField(label=_("Tier"), queryset=Tier.objects.all())
    nationality = forms.CharField(label=_("Nationality"), max_length=2, help_text=_("ISO 3166-1, e.g. MO, CN, HK."))
    status = forms.ChoiceField(label=_("Status"), choices=PatronStatus.choices, initial=PatronStatus.ACTIVE)

    class Meta:
        model = Patron
        fields = ("card_number",)


class PatronVersionForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=120)
    tier = forms.ModelChoiceField(label=_("Tier"), queryset=Tier.objects.all())
    nationality = forms.CharField(label=_("Nationality"), max_length=2)
    status = forms.ChoiceField(label=_("Status"), choices=PatronStatus.choices)
    reason = forms.CharField(label=_("Why the details change"), max_length=200)


@admin.register(Patron)
class PatronAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("card_number", "name", "tier", "status", "recorded_at")
    search_fields = ("card_number",)
    form = PatronEnrolForm

    def get_list_display(self, request):
        shown = super().get_list_display(request)
        return shown if sees_personal(request) else tuple(name for name in shown if name != "name")

    def get_search_fields(self, request):
        return ("card_number", "versions__name") if sees_personal(request) else ("card_number",)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("versions__tier")

    def _current(self, patron) -> PatronVersion | None:
        versions = sorted(patron.versions.all(), key=lambda version: (version.recorded_at, version.pk))
        return versions[-1] if versions else None

    @admin.display(description=_("Name"))
    def name(self, patron):
        current = self._current(patron)
        return current.name if current else "—"

    @admin.display(description=_("Tier"))
    def tier(self, patron):
        current = self._current(patron)
        return current.tier.name if current else "—"

    @admin.display(description=_("Status"))
    def status(self, patron):
        current = self._current(patron)
        return current.get_status_display() if current else "—"

    def has_add_permission(self, request):
        return request.user.has_perm(RECORD_PATRON)

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        obj.pk = patron_enrol(
            card_number=data["card_number"],
            name=data["name"],
            tier=data["tier"],
            nationality=data["nationality"],
            status=data["status"],
            actor=Actor(user=request.user),
        ).pk

    def get_urls(self):
        return [
            path(
                "<int:object_id>/version/",
                self.admin_site.admin_view(self.version_view),
                name="players_patron_version",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The patron's page: read-only, each look recorded."""
        patron = get_object_or_404(Patron, pk=object_id)
        require_permission(self.has_view_permission(request, patron))
        personal = sees_personal(request)
        patron_look_record(patron=patron, user=request.user, where="admin patron page", personal=personal)
        versions = list(PatronVersion.objects.filter(patron=patron).select_related("tier", "recorded_by_user"))
        sessions = list(
            selectors.sessions_of_patron(patron)
            .select_related("table")
            .prefetch_related("events")
            .order_by("-started_at")[:SESSIONS_SHOWN]
        )
        exclusions = list(Exclusion.objects.filter(patron=patron).select_related("lifts").order_by("-starts_at", "-id"))
        now = timezone.now()
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Patron %(card)s") % {"card": patron.card_number},
            "opts": self.model._meta,
            "patron": patron,
            "personal": personal,
            "current": versions[0] if versions else None,
            "versions": versions,
            "exclusions": exclusions,
            "excluded_now": selectors.patron_excluded_at(patron, now),
            "sessions": [_session_row(session) for session in sessions],
            "panels": panels_rendered(PATRON_PANELS, request, patron),
            "may_version": _may_version(request),
            "may_exclude": request.user.has_perm(RECORD_EXCLUSION),
        }
        return TemplateResponse(request, "admin/players/patron/page.html", context)

    def version_view(self, request, object_id):
        patron = get_object_or_404(Patron, pk=object_id)
        require_permission(_may_version(request))
        current = selectors.patron_current(patron)
        initial = (
            {"name": current.name, "tier": current.tier, "nationality": current.nationality, "status": current.status}
            if current
            else {}
        )
        form = PatronVersionForm(request.POST or None, initial=initial)
        page = reverse("admin:players_patron_change", args=[patron.pk])
        if request.method == "POST" and form.is_valid():
            try:
                patron_version_record(patron=patron, actor=Actor(user=request.user), **form.cleaned_data)
            except SERVICE_ERRORS as exc:
                self.message_user(request, gettext("Not recorded: %(why)s") % {"why": error_text(exc)}, messages.ERROR)
            else:
                self.message_user(request, gettext("New details of %(card)s recorded.") % {"card": patron.card_number})
                return HttpResponseRedirect(page)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("New details of patron %(card)s") % {"card": patron.card_number},
            "opts": self.model._meta,
            "patron": patron,
            "form": form,
            "back": page,
            "submit": gettext("Record the new details"),
        }
        return TemplateResponse(request, "admin/players/form.html", context)


def _may_version(request) -> bool:
    return request.user.has_perm(RECORD_PATRON) and sees_personal(request)


view_check_register("admin:players_patron_version", _may_version)


def _session_row(session: SeatSession) -> dict:
    events = sorted(session.events.all(), key=lambda event: (event.at, event.pk))
    stood = next((event.at for event in events if event.kind == "stand"), None)
    return {"session": session, "ended_at": stood, "breaks": sum(1 for event in events if event.kind == "pause")}


# --------------------------------------------------------------------------------------- exclusions
class ExclusionForm(forms.ModelForm):
    class Meta:
        model = Exclusion
        fields = ("patron", "kind", "starts_at", "ends_at", "reason", "lifts")
        help_texts = {"lifts": _("To end an exclusion early: name it here; the start is when the lift takes effect.")}


@admin.register(Exclusion)
class ExclusionAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("patron", "kind", "starts_at", "ends_at", "lifts", "recorded_by", "recorded_at")
    list_filter = ("kind",)
    list_select_related = ("patron", "lifts", "recorded_by_user", "recorded_by_device")
    search_fields = ("patron__card_number",)
    raw_id_fields = ("patron", "lifts")
    form = ExclusionForm

    def has_add_permission(self, request):
        return request.user.has_perm(RECORD_EXCLUSION)

    def save_model(self, request, obj, form, change):
        actor = Actor(user=request.user)
        if obj.lifts_id:
            obj.pk = exclusion_lift(exclusion=obj.lifts, at=obj.starts_at, reason=obj.reason, actor=actor).pk
        else:
            obj.pk = exclusion_record(
                patron=obj.patron,
                kind=obj.kind,
                starts_at=obj.starts_at,
                ends_at=obj.ends_at,
                reason=obj.reason,
                actor=actor,
            ).pk


@admin.register(PatronLook)
class PatronLookAdmin(_ReadOnly):
    """Who looked at which patron, where, and whether personal data was shown: the audit of looks."""

    list_display = ("patron", "looked_by", "looked_at", "where", "personal_shown")
    list_filter = ("personal_shown", "where")
    list_select_related = ("patron", "looked_by")
    search_fields = ("patron__card_number", "looked_by__username")
    date_hierarchy = "looked_at"

    def has_add_permission(self, request):
        return False


# ---------------------------------------------------------------------------------------- sessions
def _money(row) -> str:
    return format_money(row.amount_minor, row.currency)


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SessionEventInline(_ReadOnlyInline):
    model = SessionEvent
    fields = readonly_fields = ("kind", "at", "recorded_by", "recorded_at")


class IdentificationInline(_ReadOnlyInline):
    model = SessionIdentification
    fields = readonly_fields = ("patron", "reason", "recorded_by", "recorded_at")


class BuyInInline(_ReadOnlyInline):
    model = BuyIn
    fk_name = "session"
    fields = readonly_fields = ("id", "kind", "amount", "at", "reverses", "reason", "recorded_by")

    @admin.display(description=_("Amount"))
    def amount(self, row):
        return _money(row)


class ChipsWalkedInline(_ReadOnlyInline):
    model = ChipsWalked
    fk_name = "session"
    fields = readonly_fields = ("id", "how", "amount", "at", "reverses", "reason", "recorded_by")

    @admin.display(description=_("Amount"))
    def amount(self, row):
        return _money(row)


ACTIONS = (
    ("pause", _("Break (the seat is kept)")),
    ("resume", _("Back from a break")),
    ("stand", _("Stand-up (chips walked: the amount, if known)")),
    ("identify", _("Identify the unrated player (card number and reason)")),
    ("buy_in", _("Buy-in (kind and amount)")),
    ("walk", _("Chips walked (how and amount)")),
    ("reverse", _("Reverse a buy-in or chips walked (which, and the reason)")),
)


class SessionRecordForm(forms.Form):
    """What happens at a seated session next; each action takes the fields its help names."""

    action = forms.ChoiceField(label=_("What happened"), choices=ACTIONS)
    at = forms.DateTimeField(label=_("When"), help_text=_("Local time of the casino, e.g. 2026-03-01 14:05."))
    amount = MoneyField(label=_("Amount"), required=False)
    buy_in_kind = forms.ChoiceField(label=_("Buy-in kind"), choices=BuyInKind.choices, required=False)
    how = forms.ChoiceField(label=_("Chips walked"), choices=WalkKind.choices, required=False)
    card_number = forms.CharField(label=_("Card number"), max_length=32, required=False)
    record = forms.ChoiceField(label=_("Record reversed"), required=False)
    reason = forms.CharField(label=_("Reason"), max_length=200, required=False)

    def __init__(self, *args, session: SeatSession, **kwargs):
        super().__init__(*args, **kwargs)
        amount = self.fields["amount"]
        assert isinstance(amount, MoneyField)
        amount.set_currency(session.table.currency)
        reversible = [("", "—")]
        for model, label in ((BuyIn, gettext("buy-in")), (ChipsWalked, gettext("chips walked"))):
            rows = model.objects.filter(session=session, reverses__isnull=True, reversed_by__isnull=True)
            for row in rows.order_by("at", "pk"):
                reversible.append((f"{model._meta.model_name}:{row.pk}", f"{label} {_money(row)} at {row.at:%H:%M}"))
        record = self.fields["record"]
        assert isinstance(record, forms.ChoiceField)
        record.choices = reversible


@admin.register(SeatSession)
class SeatSessionAdmin(ServiceErrorsAsMessagesMixin, _ReadOnly):
    list_display = ("table", "seat", "who", "started_at", "state", "gaming_day")
    list_filter = ("table", "gaming_day")
    list_select_related = ("table", "patron", "identification__patron")
    search_fields = ("patron__card_number", "identification__patron__card_number", "description")
    date_hierarchy = "started_at"
    raw_id_fields = ("patron",)
    fields = ("table", "seat", "patron", "description", "started_at")
    inlines = (SessionEventInline, IdentificationInline, BuyInInline, ChipsWalkedInline)
    change_form_template = "admin/players/seatsession/change_form.html"

    @admin.display(description=_("Who"))
    def who(self, session):
        patron = selectors.session_patron(session)
        return patron.card_number if patron else gettext("unrated: %(what)s") % {"what": session.description}

    @admin.display(description=_("State"))
    def state(self, session):
        return selectors.session_state(session)

    def has_add_permission(self, request):
        return request.user.has_perm(RECORD_SESSION)

    def get_readonly_fields(self, request, obj=None):
        return self.fields if obj is not None else ()

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else ()

    def save_model(self, request, obj, form, change):
        obj.pk = session_sit(
            table=obj.table,
            seat=obj.seat,
            at=obj.started_at,
            patron=obj.patron,
            description=obj.description,
            actor=Actor(user=request.user),
        ).pk

    def save_related(self, request, form, formsets, change):
        """The inlines are read-only: the session's rows are the services'."""

    def get_urls(self):
        return [
            path(
                "<int:object_id>/record/",
                self.admin_site.admin_view(self.record_view),
                name="players_seatsession_record",
            ),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        session = get_object_or_404(SeatSession.objects.select_related("table"), pk=object_id)
        extra = {
            "panels": panels_rendered(SESSION_PANELS, request, session),
            "spans": selectors.session_spans(session),
            "may_record": request.user.has_perm(RECORD_SESSION) and selectors.session_state(session) != "stood",
        }
        return super().change_view(request, object_id, form_url, {**(extra_context or {}), **extra})

    def record_view(self, request, object_id):
        session = get_object_or_404(SeatSession.objects.select_related("table", "patron"), pk=object_id)
        require_permission(request.user.has_perm(RECORD_SESSION))
        form = SessionRecordForm(request.POST or None, session=session, initial={"at": timezone.now()})
        page = reverse("admin:players_seatsession_change", args=[session.pk])
        if request.method == "POST" and form.is_valid():
            try:
                done = _record(session, form.cleaned_data, Actor(user=request.user))
            except SERVICE_ERRORS as exc:
                self.message_user(request, gettext("Not recorded: %(why)s") % {"why": error_text(exc)}, messages.ERROR)
            else:
                self.message_user(request, done)
                return HttpResponseRedirect(page)
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Record at %(session)s") % {"session": session},
            "opts": self.model._meta,
            "form": form,
            "back": page,
            "submit": gettext("Record"),
        }
        return TemplateResponse(request, "admin/players/form.html", context)


def _may_record(request) -> bool:
    return request.user.has_perm(RECORD_SESSION)


view_check_register("admin:players_seatsession_record", _may_record)


def _required(data: dict, *names: str) -> None:
    missing = {name: gettext("Required for this action.") for name in names if data.get(name) in (None, "")}
    if missing:
        raise ValidationError(missing)


def _record(session: SeatSession, data: dict, actor: Actor) -> str:
    """Call the service the action names; the message to show once it is recorded."""
    action, at = data["action"], data["at"]
    currency = session.table.currency
    if action == "pause":
        session_pause(session=session, at=at, actor=actor)
        return gettext("Break recorded.")
    if action == "resume":
        session_resume(session=session, at=at, actor=actor)
        return gettext("Return from the break recorded.")
    if action == "stand":
        session_stand(session=session, at=at, chips_walked=data["amount"], how=data["how"] or "counted", actor=actor)
        return gettext("Stand-up recorded.")
    if action == "identify":
        _required(data, "card_number", "reason")
        patron = selectors.patron_by_card(data["card_number"])
        if patron is None:
            raise ValidationError(
                {"card_number": gettext("No patron holds card %(card)s.") % {"card": data["card_number"]}}
            )
        session_identify(session=session, patron=patron, reason=data["reason"], actor=actor)
        return gettext("Session identified as card %(card)s.") % {"card": patron.card_number}
    if action == "buy_in":
        _required(data, "amount", "buy_in_kind")
        buy_in_record(
            session=session, kind=data["buy_in_kind"], amount=data["amount"], currency=currency, at=at, actor=actor
        )
        return gettext("Buy-in recorded.")
    if action == "walk":
        _required(data, "amount", "how")
        walk_record(session=session, how=data["how"], amount=data["amount"], currency=currency, at=at, actor=actor)
        return gettext("Chips walked recorded.")
    _required(data, "record", "reason")
    kind, _, pk = data["record"].partition(":")
    if kind == "buyin":
        buy_in_reverse(buy_in=BuyIn.objects.get(pk=pk, session=session), reason=data["reason"], actor=actor)
    else:
        walk_reverse(walk=ChipsWalked.objects.get(pk=pk, session=session), reason=data["reason"], actor=actor)
    return gettext("Reversal recorded.")


model_page_link(
    "patrons", _("Patrons"), _("Patrons by card number; their sessions and exclusions."), "players.Patron", position=65
)
model_page_link(
    "seat_sessions",
    _("Seat sessions"),
    _("Who sits where: seat a player, breaks, stand-ups, buy-ins."),
    "players.SeatSession",
    position=66,
)
