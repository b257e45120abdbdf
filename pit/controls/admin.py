"""The pit's internal controls in the back-office. Every control record is read-only once
recorded; "add" records a new one through its service, for the roles that may: pit bosses record
decks received, issued, moved and counted, keys drawn and returned, handovers and their acceptance;
auditors read everything; storage places, keys and their access lists are set up by superusers.

Two signers: the one acting signs from their login, the other by their password on the same form
(pit.accounting.duties). A refusal from a service shows on the form, nothing is written.
"""

import json

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from pit.accounting.admin import RecordAdmin
from pit.accounting.duties import signature_check
from pit.core.actors import Actor
from pit.core.admin_site import gaming_day_filter, model_page_link
from pit.shoes.models import Shoe
from pit.tables.models import Table

from . import services
from .handover import HANDOVER_SECTIONS
from .models import (
    Deck,
    DeckEvent,
    DeckEventKind,
    DeckIssue,
    HandoverAcceptance,
    KeyAccessList,
    KeyIssue,
    KeyReturn,
    SensitiveKey,
    ShiftHandover,
    StorageCount,
    StoragePlace,
)


def _staff():
    return get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")


def _person(label, help_text=""):
    return forms.ModelChoiceField(queryset=_staff(), to_field_name="username", label=label, help_text=help_text)


def _password(label):
    return forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        strip=False,
        label=label,
        help_text=_("The other signer signs here with their own password (not needed if it is you)."),
    )


def _moment_field(label):
    return forms.DateTimeField(label=label, initial=timezone.now, help_text=_("When it happened (casino time)."))


def _signed(request, data, field: str, role: str):
    """The second signer of a form, checked: their own login or their password here."""
    signature_check(
        field=field,
        signer=data[field],
        role=role,
        actor=Actor(user=request.user),
        secrets={field: data.get(f"{field}_password", "")},
    )
    return data[field]


class ReceiveForm(forms.Form):
    storage = forms.ModelChoiceField(queryset=StoragePlace.objects.all(), to_field_name="code", label=_("storage"))
    serials = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        label=_("serials"),
        help_text=_("The decks' serials, one per line or comma-separated."),
    )
    lot = forms.CharField(max_length=40, required=False, label=_("lot"))
    received_at = _moment_field(_("received at"))
    second_signer = _person(_("second signer"))
    second_signer_password = _password(_("second signer's password"))


class IssueForm(forms.Form):
    shoe = forms.ModelChoiceField(
        queryset=Shoe.objects.select_related("table").order_by("-shuffled_at"), label=_("shoe")
    )
    serials = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}), label=_("serials"), help_text=_("The decks issued for the shoe.")
    )
    issued_at = _moment_field(_("issued at"))
    taken_by = _person(_("taken by"), _("Who signs for the decks at the table."))
    taken_by_password = _password(_("taken by: password"))


class MovementForm(forms.Form):
    serial = forms.CharField(max_length=40, label=_("serial"))
    kind = forms.ChoiceField(choices=DeckEventKind.choices, label=_("kind"))
    storage = forms.ModelChoiceField(
        queryset=StoragePlace.objects.all(),
        to_field_name="code",
        required=False,
        label=_("storage"),
        help_text=_("Where a returned deck is kept."),
    )
    at = _moment_field(_("at"))
    witness = _person(_("witness"), _("Required to cancel or destroy."))
    witness_password = _password(_("witness's password"))
    note = forms.CharField(max_length=200, required=False, label=_("note"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["witness"].required = False


class CountForm(forms.Form):
    storage = forms.ModelChoiceField(queryset=StoragePlace.objects.all(), to_field_name="code", label=_("storage"))
    decks = forms.IntegerField(min_value=0, label=_("decks counted"))
    counted_at = _moment_field(_("counted at"))
    witness = _person(_("witness"))
    witness_password = _password(_("witness's password"))


class KeyIssueForm(forms.Form):
    key = forms.ModelChoiceField(queryset=SensitiveKey.objects.all(), to_field_name="code", label=_("key"))
    table = forms.ModelChoiceField(
        queryset=Table.objects.order_by("code"),
        to_field_name="code",
        label=_("table"),
    )
    issued_to = _person(_("issued to"))
    issued_to_password = _password(_("issued to: password"))
    purpose = forms.CharField(max_length=200, label=_("purpose"))
    issued_at = _moment_field(_("issued at"))


class KeyReturnForm(forms.Form):
    issue = forms.ModelChoiceField(
        queryset=KeyIssue.objects.filter(returned__isnull=True).select_related("key", "issued_to"), label=_("key out")
    )
    returned_by = _person(_("returned by"))
    returned_by_password = _password(_("returned by: password"))
    returned_at = _moment_field(_("returned at"))


class AccessForm(forms.Form):
    key = forms.ModelChoiceField(queryset=SensitiveKey.objects.all(), to_field_name="code", label=_("key"))
    holders = forms.ModelMultipleChoiceField(queryset=_staff(), to_field_name="username", label=_("holders"))
    effective_from = _moment_field(_("effective from"))


class HandoverForm(forms.Form):
    at = _moment_field(_("at"))
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label=_("note"))


class AcceptForm(forms.Form):
    handover = forms.ModelChoiceField(
        queryset=ShiftHandover.objects.filter(acceptance__isnull=True).select_related("handed_by"), label=_("handover")
    )
    at = _moment_field(_("accepted at"))
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, label=_("note"))


