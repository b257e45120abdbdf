"""Ratings of seat sessions, estimated average bets, comp reinvestment rates and the comp points ledger.

`SessionRating` and `CoupEdges` are derived (recomputed whole from the facts by
`pit.ratings.services.ratings_refresh`, registered in pit.core.derived); the others are facts of record.
Design: docs/design/ratings.md.
"""

from fractions import Fraction

from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded
from pit.core.money import from_minor


class CoupEdges(models.Model):
    """The exact house edge of every bet of a coup's paytable at the coup's shoe composition (the
    cards seen before it: the burn and the earlier coups), as the engine prices it, per unit staked.
    Derived data: computed once per coup (its cards and its paytable never change)."""

    # The coups are partitioned on PostgreSQL (their id alone is no key): the reference is checked by
    # a constraint trigger (pit.core.partitions.CHECKED_REFERENCES), frozen into 0002.
    coup = models.OneToOneField(
        "shoes.Coup",
        on_delete=models.DO_NOTHING,
        primary_key=True,
        related_name="exact_edges",
        db_constraint=False,
        verbose_name=_("coup"),
    )
    edges = models.JSONField(
        help_text=_("Bet -> exact house edge as a fraction 'numerator/denominator'."), verbose_name=_("edges")
    )

    class Meta:
        verbose_name = _("coup edges")
        verbose_name_plural = _("coup edges")
        default_permissions = ()  # read through the ratings it prices, in no screen of its own

    def __str__(self) -> str:
        return f"edges of coup {self.coup_id}"

    def edge(self, bet: str) -> Fraction:
        return Fraction(self.edges[bet])


