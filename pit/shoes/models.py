"""Shoes, coups and wagers: what was dealt and wagered, and how the engine settled it."""

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.bet_names import bet_name
from pit.core.immutable import Fact
from pit.core.models import Recorded
from pit.core.money import from_minor
from pit.core.partitions import PartitionDayField
from pit.records.chain import chain_fields


class ShoeStatus(models.TextChoices):
    DEALING = "dealing", _("Dealing")
    CLOSED = "closed", _("Closed")


# Its close in the audit trail (verification compares the row with its latest event); the running
# counters are not: each batch of coups moves them (pit.records.streams.UNTRACKED_UPDATABLE).
@audit_track("ShoeAuditEvent", exclude=("cards_seen", "cards_dealt", "coups_recorded"))
class Shoe(Recorded, Fact):
    """The decks from one shuffle to the next. `cards_seen` counts burned and dealt cards by code.

    Only its close and its running counters change after it is started (pit.core.immutable)."""

    fact_updatable = ("status", "closed_at", "close_recorded_at", "cards_seen", "cards_dealt", "coups_recorded")

    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="shoes", verbose_name=_("table"))
    sequence = models.PositiveIntegerField(help_text=_("1, 2, 3 ... per table."), verbose_name=_("sequence"))
    decks = models.PositiveSmallIntegerField(default=8, verbose_name=_("decks"))
    shuffled_at = models.DateTimeField(verbose_name=_("shuffled at"))
    cut_card_position = models.PositiveSmallIntegerField(
        help_text=_("Cards from the top of the shoe to the cut card (after the burn)."),
        verbose_name=_("cut card position"),
    )
    burn_cards = models.JSONField(default=list, blank=True, verbose_name=_("burn cards"))
    status = models.CharField(
        max_length=8, choices=ShoeStatus.choices, default=ShoeStatus.DEALING, verbose_name=_("status")
    )
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text=_("When the floor says the shoe was closed."), verbose_name=_("closed at")
    )
    close_recorded_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text=_("When the close reached the back-office: coups recorded after it were posted to a closed shoe."),
        verbose_name=_("close recorded at"),
    )
    cards_seen = models.JSONField(
        default=dict,
        editable=False,
        help_text=_("Card code -> times seen (burns included)."),
        verbose_name=_("cards seen"),
    )
    cards_dealt = models.PositiveIntegerField(
        default=0, editable=False, help_text=_("Cards dealt to coups."), verbose_name=_("cards dealt")
    )
    coups_recorded = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("coups recorded"))

    class Meta:
        verbose_name = _("shoe")
        verbose_name_plural = _("shoes")
        ordering = ["table__code", "-sequence"]
        constraints = [
            models.UniqueConstraint(fields=["table", "sequence"], name="shoe_sequence_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"], condition=models.Q(status="dealing"), name="shoe_one_dealing_per_table"
            ),
            models.CheckConstraint(condition=models.Q(decks__gte=1, decks__lte=12), name="shoe_decks_range"),
            models.CheckConstraint(condition=models.Q(status__in=ShoeStatus.values), name="shoe_status_valid"),
            models.CheckConstraint(
                condition=models.Q(status="dealing", closed_at__isnull=True)
                | models.Q(status="closed", closed_at__isnull=False),
                name="shoe_closed_at_iff_closed",
            ),
        ]

    def __str__(self) -> str:
        if self.table_id:
            return gettext("%(table)s shoe %(sequence)s") % {"table": self.table.code, "sequence": self.sequence}
        return gettext("shoe %(sequence)s") % {"sequence": self.sequence}

    @property
    def total_cards(self) -> int:
        return self.decks * 52

    @property
    def cards_left_before_cut(self) -> int:
        return max(self.cut_card_position - self.cards_dealt, 0)


class Winner(models.TextChoices):
    PLAYER = "player", _("Player")
    BANKER = "banker", _("Banker")
    TIE = "tie", _("Tie")


class Coup(Recorded, Fact):
    """One round: the cards as dealt, the engine's evaluation, and the paytable it was settled under."""

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="coups", verbose_name=_("shoe"))
    number = models.PositiveIntegerField(verbose_name=_("number"))
    dealt_at = models.DateTimeField(db_index=True, verbose_name=_("dealt at"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    player_cards = models.JSONField(verbose_name=_("player cards"))
    banker_cards = models.JSONField(verbose_name=_("banker cards"))
    player_total = models.PositiveSmallIntegerField(verbose_name=_("player total"))
    banker_total = models.PositiveSmallIntegerField(verbose_name=_("banker total"))
    winner = models.CharField(max_length=8, choices=Winner.choices, verbose_name=_("winner"))
    natural = models.BooleanField(verbose_name=_("natural"))
    player_pair = models.BooleanField(verbose_name=_("player pair"))
    banker_pair = models.BooleanField(verbose_name=_("banker pair"))
    reported_winner = models.CharField(
        max_length=8, choices=Winner.choices, blank=True, verbose_name=_("reported winner")
    )
    paytable = models.ForeignKey(
        "paytables.PaytableConfiguration", on_delete=models.PROTECT, related_name="coups", verbose_name=_("paytable")
    )
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField

    class Meta:
        verbose_name = _("coup")
        verbose_name_plural = _("coups")
        ordering = ["shoe", "number"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "number"], name="coup_number_unique_per_shoe"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="coup_number_positive"),
            models.CheckConstraint(condition=models.Q(player_total__lte=9), name="coup_player_total_range"),
            models.CheckConstraint(condition=models.Q(banker_total__lte=9), name="coup_banker_total_range"),
            models.CheckConstraint(condition=models.Q(winner__in=Winner.values), name="coup_winner_valid"),
        ]
        indexes = [models.Index(fields=["gaming_day", "shoe"], name="coup_gaming_day_shoe")]

    def __str__(self) -> str:
        return gettext("%(shoe)s coup %(number)s") % {"shoe": self.shoe, "number": self.number}


