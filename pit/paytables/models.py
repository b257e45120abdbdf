"""Paytable configurations, versioned: one that has settled a coup is never edited, only superseded."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact


@audit_track("PaytableConfigurationAuditEvent")
class PaytableConfiguration(Fact):
    """One version of a paytable. `rules` is the game engine's `Paytable.to_dict()`.

    `house_edges` is computed by the engine on save (exact, 8 decks) and stored for display only.
    A fact: never deleted; its rules, name and override reason may change only until it settles a
    coup, and the database refuses any change after (paytables/0002's trigger), whoever connects.
    """

    fact_updatable = ("name", "rules", "house_edges", "override_reason")

    code = models.SlugField(
        max_length=40, help_text=_("The family this version belongs to, e.g. commission-box."), verbose_name=_("code")
    )
    version = models.PositiveIntegerField(default=1, verbose_name=_("version"))
    name = models.CharField(max_length=100, verbose_name=_("name"))
    preset = models.CharField(
        max_length=40, blank=True, help_text=_("The engine preset it was built from."), verbose_name=_("preset")
    )
    rules = models.JSONField(verbose_name=_("rules"))
    house_edges = models.JSONField(
        default=dict,
        editable=False,
        help_text=_("Per bet: exact house edge and variance."),
        verbose_name=_("house edges"),
    )
    override_reason = models.TextField(
        blank=True,
        help_text=_("Required when a bet gives the player the edge; says who approved it and why."),
        verbose_name=_("override reason"),
    )
    supersedes = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="superseded_by",
        verbose_name=_("supersedes"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta:
        verbose_name = _("paytable configuration")
        verbose_name_plural = _("paytable configurations")
        ordering = ["code", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["code", "version"], name="paytable_version_unique"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="paytable_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"
