"""Table accounting as insert-only facts: chip tray counts (openers and closers), fill and credit
slips and each step they go through, drop box counts from the soft count, and cage/count-room
device scopes.

Every row here is a fact written once and never updated: a state (a slip issued, received) is a
new row, never a changed column. Chips and cash are counted by denomination: `chips` maps a
denomination in minor units (as a string: JSON keys) to how many pieces were counted, and
`total_minor` is their sum, written with the row (`pit.accounting.services.chips_total`).
"""
from django.conf import settings
from django.db import models

from pit.core.models import Recorded


class CountKind(models.TextChoices):
    OPENER = "opener", "Opener"
    CLOSER = "closer", "Closer"


class InventoryCount(Recorded):
    """The chip tray of a table counted at the opening or closing of a period (gaming day or shift),
    signed by the dealer and the pit boss."""

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="inventory_counts")
    gaming_day = models.DateField(db_index=True)
    shift = models.PositiveSmallIntegerField(default=1, help_text="1 when shifts are 24 h; 1-3 for 8 h shifts.")
    kind = models.CharField(max_length=6, choices=CountKind.choices)
    currency = models.CharField(max_length=3)
    chips = models.JSONField(help_text="Denomination in minor units -> pieces counted.")
    total_minor = models.BigIntegerField()
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    pit_boss = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["gaming_day", "table", "shift", "-kind"]
        permissions = [("record_inventorycount", "Can record a table's opener or closer")]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "gaming_day", "shift", "kind"], name="inventory_count_once_per_period"
            ),
            models.CheckConstraint(condition=models.Q(kind__in=CountKind.values), name="inventory_kind_valid"),
            models.CheckConstraint(condition=models.Q(total_minor__gte=0), name="inventory_total_not_negative"),
            models.CheckConstraint(condition=models.Q(shift__gte=1, shift__lte=3), name="inventory_shift_valid"),
            models.CheckConstraint(condition=~models.Q(dealer=models.F("pit_boss")), name="inventory_two_signers"),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.gaming_day} shift {self.shift} {self.kind}"


class SlipKind(models.TextChoices):
    FILL = "fill", "Fill (chips from the cage to the table)"
    CREDIT = "credit", "Credit (chips from the table to the cage)"


class Slip(Recorded):
    """A fill or credit as the pit requested it: the slip number, table, period, reason and chips."""

    kind = models.CharField(max_length=6, choices=SlipKind.choices)
    number = models.CharField(max_length=30, help_text="The slip number printed on the form.")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="slips")
    gaming_day = models.DateField(db_index=True)
    shift = models.PositiveSmallIntegerField(default=1)
    currency = models.CharField(max_length=3)
    reason = models.CharField(max_length=200)
    chips = models.JSONField(help_text="Denomination in minor units -> pieces requested.")
    total_minor = models.BigIntegerField()

    class Meta:
        ordering = ["gaming_day", "table", "kind", "number"]
        permissions = [
            ("request_slip", "Can request a fill or credit (the pit)"),
            ("issue_slip", "Can issue a fill or credit (the cage)"),
            ("receive_slip", "Can sign for a fill or credit at the table"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["kind", "number"], name="slip_number_unique_per_kind"),
            models.CheckConstraint(condition=models.Q(kind__in=SlipKind.values), name="slip_kind_valid"),
            models.CheckConstraint(condition=models.Q(total_minor__gt=0), name="slip_total_positive"),
            models.CheckConstraint(condition=models.Q(shift__gte=1, shift__lte=3), name="slip_shift_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display().split(' ')[0]} {self.number} {self.table.code}"


class SlipStepKind(models.TextChoices):
    ISSUED = "issued", "Issued by the cage"
    RECEIVED = "received", "Received at the table"


class SlipStep(Recorded):
    """A later step of a slip: issued by the cage, then received at the table, with the chips each
    signer counted. A step that counts other chips than requested is a violation."""

    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="steps")
    step = models.CharField(max_length=8, choices=SlipStepKind.choices)
    chips = models.JSONField()
    total_minor = models.BigIntegerField()
    signed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="The person who signed the step (the device's operator is not known).",
    )

    class Meta:
        ordering = ["slip", "id"]
        constraints = [
            models.UniqueConstraint(fields=["slip", "step"], name="slip_step_once"),
            models.CheckConstraint(condition=models.Q(step__in=SlipStepKind.values), name="slip_step_valid"),
            models.CheckConstraint(condition=models.Q(total_minor__gte=0), name="slip_step_total_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.slip} {self.step}"


class DropCount(Recorded):
    """A table's drop box for a period as the count team counted it in the soft count."""

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="drop_counts")
    gaming_day = models.DateField(db_index=True)
    shift = models.PositiveSmallIntegerField(default=1)
    currency = models.CharField(max_length=3)
    cash = models.JSONField(help_text="Note denomination in minor units -> notes counted.")
    cash_minor = models.BigIntegerField()
    chips_minor = models.BigIntegerField(default=0, help_text="Chips found in the box.")
    markers_minor = models.BigIntegerField(default=0, help_text="Markers (credit instruments) in the box.")
    total_minor = models.BigIntegerField()

    class Meta:
        ordering = ["gaming_day", "table", "shift"]
        permissions = [("record_dropcount", "Can record a drop box's soft count")]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day", "shift"], name="drop_count_once_per_period"),
            models.CheckConstraint(
                condition=models.Q(cash_minor__gte=0, chips_minor__gte=0, markers_minor__gte=0),
                name="drop_amounts_not_negative",
            ),
            models.CheckConstraint(
                condition=models.Q(
                    total_minor=models.F("cash_minor") + models.F("chips_minor") + models.F("markers_minor")
                ),
                name="drop_total_is_sum",
            ),
            models.CheckConstraint(condition=models.Q(shift__gte=1, shift__lte=3), name="drop_shift_valid"),
        ]

    def __str__(self) -> str:
        return f"drop {self.table.code} {self.gaming_day} shift {self.shift}"


class DeviceScope(models.TextChoices):
    CAGE = "cage", "Cage (issues fills and credits, any table)"
    COUNT_ROOM = "count_room", "Count room (posts drop counts, any table)"


class DeviceGrant(models.Model):
    """An API device allowed to act for the cage or the count room on every table (a floor device
    otherwise reaches only its own table). Granted by a superuser; never edited, only added."""

    device = models.ForeignKey("accounts.Device", on_delete=models.PROTECT, related_name="accounting_grants")
    scope = models.CharField(max_length=12, choices=DeviceScope.choices)
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["device", "scope"], name="device_grant_once"),
            models.CheckConstraint(condition=models.Q(scope__in=DeviceScope.values), name="device_grant_scope_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.device} as {self.scope}"
