"""The commission ledger (append-only, enforced by the database), box counts and reconciliations.

A seat's balance is the sum of its entries: accruals are positive (the seat owes the box),
collections and reversals of accruals are negative. Balances are derived, never stored.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact
from pit.core.models import Recorded
from pit.core.partitions import PartitionDayField
from pit.records.chain import chain_fields


class EntryKind(models.TextChoices):
    ACCRUED = "accrued", _("Accrued on a winning Banker wager")
    COLLECTED = "collected", _("Collected from the seat")
    REVERSAL = "reversal", _("Reversal of an earlier entry")


class CollectionReason(models.TextChoices):
    SHUFFLE = "shuffle", _("At the shuffle")
    PLAYER_LEFT = "player_left", _("Player left the seat")
    # What a seat's balance became after its shoe was reconciled (a late coup, a correction or a
    # void): brought back to zero by a supplementary reconciliation. Negative when the seat owes
    # more than the shuffle collected, positive when the shuffle collected more than it owes now.
    SUPPLEMENT = "supplement", _("At a supplementary reconciliation")


class CommissionEntry(Recorded, Fact):
    shoe = models.ForeignKey(
        "shoes.Shoe", on_delete=models.PROTECT, related_name="commission_entries", verbose_name=_("shoe")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    kind = models.CharField(max_length=10, choices=EntryKind.choices, verbose_name=_("kind"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    amount_minor = models.BigIntegerField(
        help_text=_("Positive: owed by the seat. Negative: collected or reversed."), verbose_name=_("amount minor")
    )
    wager = models.ForeignKey(
        "shoes.Wager",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="commission_entries",
        verbose_name=_("wager"),
    )
    collection_reason = models.CharField(
        max_length=12, choices=CollectionReason.choices, blank=True, verbose_name=_("collection reason")
    )
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="reversed_by", verbose_name=_("reverses")
    )
    note = models.TextField(blank=True, verbose_name=_("note"))
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField
    # The month partition it lives in on PostgreSQL (pit.core.partitions): an accrual's wager's
    # gaming day, a reversal's (the entry it reverses), else its shoe's (the day it was shuffled).
    gaming_day = PartitionDayField(
        sources=("wager.gaming_day", "reverses.gaming_day", "shoe.shuffled_at"), verbose_name=_("gaming day")
    )

    class Meta:
        verbose_name = _("commission entry")
        verbose_name_plural = _("commission entries")
        ordering = ["shoe", "seat", "id"]
        verbose_name_plural = _("commission entries")
        constraints = [
            # One accrual per wager: recording a coup twice can never owe commission twice.
            models.UniqueConstraint(
                fields=["wager"], condition=models.Q(kind="accrued"), name="commission_one_accrual_per_wager"
            ),
            # One collection per seat at the shuffle: a reconciliation run twice collects once.
            models.UniqueConstraint(
                fields=["shoe", "seat"],
                condition=models.Q(kind="collected", collection_reason="shuffle"),
                name="commission_one_shuffle_collection_per_seat",
            ),
            models.CheckConstraint(condition=models.Q(kind__in=EntryKind.values), name="commission_kind_valid"),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="accrued", amount_minor__gt=0, wager__isnull=False, reverses__isnull=True)
                    # At the shuffle (and in a supplement) a seat that owes less than nothing
                    # (a correction after its player left) is paid back: a positive collection.
                    | models.Q(kind="collected", amount_minor__lte=0, reverses__isnull=True)
                    | models.Q(kind="collected", collection_reason__in=["shuffle", "supplement"], reverses__isnull=True)
                    | models.Q(kind="reversal", reverses__isnull=False)
                ),
                name="commission_entry_shape",
            ),
            models.CheckConstraint(
                condition=models.Q(kind="collected", collection_reason__in=CollectionReason.values)
                | (~models.Q(kind="collected") & models.Q(collection_reason="")),
                name="commission_collection_reason",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.shoe} seat {self.seat} {self.kind} {self.amount_minor}"


class ReconciliationStatus(models.TextChoices):
    BALANCED = "balanced", _("Balanced")
    VARIANCE = "variance", _("Variance")
    EXPLAINED = "explained", _("Variance explained")


class BoxCount(Recorded, Fact):
    """What was counted in one seat's commission box at the shuffle."""

    shoe = models.ForeignKey("shoes.Shoe", on_delete=models.PROTECT, related_name="box_counts", verbose_name=_("shoe"))
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    counted_minor = models.BigIntegerField(verbose_name=_("counted minor"))
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField

    class Meta:
        verbose_name = _("box count")
        verbose_name_plural = _("box counts")
        ordering = ["shoe", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["shoe", "seat"], name="box_count_unique_per_seat"),
            models.CheckConstraint(condition=models.Q(counted_minor__gte=0), name="box_count_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.shoe} seat {self.seat} counted {self.counted_minor}"


@audit_track("ReconciliationAuditEvent", exclude=("chain_seq", "chain_hash"))
class Reconciliation(Fact):
    """A shoe's commission box against the ledger, made once at the shuffle by the reconciliation job.
    The figures never change; only the explanation of a variance is added later."""

    fact_updatable = ("status", "explanation", "explained_by", "explained_at")

    shoe = models.OneToOneField(
        "shoes.Shoe", on_delete=models.PROTECT, related_name="reconciliation", verbose_name=_("shoe")
    )
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    accrued_minor = models.BigIntegerField(verbose_name=_("accrued minor"))
    collected_earlier_minor = models.BigIntegerField(
        help_text=_("Collected from seats whose player left."), verbose_name=_("collected earlier minor")
    )
    expected_minor = models.BigIntegerField(verbose_name=_("expected minor"))
    counted_minor = models.BigIntegerField(verbose_name=_("counted minor"))
    variance_minor = models.BigIntegerField(help_text=_("Counted minus expected."), verbose_name=_("variance minor"))
    status = models.CharField(max_length=10, choices=ReconciliationStatus.choices, verbose_name=_("status"))
    reconciled_at = models.DateTimeField(auto_now_add=True, verbose_name=_("reconciled at"))
    explanation = models.TextField(blank=True, verbose_name=_("explanation"))
    explained_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("explained by"),
    )
    explained_at = models.DateTimeField(null=True, blank=True, verbose_name=_("explained at"))
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField

    class Meta:
        verbose_name = _("reconciliation")
        verbose_name_plural = _("reconciliations")
        ordering = ["-reconciled_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ReconciliationStatus.values), name="reconciliation_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(variance_minor=models.F("counted_minor") - models.F("expected_minor")),
                name="reconciliation_variance_is_counted_minus_expected",
            ),
            models.CheckConstraint(
                condition=~models.Q(status="explained")
                | (~models.Q(explanation="") & models.Q(explained_at__isnull=False)),
                name="reconciliation_explained_has_note",
            ),
        ]

    def __str__(self) -> str:
        return f"reconciliation of {self.shoe}"


