"""Progressive meters: a side bet's jackpot over a bank of tables, its filed configurations (insert-only,
versioned), its payouts (two signers) and its readings (the database refuses a reading that goes down).

What the meter stands at is computed from the recorded wagers (pit.progressives.selectors); nothing
here is typed but the filing and the payout. Design: docs/design/progressives.md."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded

# The rate of progression: the share of each stake that goes onto the meter (0.05 is 5%).
RATE_DIGITS = 7
RATE_PLACES = 6
# Exact contributions in minor units: a rate of 6 places times whole minor units has 6 places.
EXACT_DIGITS = 24


class Meter(Recorded, Fact):
    """One progressive jackpot: a paytable's bet key made progressive at a bank of tables, in one
    currency. Its configurations (`MeterConfiguration`) say from when, at which tables, at what rate."""

    code = models.CharField(_("code"), max_length=20, unique=True, help_text=_("As the floor display names it."))
    name = models.CharField(_("name"), max_length=80)
    bet = models.CharField(_("bet"), max_length=20, help_text=_("The paytable's bet key that feeds the meter."))
    currency = models.CharField(_("currency"), max_length=3)

    class Meta:
        ordering = ["code"]
        verbose_name = _("progressive meter")
        verbose_name_plural = _("progressive meters")
        permissions = [("file_meterconfiguration", "Can file a progressive meter and its configuration")]
        constraints = [models.CheckConstraint(condition=~models.Q(bet=""), name="meter_has_bet")]

    def __str__(self) -> str:
        return f"{self.code} ({self.bet})"


class MeterConfiguration(Recorded, Fact):
    """A filed configuration of a meter, in force from `effective_from` until the next version's:
    the base (the meter's first amount), the reset (the amount after a hit), the rate, the tables.
    Never edited, only superseded (regulators audit the filing: N.J.A.C. 13:69D-1.52)."""

    meter = models.ForeignKey(Meter, on_delete=models.PROTECT, related_name="configurations", verbose_name=_("meter"))
    version = models.PositiveIntegerField(_("version"))
    effective_from = models.DateTimeField(
        _("effective from"), help_text=_("Wagers of coups dealt from this moment feed the meter at this rate.")
    )
    base_minor = models.BigIntegerField(_("base amount"), help_text=_("The meter's first amount, in minor units."))
    reset_minor = models.BigIntegerField(_("reset amount"), help_text=_("The amount after a hit, in minor units."))
    rate = models.DecimalField(
        _("rate of progression"),
        max_digits=RATE_DIGITS,
        decimal_places=RATE_PLACES,
        help_text=_("The share of each stake that goes onto the meter: 0.05 is 5%."),
    )
    filing_reference = models.CharField(_("filing reference"), max_length=80, help_text=_("The regulator's filing."))
    tables = models.ManyToManyField("tables.Table", through="BankTable", related_name="+", verbose_name=_("tables"))

    class Meta:
        ordering = ["meter", "version"]
        verbose_name = _("meter configuration")
        verbose_name_plural = _("meter configurations")
        constraints = [
            models.UniqueConstraint(fields=["meter", "version"], name="meter_configuration_version_unique"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="meter_configuration_version_positive"),
            models.CheckConstraint(condition=models.Q(base_minor__gt=0), name="meter_configuration_base_positive"),
            models.CheckConstraint(condition=models.Q(reset_minor__gt=0), name="meter_configuration_reset_positive"),
            models.CheckConstraint(condition=models.Q(rate__gt=0, rate__lt=1), name="meter_configuration_rate_range"),
        ]

    def __str__(self) -> str:
        return f"{self.meter.code} v{self.version}"


class BankTable(Fact):
    """A table of a configuration's bank: its wagers on the meter's bet feed the meter."""

    configuration = models.ForeignKey(
        MeterConfiguration, on_delete=models.PROTECT, related_name="bank", verbose_name=_("configuration")
    )
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", verbose_name=_("table"))

    class Meta:
        ordering = ["configuration", "table"]
        verbose_name = _("bank table")
        verbose_name_plural = _("bank tables")
        constraints = [
            models.UniqueConstraint(fields=["configuration", "table"], name="bank_table_unique_per_configuration")
        ]

    def __str__(self) -> str:
        return f"{self.configuration}: {self.table_id}"


class MeterPayout(Recorded, Fact):
    """A hit paid: the meter's amount to the winning wager of a coup at a bank table, signed by the
    pit boss and a second signer (two people), after which the meter stands at `reset_minor`."""

    meter = models.ForeignKey(Meter, on_delete=models.PROTECT, related_name="payouts", verbose_name=_("meter"))
    # By id alone on PostgreSQL (coups are partitioned): a deferred check of the key, frozen beside
    # the migration, refuses a coup that is not there, as a foreign key would.
    coup = models.ForeignKey(
        "shoes.Coup", on_delete=models.PROTECT, db_constraint=False, related_name="+", verbose_name=_("coup")
    )
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="+", verbose_name=_("table"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    amount_minor = models.BigIntegerField(_("amount paid"), help_text=_("The meter as it stood, in minor units."))
    reset_minor = models.BigIntegerField(_("reset amount"), help_text=_("The filed reset amount it resets to."))
    paid_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("pit boss")
    )
    witnessed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("second signer")
    )
    note = models.TextField(_("note"), blank=True)

    class Meta:
        ordering = ["meter", "-recorded_at"]
        verbose_name = _("progressive payout")
        verbose_name_plural = _("progressive payouts")
        permissions = [
            ("pay_meterpayout", "Can record a progressive payout as the pit boss"),
            ("witness_meterpayout", "Can sign a progressive payout as the second signer"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["meter", "coup", "seat"], name="meter_payout_unique_per_coup_seat"),
            models.CheckConstraint(condition=models.Q(amount_minor__gt=0), name="meter_payout_amount_positive"),
            models.CheckConstraint(condition=models.Q(reset_minor__gt=0), name="meter_payout_reset_positive"),
            models.CheckConstraint(
                condition=~models.Q(paid_by=models.F("witnessed_by")), name="meter_payout_two_signers"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.meter.code} paid {self.amount_minor} on coup {self.coup_id}"


class MeterReading(Recorded, Fact):
    """What a meter stood at, recorded: at each payout (the amount paid, then the reset) and by the
    re-check after a correction or void, or the close of a gaming day. A BEFORE INSERT trigger
    refuses a reading lower than the meter's last one unless it is the reset of a payout."""

    meter = models.ForeignKey(Meter, on_delete=models.PROTECT, related_name="readings", verbose_name=_("meter"))
    amount_minor = models.BigIntegerField(_("amount"), help_text=_("What the meter shows, in minor units."))
    contributions = models.DecimalField(
        _("contributions"),
        max_digits=EXACT_DIGITS,
        decimal_places=RATE_PLACES,
        help_text=_("Rate times the standing stakes, exact, in minor units."),
    )
    carried = models.DecimalField(
        _("carried"),
        max_digits=EXACT_DIGITS,
        decimal_places=RATE_PLACES,
        help_text=_("Contributions of stakes a correction or void withdrew, kept on the meter, in minor units."),
    )
    payout = models.OneToOneField(
        MeterPayout,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reset_reading",
        help_text=_("Set on the reading after a payout: the meter reset."),
        verbose_name=_("payout"),
    )

    class Meta:
        ordering = ["meter", "-id"]
        verbose_name = _("meter reading")
        verbose_name_plural = _("meter readings")
        constraints = [
            models.CheckConstraint(condition=models.Q(amount_minor__gte=0), name="meter_reading_not_negative")
        ]

    def __str__(self) -> str:
        return f"{self.meter.code}: {self.amount_minor}"