def _serials(text: str) -> list[str]:
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


class ControlAdmin(RecordAdmin):
    record_permissions: tuple[str, ...] = ("controls.record_deck",)
    submit_label = _("Record")

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.concrete_fields] + ["recorded_by"]


@admin.register(StoragePlace)
class StoragePlaceAdmin(admin.ModelAdmin):
    list_display = ("code", "name")


@admin.register(SensitiveKey)
class SensitiveKeyAdmin(admin.ModelAdmin):
    list_display = ("code", "kind", "name", "max_out_minutes")
    list_filter = ("kind",)


@admin.register(Deck)
class DeckAdmin(ControlAdmin):
    form_class = ReceiveForm
    help = _("Decks received into a storage place, signed by you and a second person (N.J.A.C. 13:69E-1.18).")
    list_display = ("serial", "lot", "storage", "received_at", "received_by", "second_signer")
    list_filter = ("storage", gaming_day_filter(moment_field="received_at"))
    search_fields = ("serial", "lot")
    list_select_related = ("storage", "received_by", "second_signer")

    def record(self, request, data):
        decks = services.decks_receive(
            serials=_serials(data["serials"]),
            storage=data["storage"],
            received_by=request.user,
            second_signer=_signed(request, data, "second_signer", "second signer"),
            received_at=data["received_at"],
            lot=data["lot"],
            actor=Actor(user=request.user),
        )
        return decks[0]


@admin.register(DeckIssue)
class DeckIssueAdmin(ControlAdmin):
    form_class = IssueForm
    help = _("Decks issued from storage to the shoe's table, for that shoe; the table signs for them.")
    list_display = ("deck", "table", "shoe", "issued_at", "issued_by", "taken_by")
    list_filter = ("table", gaming_day_filter(moment_field="issued_at"))
    search_fields = ("deck__serial",)
    list_select_related = ("deck", "table", "shoe__table", "issued_by", "taken_by")

    def record(self, request, data):
        serials = _serials(data["serials"])
        decks = list(Deck.objects.filter(serial__in=serials))
        missing = sorted(set(serials) - {deck.serial for deck in decks})
        if missing:
            raise forms.ValidationError({"serials": _("Not received: %(serials)s.") % {"serials": ", ".join(missing)}})
        issues = services.decks_issue(
            decks=decks,
            shoe=data["shoe"],
            issued_by=request.user,
            taken_by=_signed(request, data, "taken_by", "the table's signer"),
            issued_at=data["issued_at"],
            actor=Actor(user=request.user),
        )
        return issues[0]


@admin.register(DeckEvent)
class DeckEventAdmin(ControlAdmin):
    form_class = MovementForm
    help = _("A deck back in storage from its table, or cancelled or destroyed before a witness.")
    list_display = ("deck", "kind", "at", "storage", "by", "witness", "note")
    list_filter = ("kind", gaming_day_filter(moment_field="at"))
    search_fields = ("deck__serial",)
    list_select_related = ("deck", "storage", "by", "witness")

    def record(self, request, data):
        deck = Deck.objects.filter(serial=data["serial"].strip()).first()
        if deck is None:
            raise forms.ValidationError({"serial": _("No deck of that serial was received.")})
        actor = Actor(user=request.user)
        if data["kind"] == DeckEventKind.RETURNED:
            if data["storage"] is None:
                raise forms.ValidationError({"storage": _("Say where the deck is kept.")})
            return services.deck_return(deck=deck, storage=data["storage"], by=request.user, at=data["at"], actor=actor)
        if data["witness"] is None:
            raise forms.ValidationError({"witness": _("A witness signs a cancellation or a destruction.")})
        witness = _signed(request, data, "witness", "witness")
        move = services.deck_cancel if data["kind"] == DeckEventKind.CANCELLED else services.deck_destroy
        return move(deck=deck, by=request.user, witness=witness, at=data["at"], note=data["note"], actor=actor)


@admin.register(StorageCount)
class StorageCountAdmin(ControlAdmin):
    form_class = CountForm
    help = _("The decks counted in a storage place, with a witness: the daily reconciliation sets it beside the book.")
    list_display = ("storage", "counted_at", "decks", "counted_by", "witness")
    list_filter = ("storage", gaming_day_filter(moment_field="counted_at"))
    list_select_related = ("storage", "counted_by", "witness")

    def record(self, request, data):
        return services.storage_count_record(
            storage=data["storage"],
            decks=data["decks"],
            counted_by=request.user,
            witness=_signed(request, data, "witness", "witness"),
            counted_at=data["counted_at"],
            actor=Actor(user=request.user),
        )