class ReconciliationSeat(Fact):
    """One seat's line of a reconciliation."""

    reconciliation = models.ForeignKey(
        Reconciliation, on_delete=models.CASCADE, related_name="seats", verbose_name=_("reconciliation")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    accrued_minor = models.BigIntegerField(verbose_name=_("accrued minor"))
    collected_earlier_minor = models.BigIntegerField(verbose_name=_("collected earlier minor"))
    expected_minor = models.BigIntegerField(verbose_name=_("expected minor"))
    counted_minor = models.BigIntegerField(verbose_name=_("counted minor"))
    variance_minor = models.BigIntegerField(verbose_name=_("variance minor"))
    chain_seq, chain_hash = chain_fields()  # last: see pit.records.chain.ChainSeqField

    class Meta:
        verbose_name = _("reconciliation seat")
        verbose_name_plural = _("reconciliation seats")
        ordering = ["reconciliation", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["reconciliation", "seat"], name="reconciliation_seat_unique"),
            models.CheckConstraint(
                condition=models.Q(variance_minor=models.F("counted_minor") - models.F("expected_minor")),
                name="reconciliation_seat_variance_is_counted_minus_expected",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.reconciliation}"


class ReconciliationSupplement(Recorded, Fact):
    """An amendment of a shoe's reconciliation, insert-only: what changed in the ledger after the
    shoe was reconciled (a coup recorded after the close, a correction, a void), per seat.

    The box was counted once, at the shuffle: what was counted stays, what the box should have held
    changes, so the variance changes and the box count must explain it. Its collection entries
    (`CollectionReason.SUPPLEMENT`) bring every seat's balance back to zero.
    """

    reconciliation = models.ForeignKey(
        Reconciliation, on_delete=models.PROTECT, related_name="supplements", verbose_name=_("reconciliation")
    )
    sequence = models.PositiveIntegerField(help_text=_("1, 2, 3 ... per reconciliation."), verbose_name=_("sequence"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    change_minor = models.BigIntegerField(
        help_text=_("What the seats owed beyond what the shuffle collected."), verbose_name=_("change minor")
    )
    expected_minor = models.BigIntegerField(
        help_text=_("What the box should have held, as the ledger stands now."), verbose_name=_("expected minor")
    )
    counted_minor = models.BigIntegerField(
        help_text=_("What was counted at the shuffle (unchanged)."), verbose_name=_("counted minor")
    )
    variance_minor = models.BigIntegerField(
        help_text=_("Counted minus expected, now."), verbose_name=_("variance minor")
    )
    status = models.CharField(max_length=10, choices=ReconciliationStatus.choices, verbose_name=_("status"))

    class Meta:
        verbose_name = _("reconciliation supplement")
        verbose_name_plural = _("reconciliation supplements")
        ordering = ["reconciliation", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["reconciliation", "sequence"], name="reconciliation_supplement_sequence_unique"
            ),
            models.CheckConstraint(
                condition=models.Q(variance_minor=models.F("counted_minor") - models.F("expected_minor")),
                name="reconciliation_supplement_variance_is_counted_minus_expected",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=["balanced", "variance"]), name="reconciliation_supplement_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"supplement {self.sequence} of {self.reconciliation}"


class ReconciliationSupplementSeat(Fact):
    """One seat's line of a supplement: its change, and its figures as the ledger stands now."""

    supplement = models.ForeignKey(
        ReconciliationSupplement, on_delete=models.PROTECT, related_name="seats", verbose_name=_("supplement")
    )
    seat = models.PositiveSmallIntegerField(verbose_name=_("seat"))
    change_minor = models.BigIntegerField(
        help_text=_("The seat's balance before this supplement collected it."), verbose_name=_("change minor")
    )
    accrued_minor = models.BigIntegerField(verbose_name=_("accrued minor"))
    collected_earlier_minor = models.BigIntegerField(verbose_name=_("collected earlier minor"))
    expected_minor = models.BigIntegerField(verbose_name=_("expected minor"))
    counted_minor = models.BigIntegerField(verbose_name=_("counted minor"))
    variance_minor = models.BigIntegerField(verbose_name=_("variance minor"))
    entry = models.OneToOneField(
        CommissionEntry,
        on_delete=models.PROTECT,
        related_name="supplement_seat",
        help_text=_("The ledger entry that brought the seat's balance back to zero."),
        verbose_name=_("entry"),
    )

    class Meta:
        verbose_name = _("reconciliation supplement seat")
        verbose_name_plural = _("reconciliation supplement seats")
        ordering = ["supplement", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["supplement", "seat"], name="reconciliation_supplement_seat_unique"),
            models.CheckConstraint(
                condition=models.Q(variance_minor=models.F("counted_minor") - models.F("expected_minor")),
                name="reconciliation_supplement_seat_variance_is_counted_minus_expected",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.supplement}"
