"""Paytable configurations: house edges as percentages; created from a preset, edited only while no
coup was settled under them (a settled version is superseded, never edited)."""

from decimal import Decimal

from django import forms
from django.contrib import admin, messages
from django.db.models import Exists, OuterRef
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit import game
from pit.core.admin_site import ServiceErrorsAsMessagesMixin, admin_link
from pit.core.percent import percent
from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_create_from_preset, paytable_update
from pit.shoes.models import Coup

MAIN_BETS = ("player", "banker", "tie")


def edge_percent(configuration: PaytableConfiguration, bet: str) -> str:
    edge = configuration.house_edges.get(bet, {}).get("house_edge")
    if edge is None:
        return "—"
    return f"{percent(Decimal(edge), 4)}%"


class PaytableFromPresetForm(forms.ModelForm):
    """The add form: a new paytable family from one of the engine's presets."""

    preset = forms.ChoiceField(choices=[(name, name) for name in game.PRESETS], label=_("Preset"))

    class Meta:
        model = PaytableConfiguration
        fields = ("preset", "code", "name")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["code"].required = False
        self.fields["name"].required = False
        self.fields["code"].help_text = gettext("Defaults to the preset's name with dashes (commission-box).")
        self.fields["name"].help_text = gettext("Defaults to the preset's name.")

    def clean(self):
        cleaned = super().clean()
        assert cleaned is not None  # ModelForm.clean returns its cleaned_data
        code = cleaned.get("code") or (cleaned.get("preset") or "").replace("_", "-")
        if code and PaytableConfiguration.objects.filter(code=code).exists():
            self.add_error(
                "code",
                gettext("The paytable family {code!r} exists already; supersede its current version.").format(
                    code=code
                ),
            )
        return cleaned

    def validate_unique(self):
        """The (code, version) pair is checked in clean(); the version comes from the service."""


class PaytableEditForm(forms.ModelForm):
    """Editing a version that has settled nothing yet: the rules as the engine's JSON."""

    rules = forms.JSONField(
        widget=forms.Textarea(attrs={"rows": 20, "cols": 100}),
        help_text=_("The engine's paytable as JSON."),
        label=_("Rules"),
    )

    class Meta:
        model = PaytableConfiguration
        fields = ("name", "rules", "override_reason")


@admin.register(PaytableConfiguration)
class PaytableConfigurationAdmin(ServiceErrorsAsMessagesMixin, admin.ModelAdmin):
    list_display = (
        "code",
        "version",
        "name",
        "preset",
        "commission",
        "player_edge",
        "banker_edge",
        "tie_edge",
        "other_edges",
        "settled",
        "superseded_by_link",
    )
    list_display_links = ("code", "version")
    list_filter = ("preset", "code")
    search_fields = ("code", "name")
    list_select_related = ("superseded_by",)
    date_hierarchy = "created_at"
    show_full_result_count = False
    readonly_fields = (
        "code",
        "version",
        "preset",
        "edges_table",
        "supersedes",
        "superseded_by_link",
        "created_at",
        "created_by",
    )

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(has_settled=Exists(Coup.objects.filter(paytable=OuterRef("pk"))))

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = PaytableFromPresetForm if obj is None else PaytableEditForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("preset", "code", "name")
        return (
            "code",
            "version",
            "name",
            "preset",
            "rules",
            "override_reason",
            "edges_table",
            "supersedes",
            "superseded_by_link",
            "created_at",
            "created_by",
        )

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        if obj.has_settled or not self.has_change_permission(request, obj):
            return (*self.readonly_fields, "name", "rules", "override_reason")
        return self.readonly_fields

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None and obj.has_settled and request.method == "GET":
            self.message_user(
                request,
                gettext(
                    "{obj} has settled coups: it is never edited. To change it, supersede "
                    "it with a new version (tables playing it move to the new version for "
                    "their next coups)."
                ).format(obj=obj),
                messages.WARNING,
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        if change:
            updated = paytable_update(
                configuration=obj,
                rules=form.cleaned_data["rules"],
                name=form.cleaned_data["name"],
                override_reason=form.cleaned_data.get("override_reason") or "",
            )
        else:
            updated = paytable_create_from_preset(
                preset=form.cleaned_data["preset"],
                code=form.cleaned_data.get("code") or "",
                name=form.cleaned_data.get("name") or "",
                user=request.user,
            )
        for field in PaytableConfiguration._meta.concrete_fields:
            setattr(obj, field.attname, getattr(updated, field.attname))

    def has_delete_permission(self, request, obj=None):
        return False

    # ------------------------------------------------------------------ columns

    @admin.display(description=_("commission"))
    def commission(self, configuration):
        mode = configuration.rules.get("commission_mode", "none")
        rate = Decimal(configuration.rules.get("commission_rate") or "0") * 100
        return f"{mode} {rate.normalize():f}%" if mode != "none" else "none"

    @admin.display(description=_("player edge"))
    def player_edge(self, configuration):
        return edge_percent(configuration, "player")

    @admin.display(description=_("banker edge"))
    def banker_edge(self, configuration):
        return edge_percent(configuration, "banker")

    @admin.display(description=_("tie edge"))
    def tie_edge(self, configuration):
        return edge_percent(configuration, "tie")

    @admin.display(description=_("side bets"))
    def other_edges(self, configuration):
        others = sorted(bet for bet in configuration.house_edges if bet not in MAIN_BETS)
        return (
            format_html_join(
                mark_safe("<br>"),
                "{} {}",
                ((bet.replace("_", " "), edge_percent(configuration, bet)) for bet in others),
            )
            or "—"
        )

    @admin.display(description=_("settled coups"), boolean=True, ordering="has_settled")
    def settled(self, configuration):
        return configuration.has_settled

    @admin.display(description=_("superseded by"))
    def superseded_by_link(self, configuration):
        successor = getattr(configuration, "superseded_by", None)
        return admin_link(successor) if successor is not None else "—"

    @admin.display(description=_("house edges (exact, 8 decks)"))
    def edges_table(self, configuration):
        rows = format_html_join(
            "",
            "<tr><th>{}</th><td>{}</td><td>{}</td></tr>",
            (
                (
                    bet.replace("_", " "),
                    edge_percent(configuration, bet),
                    configuration.house_edges[bet].get("variance", ""),
                )
                for bet in sorted(configuration.house_edges)
            ),
        )
        return format_html(
            gettext('<table class="pit-edges"><tr><th>bet</th><th>house edge</th><th>variance</th></tr>{}</table>'),
            rows,
        )