class CorrectionKind(models.TextChoices):
    CORRECT = "correct", _("Wagers corrected")
    VOID = "void", _("Coup voided")


class CoupCorrection(Recorded, Fact):
    """An attributable correction of a coup's wagers, or its void (insert-only, like the coup).

    The coup and its original wagers stay as recorded. A correction's own wagers (`Wager.correction`)
    replace those that stood before; a void leaves none standing (every stake returned, no win, no
    commission). The coup's latest correction (highest `sequence`) says what stands:
    `pit.shoes.selectors.wagers_standing`.
    """

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="corrections", verbose_name=_("coup"))
    sequence = models.PositiveIntegerField(
        help_text=_("1, 2, 3 ... per coup; the highest stands."), verbose_name=_("sequence")
    )
    kind = models.CharField(max_length=8, choices=CorrectionKind.choices, verbose_name=_("kind"))
    reason = models.TextField(help_text=_("Why: the misread stake, the misdeal ..."), verbose_name=_("reason"))

    class Meta:
        verbose_name = _("coup correction")
        verbose_name_plural = _("coup corrections")
        ordering = ["coup", "sequence"]
        # Not `add_`: nobody adds rows in the admin; pit bosses correct and void through the service.
        permissions = [("correct_coup", "Can correct the wagers of a coup or void it")]
        constraints = [
            models.UniqueConstraint(fields=["coup", "sequence"], name="coup_correction_sequence_unique"),
            models.CheckConstraint(condition=models.Q(sequence__gte=1), name="coup_correction_sequence_positive"),
            models.CheckConstraint(
                condition=models.Q(kind__in=CorrectionKind.values), name="coup_correction_kind_valid"
            ),
            models.CheckConstraint(condition=~models.Q(reason=""), name="coup_correction_has_reason"),
        ]

    def __str__(self) -> str:
        return gettext("%(kind)s #%(sequence)s of %(coup)s") % {
            "kind": self.get_kind_display().lower(),
            "sequence": self.sequence,
            "coup": self.coup,
        }


class WagerResult(models.TextChoices):
    WIN = "win", _("Win")
    LOSE = "lose", _("Lose")
    PUSH = "push", _("Push")


class Wager(Fact):
    """A wager on a coup and its settlement by the engine, in minor units of `currency`."""

    coup = models.ForeignKey(Coup, on_delete=models.PROTECT, related_name="wagers", verbose_name=_("coup"))
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    bet = models.CharField(max_length=20, verbose_name=_("bet"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(verbose_name=_("amount minor"))
    result = models.CharField(max_length=4, choices=WagerResult.choices, verbose_name=_("result"))
    payout_minor = models.BigIntegerField(
        help_text=_("Paid to the player beyond the returned stake."), verbose_name=_("payout minor")
    )
    commission_minor = models.BigIntegerField(
        default=0, help_text=_("Owed into the seat's commission box."), verbose_name=_("commission minor")
    )
    paid_minor = models.BigIntegerField(
        null=True, blank=True, help_text=_("What the table reports it paid."), verbose_name=_("paid minor")
    )
    correction = models.ForeignKey(
        CoupCorrection,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="wagers",
        help_text=_("Empty: the wager as first recorded. Else the correction that wrote this version."),
        verbose_name=_("correction"),
    )
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField
    # Its coup's: the month partition it lives in on PostgreSQL (pit.core.partitions).
    gaming_day = PartitionDayField(sources=("coup.gaming_day",), verbose_name=_("gaming day"))

    class Meta:
        verbose_name = _("wager")
        verbose_name_plural = _("wagers")
        ordering = ["coup", "seat", "bet"]
        constraints = [
            models.UniqueConstraint(
                fields=["coup", "seat", "bet"],
                condition=models.Q(correction__isnull=True),
                name="wager_unique_per_coup_seat_bet",
            ),
            models.UniqueConstraint(
                fields=["correction", "seat", "bet"],
                condition=models.Q(correction__isnull=False),
                name="wager_unique_per_correction_seat_bet",
            ),
            models.CheckConstraint(condition=models.Q(amount_minor__gt=0), name="wager_amount_positive"),
            models.CheckConstraint(condition=models.Q(payout_minor__gte=0), name="wager_payout_not_negative"),
            models.CheckConstraint(condition=models.Q(commission_minor__gte=0), name="wager_commission_not_negative"),
            models.CheckConstraint(
                condition=models.Q(paid_minor__isnull=True) | models.Q(paid_minor__gte=0),
                name="wager_paid_not_negative",
            ),
            models.CheckConstraint(condition=models.Q(result__in=WagerResult.values), name="wager_result_valid"),
        ]

    def __str__(self) -> str:
        return gettext("seat %(seat)s %(bet)s %(amount)s") % {
            "seat": self.seat,
            "bet": bet_name(self.bet),
            "amount": from_minor(self.amount_minor, self.currency),
        }

    @property
    def amount(self):
        return from_minor(self.amount_minor, self.currency)

    @property
    def payout(self):
        return from_minor(self.payout_minor, self.currency)

    @property
    def commission(self):
        return from_minor(self.commission_minor, self.currency)

    @property
    def paid(self):
        return from_minor(self.paid_minor, self.currency)
