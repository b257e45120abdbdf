"""The patrons' cash: the casino's cash-reporting rules (versioned), daily exchange rates, every cash
transaction at the tables and the cage, and the findings a compliance officer works (CTR worksheets,
identification requests, suspicious patterns).

Rules, rates and transactions are facts of record (insert-only); a mistaken transaction is reversed
by a reversing record with a reason. Findings are facts whose review columns change (audited).
Amounts are integer minor units; a rate is kept on its transaction as exact decimal text, so the
amount in the reporting currency is `amount x rate`, exactly, whenever it is read.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact
from pit.core.models import Recorded
from pit.core.money import from_minor


class CashRules(Recorded, Fact):
    """The cash-reporting rules from `effective_from` on (until the next version), from a preset of
    pit.cash.presets or the casino's own values. Amounts are in the reporting currency's units."""

    preset = models.CharField(
        max_length=8, help_text=_("The preset these rules started from."), verbose_name=_("preset")
    )
    effective_from = models.DateTimeField(verbose_name=_("effective from"))
    reporting_currency = models.CharField(max_length=3, verbose_name=_("reporting currency"))
    mtl_threshold = models.DecimalField(max_digits=14, decimal_places=2, verbose_name=_("mtl threshold"))
    ctr_threshold = models.DecimalField(max_digits=14, decimal_places=2, verbose_name=_("ctr threshold"))
    sar_threshold = models.DecimalField(max_digits=14, decimal_places=2, verbose_name=_("sar threshold"))
    alert_share = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        help_text=_("A seated patron's cash in at this share of the CTR threshold is an alarm."),
        verbose_name=_("alert share"),
    )
    ctr_deadline_days = models.PositiveSmallIntegerField(verbose_name=_("ctr deadline days"))
    sar_deadline_days = models.PositiveSmallIntegerField(verbose_name=_("sar deadline days"))
    business_days = models.BooleanField(
        help_text=_("Deadlines count business days (Monday to Friday)."), verbose_name=_("business days")
    )
    retention_years = models.PositiveSmallIntegerField(verbose_name=_("retention years"))
    structuring_band = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        default=Decimal("0.80"),
        help_text=_("A transaction at this share of a threshold or more, but not over it, is 'just under'."),
        verbose_name=_("structuring band"),
    )
    structuring_count = models.PositiveSmallIntegerField(
        default=2,
        help_text=_("How many 'just under' transactions make a structuring pattern."),
        verbose_name=_("structuring count"),
    )
    structuring_days = models.PositiveSmallIntegerField(
        default=3,
        help_text=_("The consecutive gaming days a patron's 'just under' transactions are counted over."),
        verbose_name=_("structuring days"),
    )
    structuring_table_minutes = models.PositiveSmallIntegerField(
        default=60,
        help_text=_("The window in which buy-ins just under by patrons at one table are taken together."),
        verbose_name=_("structuring table minutes"),
    )
    minimal_gaming_share = models.DecimalField(
        max_digits=4,
        decimal_places=2,
        default=Decimal("0.10"),
        help_text=_("A session whose handle is under this share of its cash buy-ins is minimal gaming."),
        verbose_name=_("minimal gaming share"),
    )
    pattern_floor = models.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text=_("Minimal gaming, chip walking and cash out for another are looked for from this amount on."),
        verbose_name=_("pattern floor"),
    )

    class Meta:
        ordering = ["-effective_from", "-id"]
        verbose_name = _("cash rules")
        verbose_name_plural = _("cash rules")
        permissions = [("record_cashrules", "Can record the cash-reporting rules")]
        constraints = [
            models.UniqueConstraint(fields=["effective_from"], name="cash_rules_one_per_moment"),
            models.CheckConstraint(condition=models.Q(ctr_threshold__gt=0), name="cash_rules_ctr_positive"),
            models.CheckConstraint(
                condition=models.Q(alert_share__gt=0, alert_share__lte=1), name="cash_rules_alert_share_range"
            ),
            models.CheckConstraint(
                condition=models.Q(structuring_band__gt=0, structuring_band__lt=1), name="cash_rules_band_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.preset} from {self.effective_from:%Y-%m-%d}"


class ExchangeRate(Recorded, Fact):
    """One unit of `currency` is `rate` units of `reporting_currency` on `day` (the rate of that
    gaming day's transactions). Exact decimal text, never a float."""

    day = models.DateField(verbose_name=_("day"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    reporting_currency = models.CharField(max_length=3, verbose_name=_("reporting currency"))
    rate = models.CharField(max_length=24, verbose_name=_("rate"))

    class Meta:
        verbose_name = _("exchange rate")
        verbose_name_plural = _("exchange rates")
        ordering = ["-day", "currency"]
        permissions = [("record_exchangerate", "Can record the day's exchange rates")]
        constraints = [
            models.UniqueConstraint(fields=["day", "currency", "reporting_currency"], name="exchange_rate_one_per_day"),
        ]

    def __str__(self) -> str:
        return f"{self.day}: 1 {self.currency} = {self.rate} {self.reporting_currency}"


class Direction(models.TextChoices):
    IN = "in", _("Cash in")
    OUT = "out", _("Cash out")


class CashKind(models.TextChoices):
    """The multiple transaction log's types (31 CFR 1021.313 lists what is cash in and cash out)."""

    CHIP_PURCHASE = "chip_purchase", _("Chip purchase")
    FRONT_MONEY_DEPOSIT = "front_money_deposit", _("Front money deposit")
    SAFEKEEPING_DEPOSIT = "safekeeping_deposit", _("Safekeeping deposit")
    MARKER_PAYMENT = "marker_payment", _("Marker payment")
    EXCHANGE_IN = "exchange_in", _("Currency exchange (currency received)")
    CHIP_REDEMPTION = "chip_redemption", _("Chip redemption")
    FRONT_MONEY_WITHDRAWAL = "front_money_withdrawal", _("Front money withdrawal")
    SAFEKEEPING_WITHDRAWAL = "safekeeping_withdrawal", _("Safekeeping withdrawal")
    MARKER_ISSUANCE = "marker_issuance", _("Marker issuance (credit advance)")
    EXCHANGE_OUT = "exchange_out", _("Currency exchange (currency paid)")
    PAYOUT = "payout", _("Cash payout (jackpot or bet paid in cash)")


DIRECTIONS: dict[str, str] = {
    CashKind.CHIP_PURCHASE: Direction.IN,
    CashKind.FRONT_MONEY_DEPOSIT: Direction.IN,
    CashKind.SAFEKEEPING_DEPOSIT: Direction.IN,
    CashKind.MARKER_PAYMENT: Direction.IN,
    CashKind.EXCHANGE_IN: Direction.IN,
    CashKind.CHIP_REDEMPTION: Direction.OUT,
    CashKind.FRONT_MONEY_WITHDRAWAL: Direction.OUT,
    CashKind.SAFEKEEPING_WITHDRAWAL: Direction.OUT,
    CashKind.MARKER_ISSUANCE: Direction.OUT,
    CashKind.EXCHANGE_OUT: Direction.OUT,
    CashKind.PAYOUT: Direction.OUT,
}


class CashTransaction(Recorded, Fact):
    """One cash transaction, at a table (`table`) or the cage (`table` empty), by a patron or, for one
    not yet identified, a description. `reference` is the terminal's own number (the key a repost
    names). A mistaken one is reversed by a record with `reverses` and a reason."""

    reference = models.CharField(max_length=60, unique=True, verbose_name=_("reference"))
    kind = models.CharField(max_length=24, choices=CashKind.choices, verbose_name=_("kind"))
    direction = models.CharField(max_length=3, choices=Direction.choices, verbose_name=_("direction"))
    at = models.DateTimeField(db_index=True, verbose_name=_("at"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("table")
    )
    location = models.CharField(
        max_length=60, help_text=_("Where: the table's code or the cage window."), verbose_name=_("location")
    )
    patron = models.ForeignKey(
        "players.Patron",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cash_transactions",
        verbose_name=_("patron"),
    )
    description = models.CharField(
        max_length=200, blank=True, help_text=_("A patron not yet identified."), verbose_name=_("description")
    )
    session = models.ForeignKey(
        "players.SeatSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cash_transactions",
        verbose_name=_("session"),
    )
    buy_in = models.OneToOneField(
        "players.BuyIn",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cash_transaction",
        verbose_name=_("buy in"),
    )
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(verbose_name=_("amount minor"))
    reporting_currency = models.CharField(max_length=3, verbose_name=_("reporting currency"))
    rate = models.CharField(max_length=24, help_text=_("The exchange rate used, exact."), verbose_name=_("rate"))
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by", verbose_name=_("reverses")
    )
    reason = models.CharField(max_length=200, blank=True, verbose_name=_("reason"))

    class Meta:
        verbose_name = _("cash transaction")
        verbose_name_plural = _("cash transactions")
        ordering = ["-at", "-id"]
        permissions = [("record_cashtransaction", "Can record cash transactions")]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount_minor__gt=0), name="cash_amount_positive"),
            models.CheckConstraint(condition=models.Q(kind__in=CashKind.values), name="cash_kind_valid"),
            models.CheckConstraint(condition=models.Q(direction__in=Direction.values), name="cash_direction_valid"),
            models.CheckConstraint(
                condition=models.Q(patron__isnull=False) | ~models.Q(description=""), name="cash_patron_or_description"
            ),
            models.CheckConstraint(
                condition=models.Q(reverses__isnull=True) | ~models.Q(reason=""), name="cash_reversal_has_reason"
            ),
        ]
        indexes = [models.Index(fields=["gaming_day", "patron"], name="cash_day_patron")]

    def __str__(self) -> str:
        return f"{self.reference}: {self.get_kind_display()} {self.amount} {self.currency}"

    @property
    def amount(self) -> Decimal:
        return from_minor(self.amount_minor, self.currency)

    @property
    def reporting_amount(self) -> Decimal:
        """The amount in the reporting currency, exactly (amount x rate, never rounded)."""
        return self.amount * Decimal(self.rate)


