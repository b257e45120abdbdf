"""Dealers, who deals at which table and when (rotations), and who is to blame for a violation.

Rotations and fault attributions are records: a rotation is never edited (the next one ends it),
and a violation's attribution is changed by recording a new one (the latest stands).
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded


class Dealer(models.Model):
    code = models.SlugField(
        max_length=20, unique=True, help_text=_("The dealer's badge number, e.g. D042."), verbose_name=_("code")
    )
    name = models.CharField(max_length=100, verbose_name=_("name"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("dealer")
        verbose_name_plural = _("dealers")
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class DealerRotation(Recorded, Fact):
    """From `started_at` on, `dealer` deals at `table` (until the table's next rotation). A rotation
    with no dealer is the dealer leaving with nobody taking over (the table is not dealt)."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="dealer_rotations", verbose_name=_("table")
    )
    dealer = models.ForeignKey(
        Dealer,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rotations",
        help_text=_("Empty: the dealer went out and nobody came in."),
        verbose_name=_("dealer"),
    )
    started_at = models.DateTimeField(db_index=True, verbose_name=_("started at"))

    class Meta:
        verbose_name = _("dealer rotation")
        verbose_name_plural = _("dealer rotations")
        ordering = ["table", "-started_at"]
        permissions = [("record_dealerrotation", "Can record who deals at a table")]
        constraints = [
            models.UniqueConstraint(fields=["table", "started_at"], name="dealer_rotation_unique_start"),
        ]

    def __str__(self) -> str:
        who = self.dealer.code if self.dealer is not None else "nobody"
        return f"{self.table.code}: {who} from {self.started_at:%Y-%m-%d %H:%M}"


class Fault(models.TextChoices):
    DEALER = "dealer", _("Dealer error")
    DEVICE = "device", _("Device fault (card reader, bet recognition)")
    OTHER = "other", _("Neither (player, procedure, unknown)")


class ViolationFault(Fact):
    """Whose fault a violation was, as the pit boss reviewing it decided. Dealer statistics count a
    violation against its dealer unless its latest attribution is a device fault or neither."""

    violation = models.ForeignKey(
        "compliance.RuleViolation", on_delete=models.PROTECT, related_name="faults", verbose_name=_("violation")
    )
    fault = models.CharField(max_length=8, choices=Fault.choices, verbose_name=_("fault"))
    note = models.TextField(verbose_name=_("note"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("decided by")
    )
    decided_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("decided at"))

    class Meta:
        verbose_name = _("violation fault")
        verbose_name_plural = _("violation faults")
        ordering = ["violation", "-decided_at", "-id"]
        permissions = [("attribute_violation", "Can say whose fault a violation was")]
        constraints = [
            models.CheckConstraint(condition=models.Q(fault__in=Fault.values), name="violation_fault_valid"),
            models.CheckConstraint(condition=~models.Q(note=""), name="violation_fault_has_note"),
        ]

    def __str__(self) -> str:
        return f"{self.violation_id}: {self.get_fault_display()}"