class RatedTableDay(models.Model):
    """How far the ratings of a table's gaming day have read its facts (the highest id of each):
    a refresh recomputes whole every session that anything newer touches. Derived data."""

    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="+", verbose_name=_("table"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    coup_mark = models.BigIntegerField(default=0, verbose_name=_("coup mark"))
    correction_mark = models.BigIntegerField(default=0, verbose_name=_("correction mark"))
    event_mark = models.BigIntegerField(default=0, verbose_name=_("event mark"))
    identification_mark = models.BigIntegerField(default=0, verbose_name=_("identification mark"))
    estimate_mark = models.BigIntegerField(default=0, verbose_name=_("estimate mark"))

    class Meta:
        verbose_name = _("rated table day")
        verbose_name_plural = _("rated table days")
        default_permissions = ()  # the refresh's bookkeeping, in no screen
        constraints = [models.UniqueConstraint(fields=["table", "gaming_day"], name="rated_table_day_unique")]

    def __str__(self) -> str:
        return f"ratings of table {self.table_id} on {self.gaming_day}"


class SessionRating(models.Model):
    """A session's rating, computed from what stands (never typed): derived, rewritten whole."""

    session = models.OneToOneField(
        "players.SeatSession",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rating",
        verbose_name=_("session"),
    )
    patron = models.ForeignKey(
        "players.Patron",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("patron"),
    )
    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="+", verbose_name=_("table"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    seconds_played = models.PositiveIntegerField(default=0, verbose_name=_("seconds played"))
    coups_played = models.PositiveIntegerField(
        default=0, help_text=_("Coups the seat had a standing wager on."), verbose_name=_("coups played")
    )
    table_coups = models.PositiveIntegerField(
        default=0, help_text=_("Coups dealt at the table while it played."), verbose_name=_("table coups")
    )
    wagers = models.PositiveIntegerField(default=0, verbose_name=_("wagers"))
    handle_minor = models.BigIntegerField(default=0, verbose_name=_("handle minor"))
    handle_by_bet = models.JSONField(
        default=dict, help_text=_("Bet -> handle in minor units."), verbose_name=_("handle by bet")
    )
    largest_bet_minor = models.BigIntegerField(default=0, verbose_name=_("largest bet minor"))
    won_minor = models.BigIntegerField(
        default=0,
        help_text=_("The house's actual win: stakes lost - payouts + commission owed."),
        verbose_name=_("won minor"),
    )
    commission_owed_minor = models.BigIntegerField(
        default=0, help_text=_("Commission owed into the box."), verbose_name=_("commission owed minor")
    )
    commission_deducted_minor = models.BigIntegerField(
        default=0, help_text=_("Commission taken off payouts."), verbose_name=_("commission deducted minor")
    )
    theo_numerator = models.TextField(
        default="0", help_text=_("Exact theo in minor units: numerator."), verbose_name=_("theo numerator")
    )
    theo_denominator = models.TextField(
        default="1", help_text=_("Exact theo in minor units: denominator."), verbose_name=_("theo denominator")
    )
    theo_minor = models.DecimalField(max_digits=24, decimal_places=6, default=0, verbose_name=_("theo minor"))
    game_edge = models.TextField(
        default="0", help_text=_("The paytable's full-shoe Banker edge, as a fraction."), verbose_name=_("game edge")
    )
    standard_theo_minor = models.DecimalField(
        max_digits=24, decimal_places=6, default=0, verbose_name=_("standard theo minor")
    )
    estimated = models.BooleanField(default=False, verbose_name=_("estimated"))
    estimated_average_bet_minor = models.BigIntegerField(
        null=True, blank=True, verbose_name=_("estimated average bet minor")
    )
    final = models.BooleanField(default=False, help_text=_("The session has stood up."), verbose_name=_("final"))
    as_of = models.DateTimeField(
        help_text=_("An open session is rated up to its table's latest coup (or its start)."), verbose_name=_("as of")
    )
    coup_mark = models.BigIntegerField(
        default=0, help_text=_("The highest coup id the rating has read."), verbose_name=_("coup mark")
    )
    refreshed_at = models.DateTimeField(auto_now=True, verbose_name=_("refreshed at"))

    class Meta:
        verbose_name = _("session rating")
        verbose_name_plural = _("session ratings")
        ordering = ["gaming_day", "table", "session"]
        permissions = [("view_ratings", "Can see patrons' ratings and comps")]
        indexes = [models.Index(fields=["gaming_day", "patron"], name="rating_day_patron")]

    def __str__(self) -> str:
        return f"rating of {self.session_id}"

    @property
    def theo(self) -> Fraction:
        """The exact theoretical win in minor units."""
        return Fraction(int(self.theo_numerator), int(self.theo_denominator))

    @property
    def average_bet_minor(self) -> Fraction:
        """Handle / coups played (recorded), or the estimate where the rating is estimated."""
        if self.estimated and self.estimated_average_bet_minor is not None:
            return Fraction(self.estimated_average_bet_minor)
        return Fraction(self.handle_minor, self.coups_played) if self.coups_played else Fraction(0)

    @property
    def pace(self) -> Fraction:
        """Coups dealt at the table per hour while the session played (the measured pace)."""
        return Fraction(self.table_coups * 3600, self.seconds_played) if self.seconds_played else Fraction(0)

    @property
    def handle(self):
        return from_minor(self.handle_minor, self.currency)


class AverageBetEstimate(Recorded, Fact):
    """A pit boss's estimate of a session's average bet (where no wager is recorded, or beside the
    recorded ones: then it is measured against them). The latest estimate stands."""

    session = models.ForeignKey(
        "players.SeatSession", on_delete=models.PROTECT, related_name="estimates", verbose_name=_("session")
    )
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    average_bet_minor = models.BigIntegerField(verbose_name=_("average bet minor"))

    class Meta:
        verbose_name = _("average bet estimate")
        verbose_name_plural = _("average bet estimates")
        ordering = ["session", "-recorded_at", "-id"]
        permissions = [("record_estimate", "Can estimate a session's average bet")]
        constraints = [
            models.CheckConstraint(condition=models.Q(average_bet_minor__gt=0), name="estimate_average_bet_positive")
        ]

    def __str__(self) -> str:
        return f"{self.session_id}: about {from_minor(self.average_bet_minor, self.currency)}"


class ReinvestmentRate(Recorded, Fact):
    """The share of exact theo a tier's patrons earn back as comps, for the sessions of gaming days
    from `starts_on` on (a new rate is a new record; for a session, the one with the latest
    `starts_on` not after its gaming day applies, the latest recorded among equals)."""

    tier = models.ForeignKey("players.Tier", on_delete=models.PROTECT, related_name="+", verbose_name=_("tier"))
    starts_on = models.DateField(help_text=_("The first gaming day it applies to."), verbose_name=_("starts on"))
    # xgettext:no-python-format (a percent sign, no placeholder)
    rate = models.DecimalField(
        max_digits=7, decimal_places=6, help_text=_("E.g. 0.250000 for a quarter of the theo."), verbose_name=_("rate")
    )

    class Meta:
        verbose_name = _("reinvestment rate")
        verbose_name_plural = _("reinvestment rates")
        ordering = ["tier", "-starts_on", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(rate__gte=0, rate__lte=1), name="reinvestment_rate_range")
        ]

    def __str__(self) -> str:
        return f"{self.tier_id}: {self.rate}"


class CompKind(models.TextChoices):
    EARNED = "earned", _("Earned (a session's comp at stand-up)")
    ADJUSTED = "adjusted", _("Adjusted (the session's rating changed after stand-up)")
    REDEEMED = "redeemed", _("Redeemed by a host")


class CompEntry(Recorded, Fact):
    """An entry of a patron's comp points ledger, in minor units of `currency`: positive earned,
    negative redeemed. The balance is the sum of the entries, never stored, never negative."""

    patron = models.ForeignKey(
        "players.Patron", on_delete=models.PROTECT, related_name="comp_entries", verbose_name=_("patron")
    )
    kind = models.CharField(max_length=8, choices=CompKind.choices, verbose_name=_("kind"))
    session = models.ForeignKey(
        "players.SeatSession",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="comp_entries",
        verbose_name=_("session"),
    )
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(verbose_name=_("amount minor"))
    rate = models.DecimalField(max_digits=7, decimal_places=6, null=True, blank=True, verbose_name=_("rate"))
    theo_minor = models.DecimalField(
        max_digits=24,
        decimal_places=6,
        null=True,
        blank=True,
        help_text=_("The session's exact theo it was earned on."),
        verbose_name=_("theo minor"),
    )
    reason = models.CharField(max_length=200, blank=True, verbose_name=_("reason"))
    # Null, not blank, for entries without a slip: the one-per-patron constraint skips them, and a
    # nullable column leaves the chained hashes of the rows before it as they were.
    reference = models.CharField(  # noqa: DJ001
        max_length=60,
        null=True,
        blank=True,
        help_text=_(
            "A redemption's comp slip number, once per patron: the same slip posted again is the same redemption."
        ),
        verbose_name=_("reference"),
    )

    class Meta:
        verbose_name = _("comp entry")
        verbose_name_plural = _("comp entries")
        ordering = ["patron", "id"]
        permissions = [("redeem_comp", "Can redeem a patron's comps")]
        constraints = [
            models.CheckConstraint(condition=models.Q(kind__in=CompKind.values), name="comp_kind_valid"),
            models.UniqueConstraint(
                fields=["session"], condition=models.Q(kind="earned"), name="comp_one_earned_per_session"
            ),
            models.UniqueConstraint(
                fields=["patron", "reference"],
                condition=models.Q(reference__isnull=False),
                name="comp_reference_once_per_patron",
            ),
            models.CheckConstraint(
                condition=models.Q(kind="redeemed", amount_minor__lt=0, session__isnull=True) & ~models.Q(reason="")
                | models.Q(kind="earned", amount_minor__gte=0, session__isnull=False)
                | models.Q(kind="adjusted", session__isnull=False),
                name="comp_entry_shape",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.patron_id} {self.kind} {from_minor(self.amount_minor, self.currency)}"

    @property
    def amount(self):
        return from_minor(self.amount_minor, self.currency)