class FindingKind(models.TextChoices):
    CTR = "ctr", _("Currency transaction report owed")
    IDENTIFY = "identify", _("A patron known only by description passed a threshold")
    STRUCTURING = "structuring", _("Structuring: transactions just under a threshold")
    MINIMAL_GAMING = "minimal_gaming", _("Minimal gaming: cash in, little wagered")
    CHIP_WALKING = "chip_walking", _("Chip walking: chips bought, neither wagered nor returned")
    CASH_OUT_FOR_OTHER = "cash_out_for_other", _("Cash out for another person")


class FindingStatus(models.TextChoices):
    OPEN = "open", _("Open")
    ACKNOWLEDGED = "acknowledged", _("Acknowledged")
    FILED = "filed", _("Filed")
    DISMISSED = "dismissed", _("Dismissed (not reportable)")


@audit_track("CashFindingAuditEvent")
class CashFinding(Fact):
    """A worksheet or pattern found in the cash of a gaming day, worked by compliance: acknowledged,
    filed (with the filing's reference and date) or dismissed, each with a note. Found once (by
    fingerprint); the evidence and the totals follow the transactions as more arrive that day."""

    fact_updatable = (
        "cash_in",
        "cash_out",
        "evidence",
        "cleared_at",
        "status",
        "status_note",
        "status_changed_by",
        "status_changed_at",
        "filing_reference",
        "filed_on",
    )

    kind = models.CharField(max_length=20, choices=FindingKind.choices, verbose_name=_("kind"))
    fingerprint = models.CharField(max_length=200, unique=True, verbose_name=_("fingerprint"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    patron = models.ForeignKey(
        "players.Patron", null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("patron")
    )
    description = models.CharField(max_length=200, blank=True, verbose_name=_("description"))
    table = models.ForeignKey(
        "tables.Table", null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("table")
    )
    reporting_currency = models.CharField(max_length=3, verbose_name=_("reporting currency"))
    cash_in = models.CharField(
        max_length=40, help_text=_("Exact decimal, reporting currency."), verbose_name=_("cash in")
    )
    cash_out = models.CharField(
        max_length=40, help_text=_("Exact decimal, reporting currency."), verbose_name=_("cash out")
    )
    evidence = models.JSONField(
        help_text=_("The transactions, sessions and wagers behind the finding."), verbose_name=_("evidence")
    )
    deadline = models.DateField(null=True, blank=True, verbose_name=_("deadline"))
    found_at = models.DateTimeField(auto_now_add=True, verbose_name=_("found at"))
    cleared_at = models.DateTimeField(null=True, blank=True, verbose_name=_("cleared at"))
    status = models.CharField(
        max_length=12, choices=FindingStatus.choices, default=FindingStatus.OPEN, verbose_name=_("status")
    )
    status_note = models.TextField(blank=True, verbose_name=_("status note"))
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("status changed by"),
    )
    status_changed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("status changed at"))
    filing_reference = models.CharField(max_length=60, blank=True, verbose_name=_("filing reference"))
    filed_on = models.DateField(null=True, blank=True, verbose_name=_("filed on"))

    class Meta:
        verbose_name = _("cash finding")
        verbose_name_plural = _("cash findings")
        ordering = ["-gaming_day", "kind", "-id"]
        permissions = [("review_cashfinding", "Can acknowledge, file and dismiss cash findings")]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=FindingKind.values), name="cash_finding_kind_valid"),
            models.CheckConstraint(
                condition=models.Q(status__in=FindingStatus.values), name="cash_finding_status_valid"
            ),
            models.CheckConstraint(
                condition=~models.Q(status="filed")
                | (~models.Q(filing_reference="") & models.Q(filed_on__isnull=False)),
                name="cash_finding_filed_has_reference",
            ),
            models.CheckConstraint(
                condition=models.Q(status="open") | ~models.Q(status_note=""), name="cash_finding_review_has_note"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.gaming_day}"