@admin.register(KeyAccessList)
class KeyAccessListAdmin(ControlAdmin):
    form_class = AccessForm
    help = _("A new version of a key's access list: who may draw it from when on.")
    list_display = ("key", "version", "effective_from", "holders_list", "set_by")
    list_filter = ("key",)
    list_select_related = ("key", "set_by")

    def has_add_permission(self, request, obj=None):
        return request.user.is_superuser

    @admin.display(description=_("holders"))
    def holders_list(self, access):
        names = get_user_model().objects.filter(pk__in=access.holders).order_by("username")
        return ", ".join(user.username for user in names)

    def record(self, request, data):
        return services.key_access_set(
            key=data["key"],
            holders=data["holders"],
            effective_from=data["effective_from"],
            set_by=request.user,
            actor=Actor(user=request.user),
        )


@admin.register(KeyIssue)
class KeyIssueAdmin(ControlAdmin):
    record_permissions = ("controls.record_keyissue",)
    form_class = KeyIssueForm
    help = _("A sensitive key drawn for a table: you issue it, the person drawing it signs.")
    list_display = ("key", "table", "issued_to", "issued_by", "issued_at", "due_at", "purpose")
    list_filter = ("key__kind", "table", gaming_day_filter(moment_field="issued_at"))
    list_select_related = ("key", "table", "issued_to", "issued_by")

    def record(self, request, data):
        return services.key_issue(
            key=data["key"],
            table=data["table"],
            issued_to=_signed(request, data, "issued_to", "the key's holder"),
            issued_by=request.user,
            purpose=data["purpose"],
            issued_at=data["issued_at"],
            actor=Actor(user=request.user),
        )


@admin.register(KeyReturn)
class KeyReturnAdmin(ControlAdmin):
    record_permissions = ("controls.record_keyissue",)
    form_class = KeyReturnForm
    help = _("A key back in its box: you receive it, the person returning it signs.")
    list_display = ("issue", "returned_at", "returned_by", "received_by")
    list_select_related = ("issue__key", "issue__issued_to", "returned_by", "received_by")

    def record(self, request, data):
        return services.key_return(
            issue=data["issue"],
            returned_by=_signed(request, data, "returned_by", "the key's holder"),
            received_by=request.user,
            returned_at=data["returned_at"],
            actor=Actor(user=request.user),
        )


@admin.register(ShiftHandover)
class ShiftHandoverAdmin(ControlAdmin):
    record_permissions = ("controls.record_shifthandover",)
    form_class = HandoverForm
    help = _(
        "Hand over your shift at its change: what stands now (open violations and alarms, tables open and their "
        "inventories, outstanding fills and credits) is recorded with your note; the next pit boss accepts it."
    )
    list_display = ("shift_change_at", "gaming_day", "handed_by", "handed_at", "accepted")
    list_filter = (gaming_day_filter(day_field="gaming_day"),)
    list_select_related = ("handed_by", "acceptance__accepted_by")

    def get_readonly_fields(self, request, obj=None):
        return [*(name for name in super().get_readonly_fields(request, obj) if name != "sections"), "sections_html"]

    def get_exclude(self, request, obj=None):
        return ("sections",)

    @admin.display(description=_("accepted"))
    def accepted(self, handover):
        acceptance = getattr(handover, "acceptance", None) if hasattr(handover, "acceptance") else None
        return f"{acceptance.accepted_by} {timezone.localtime(acceptance.accepted_at):%H:%M}" if acceptance else "—"

    @admin.display(description=_("sections"))
    def sections_html(self, handover):
        titles = {section.name: section.title for section in HANDOVER_SECTIONS}
        return format_html_join(
            "",
            "<h3>{}</h3><pre>{}</pre>",
            (
                (titles.get(name, name), json.dumps(rows, indent=1, ensure_ascii=False) if rows else "—")
                for name, rows in handover.sections.items()
            ),
        ) or format_html("—")

    def record(self, request, data):
        return services.shift_handover_record(
            handed_by=request.user, note=data["note"], at=data["at"], actor=Actor(user=request.user)
        )


@admin.register(HandoverAcceptance)
class HandoverAcceptanceAdmin(ControlAdmin):
    record_permissions = ("controls.record_shifthandover",)
    form_class = AcceptForm
    help = _("Accept the outgoing pit boss's handover: you take the shift as it was handed to you.")
    list_display = ("handover", "accepted_by", "accepted_at", "note")
    list_select_related = ("handover__handed_by", "accepted_by")

    def record(self, request, data):
        return services.shift_handover_accept(
            handover=data["handover"],
            accepted_by=request.user,
            note=data["note"],
            at=data["at"],
            actor=Actor(user=request.user),
        )


model_page_link(
    "card_control",
    _("Card control"),
    _("Decks received, issued, returned and destroyed."),
    "controls.Deck",
    position=75,
)
model_page_link("key_log", _("Keys"), _("Sensitive keys drawn and returned."), "controls.KeyIssue", position=76)
model_page_link(
    "handovers", _("Handovers"), _("Shift handovers and their acceptance."), "controls.ShiftHandover", position=77
)
