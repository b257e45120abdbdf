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
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded
from pit.core.percent import round_percent


class CountKind(models.TextChoices):
    OPENER = "opener", _("Opener")
    CLOSER = "closer", _("Closer")


class InventoryCount(Recorded, Fact):
    """The chip tray of a table counted at the opening or closing of a period (gaming day or shift),
    signed by the dealer and the pit boss."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="inventory_counts", verbose_name=_("table")
    )
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    shift = models.PositiveSmallIntegerField(
        default=1, help_text=_("1 when shifts are 24 h; 1-3 for 8 h shifts."), verbose_name=_("shift")
    )
    kind = models.CharField(max_length=6, choices=CountKind.choices, verbose_name=_("kind"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    chips = models.JSONField(help_text=_("Denomination in minor units -> pieces counted."), verbose_name=_("chips"))
    total_minor = models.BigIntegerField(verbose_name=_("total minor"))
    dealer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("dealer")
    )
    pit_boss = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("pit boss")
    )

    class Meta:
        verbose_name = _("inventory count")
        verbose_name_plural = _("inventory counts")
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
    FILL = "fill", _("Fill (chips from the cage to the table)")
    CREDIT = "credit", _("Credit (chips from the table to the cage)")


class Slip(Recorded, Fact):
    """A fill or credit as the pit requested it: the slip number, table, period, reason and chips."""

    kind = models.CharField(max_length=6, choices=SlipKind.choices, verbose_name=_("kind"))
    number = models.CharField(
        max_length=30, help_text=_("The slip number printed on the form."), verbose_name=_("number")
    )
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="slips", verbose_name=_("table"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    shift = models.PositiveSmallIntegerField(default=1, verbose_name=_("shift"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    reason = models.CharField(max_length=200, verbose_name=_("reason"))
    chips = models.JSONField(help_text=_("Denomination in minor units -> pieces requested."), verbose_name=_("chips"))
    total_minor = models.BigIntegerField(verbose_name=_("total minor"))

    class Meta:
        verbose_name = _("slip")
        verbose_name_plural = _("slips")
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
    ISSUED = "issued", _("Issued by the cage")
    RECEIVED = "received", _("Received at the table")


class SlipStep(Recorded, Fact):
    """A later step of a slip: issued by the cage, then received at the table, with the chips each
    signer counted. A step that counts other chips than requested is a violation."""

    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="steps", verbose_name=_("slip"))
    step = models.CharField(max_length=8, choices=SlipStepKind.choices, verbose_name=_("step"))
    chips = models.JSONField(verbose_name=_("chips"))
    total_minor = models.BigIntegerField(verbose_name=_("total minor"))
    signed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("The person who signed the step (the device's operator is not known)."),
        verbose_name=_("signed by"),
    )

    class Meta:
        verbose_name = _("slip step")
        verbose_name_plural = _("slip steps")
        ordering = ["slip", "id"]
        constraints = [
            models.UniqueConstraint(fields=["slip", "step"], name="slip_step_once"),
            models.CheckConstraint(condition=models.Q(step__in=SlipStepKind.values), name="slip_step_valid"),
            models.CheckConstraint(condition=models.Q(total_minor__gte=0), name="slip_step_total_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.slip} {self.step}"


class DropCount(Recorded, Fact):
    """A table's drop box for a period as the count team counted it in the soft count."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="drop_counts", verbose_name=_("table")
    )
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    shift = models.PositiveSmallIntegerField(default=1, verbose_name=_("shift"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    cash = models.JSONField(help_text=_("Note denomination in minor units -> notes counted."), verbose_name=_("cash"))
    cash_minor = models.BigIntegerField(verbose_name=_("cash minor"))
    chips_minor = models.BigIntegerField(
        default=0, help_text=_("Chips found in the box."), verbose_name=_("chips minor")
    )
    markers_minor = models.BigIntegerField(
        default=0, help_text=_("Markers (credit instruments) in the box."), verbose_name=_("markers minor")
    )
    total_minor = models.BigIntegerField(verbose_name=_("total minor"))

    class Meta:
        verbose_name = _("drop count")
        verbose_name_plural = _("drop counts")
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
    CAGE = "cage", _("Cage (issues fills and credits, any table)")
    COUNT_ROOM = "count_room", _("Count room (posts drop counts, any table)")


class DeviceGrant(Fact):
    """An API device allowed to act for the cage or the count room on every table (a floor device
    otherwise reaches only its own table). Granted by a superuser; never edited, only added."""

    device = models.ForeignKey(
        "accounts.Device", on_delete=models.PROTECT, related_name="accounting_grants", verbose_name=_("device")
    )
    scope = models.CharField(max_length=12, choices=DeviceScope.choices, verbose_name=_("scope"))
    granted_at = models.DateTimeField(auto_now_add=True, verbose_name=_("granted at"))

    class Meta:
        verbose_name = _("device grant")
        verbose_name_plural = _("device grants")
        constraints = [
            models.UniqueConstraint(fields=["device", "scope"], name="device_grant_once"),
            models.CheckConstraint(condition=models.Q(scope__in=DeviceScope.values), name="device_grant_scope_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.device} as {self.scope}"


class HoldFlag(Fact):
    """A table-day whose win-to-drop falls outside the investigation rule's range (see
    pit.accounting.services.holds_investigate): it needs a written finding before the day closes."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="hold_flags", verbose_name=_("table")
    )
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    rule = models.CharField(
        max_length=80, help_text=_("The rule as configured when the flag was raised."), verbose_name=_("rule")
    )
    win_minor = models.BigIntegerField(verbose_name=_("win minor"))
    drop_minor = models.BigIntegerField(verbose_name=_("drop minor"))
    hold_percent = models.DecimalField(max_digits=12, decimal_places=4, verbose_name=_("hold percent"))
    low_percent = models.DecimalField(max_digits=12, decimal_places=4, verbose_name=_("low percent"))
    high_percent = models.DecimalField(max_digits=12, decimal_places=4, verbose_name=_("high percent"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    flagged_at = models.DateTimeField(auto_now_add=True, verbose_name=_("flagged at"))

    class Meta:
        verbose_name = _("hold flag")
        verbose_name_plural = _("hold flags")
        ordering = ["-gaming_day", "table"]
        permissions = [("investigate_holdflag", "Can write the finding of a win-to-drop investigation")]
        constraints = [
            models.UniqueConstraint(fields=["table", "gaming_day", "rule"], name="hold_flag_once_per_rule"),
        ]

    def __str__(self) -> str:
        return f"{self.table.code} {self.gaming_day} win-to-drop {round_percent(self.hold_percent)} %"


class HoldFinding(Fact):
    """The written finding of an investigation: who wrote what, when. Later findings add, never replace."""

    flag = models.ForeignKey(HoldFlag, on_delete=models.PROTECT, related_name="findings", verbose_name=_("flag"))
    text = models.TextField(verbose_name=_("text"))
    written_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("written by")
    )
    written_at = models.DateTimeField(auto_now_add=True, verbose_name=_("written at"))

    class Meta:
        verbose_name = _("hold finding")
        verbose_name_plural = _("hold findings")
        ordering = ["flag", "written_at", "id"]
        constraints = [models.CheckConstraint(condition=~models.Q(text=""), name="hold_finding_has_text")]

    def __str__(self) -> str:
        return f"finding on {self.flag}"


class DayAction(models.TextChoices):
    CLOSED = "closed", _("Closed")
    REOPENED = "reopened", _("Re-opened")


class GamingDayEvent(Fact):
    """A gaming day closed or re-opened by an accountant: the latest event says whether it is locked."""

    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    action = models.CharField(max_length=8, choices=DayAction.choices, verbose_name=_("action"))
    note = models.TextField(blank=True, verbose_name=_("note"))
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("by"))
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("at"))

    class Meta:
        verbose_name = _("gaming day event")
        verbose_name_plural = _("gaming day events")
        ordering = ["-gaming_day", "-id"]
        permissions = [("close_gamingday", "Can close and re-open a gaming day")]
        constraints = [
            models.CheckConstraint(condition=models.Q(action__in=DayAction.values), name="day_event_action_valid"),
            models.CheckConstraint(
                condition=models.Q(action="closed") | ~models.Q(note=""), name="day_reopen_has_note"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.gaming_day} {self.action}"


class Figure(models.TextChoices):
    OPENER = "opener", _("Opener")
    CLOSER = "closer", _("Closer")
    FILLS = "fills", _("Fills")
    CREDITS = "credits", _("Credits")
    DROP = "drop", _("Drop")


class Adjustment(Recorded, Fact):
    """A change to a figure of a closed gaming day: the closed records stay as they were counted."""

    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="adjustments", verbose_name=_("table")
    )
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    shift = models.PositiveSmallIntegerField(default=1, verbose_name=_("shift"))
    figure = models.CharField(max_length=8, choices=Figure.choices, verbose_name=_("figure"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(
        help_text=_("Added to the figure (negative: taken off)."), verbose_name=_("amount minor")
    )
    reason = models.TextField(verbose_name=_("reason"))

    class Meta:
        verbose_name = _("adjustment")
        verbose_name_plural = _("adjustments")
        ordering = ["gaming_day", "table", "id"]
        permissions = [("record_adjustment", "Can adjust a figure of a closed gaming day")]
        constraints = [
            models.CheckConstraint(condition=models.Q(figure__in=Figure.values), name="adjustment_figure_valid"),
            models.CheckConstraint(condition=~models.Q(amount_minor=0), name="adjustment_not_zero"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="adjustment_has_reason"),
        ]

    def __str__(self) -> str:
        return f"adjustment of {self.table.code} {self.gaming_day} {self.figure}"


class InvestigationStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed with a conclusion")


class VarianceInvestigation(models.Model):
    """An accountant's investigation of a variance: a commission box variance (a reconciliation) or
    a flagged win-to-drop (a hold flag), given to someone with a due date, its evidence attached,
    closed with a conclusion. Written through pit.accounting.investigations."""

    reconciliation = models.ForeignKey(
        "ledger.Reconciliation",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("reconciliation"),
    )
    hold_flag = models.ForeignKey(
        HoldFlag, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("hold flag")
    )
    title = models.CharField(max_length=200, verbose_name=_("title"))
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("assignee")
    )
    due_on = models.DateField(_("due date"))
    status = models.CharField(
        max_length=6, choices=InvestigationStatus.choices, default=InvestigationStatus.OPEN, verbose_name=_("status")
    )
    conclusion = models.TextField(blank=True, verbose_name=_("conclusion"))
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("opened by")
    )
    opened_at = models.DateTimeField(auto_now_add=True, verbose_name=_("opened at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        # Read with the accounting records (accounting.view_holdflag), written by who investigates
        # win-to-drop flags (accounting.investigate_holdflag): pit.accounting.admin_investigations.
        verbose_name = _("variance investigation")
        verbose_name_plural = _("variance investigations")
        default_permissions = ()
        ordering = ["status", "due_on", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(reconciliation__isnull=True) ^ models.Q(hold_flag__isnull=True),
                name="investigation_of_one_variance",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=InvestigationStatus.values), name="investigation_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(status="open") | (~models.Q(conclusion="") & models.Q(closed_at__isnull=False)),
                name="investigation_closed_with_conclusion",
            ),
        ]

    def __str__(self) -> str:
        return f"investigation {self.pk}: {self.title}"


class InvestigationAttachment(models.Model):
    """A file of evidence (a count sheet, a camera still, a signed statement) on an investigation,
    stored under the media root in PIT_VAR_DIR, served only to who may read the investigation."""

    investigation = models.ForeignKey(
        VarianceInvestigation, on_delete=models.PROTECT, related_name="attachments", verbose_name=_("investigation")
    )
    file = models.FileField(upload_to="investigations/%Y/%m/", verbose_name=_("file"))
    description = models.CharField(max_length=200, blank=True, verbose_name=_("description"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("uploaded by")
    )
    uploaded_at = models.DateTimeField(auto_now_add=True, verbose_name=_("uploaded at"))

    class Meta:
        verbose_name = _("investigation attachment")
        verbose_name_plural = _("investigation attachments")
        default_permissions = ()  # as its investigation's
        ordering = ["investigation", "uploaded_at", "id"]

    def __str__(self) -> str:
        return self.description or (self.file.name or "").rsplit("/", 1)[-1]


class SlipBook(Recorded, Fact):
    """A run of pre-numbered fill and credit slip forms received from the printer: numbers `first` to
    `last` of the casino's one series (fills and credits share it). Once a book is recorded every new
    slip takes a number of a book, each number once; each number is then used, voided (`SlipVoid`)
    or still unused, and a number skipped below one used is a gap (`slip_number_gap`; Louisiana LAC
    42:III.2717)."""

    first = models.PositiveBigIntegerField(_("first number"))
    last = models.PositiveBigIntegerField(_("last number"))
    received_at = models.DateTimeField(_("received at"))
    note = models.CharField(_("note"), max_length=200, blank=True)

    class Meta:
        ordering = ["first"]
        verbose_name = _("slip book")
        verbose_name_plural = _("slip books")
        permissions = [("keep_slipbook", "Can record slip books and void slip numbers")]
        constraints = [
            models.UniqueConstraint(fields=["first"], name="slip_book_first_unique"),
            models.CheckConstraint(condition=models.Q(last__gte=models.F("first")), name="slip_book_range_valid"),
            models.CheckConstraint(condition=models.Q(first__gte=1), name="slip_book_first_positive"),
        ]

    def __str__(self) -> str:
        return f"slips {self.first}-{self.last}"


class SlipVoid(Recorded, Fact):
    """A slip number of a book voided (a spoiled or cancelled form), with the reason and a witness who
    is not the person recording it. A voided number is accounted for and never used."""

    book = models.ForeignKey(SlipBook, on_delete=models.PROTECT, related_name="voids", verbose_name=_("book"))
    number = models.PositiveBigIntegerField(_("number"))
    reason = models.CharField(_("reason"), max_length=200)
    witness = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("witness")
    )

    class Meta:
        ordering = ["number"]
        verbose_name = _("voided slip number")
        verbose_name_plural = _("voided slip numbers")
        constraints = [
            models.UniqueConstraint(fields=["number"], name="slip_void_once"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="slip_void_has_reason"),
            models.CheckConstraint(
                condition=~models.Q(witness=models.F("recorded_by_user")), name="slip_void_witness_not_recorder"
            ),
        ]

    def __str__(self) -> str:
        return f"slip {self.number} void"
