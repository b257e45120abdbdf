"""Game protection's own records: the index of every shoe's card sequence as shingles."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class CardShingle(models.Model):
    """Ten consecutive cards of a shoe's dealt order (coup cards, burns left out), as a 64-bit
    digest, indexed by gaming day and digest so a new shoe is compared with every shoe of the pit
    of the same and the previous gaming days in one indexed query. Derived data: rebuilt from the
    coups by the check whenever they change."""

    shoe = models.ForeignKey("shoes.Shoe", on_delete=models.CASCADE, related_name="+", verbose_name=_("shoe"))
    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="+", verbose_name=_("table"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    position = models.PositiveIntegerField(
        help_text=_("The first card's position in the shoe's dealt order (0-based)."), verbose_name=_("position")
    )
    digest = models.BigIntegerField(verbose_name=_("digest"))
    coup = models.ForeignKey(
        "shoes.Coup",
        on_delete=models.CASCADE,
        related_name="+",
        help_text=_("The coup that dealt the last card."),
        verbose_name=_("coup"),
    )

    class Meta:
        verbose_name = _("card shingle")
        verbose_name_plural = _("card shingles")
        default_permissions = ()  # an index for the check, in no screen: no role reads or writes it
        constraints = [models.UniqueConstraint(fields=["shoe", "position"], name="shingle_position_unique")]
        indexes = [models.Index(fields=["gaming_day", "digest"], name="shingle_day_digest")]

    def __str__(self) -> str:
        return f"shoe {self.shoe_id} card {self.position + 1}"


class IndexedShoe(models.Model):
    """A shoe whose card sequence is in the index (CardShingle), with the digest of the dealt order it
    was indexed from (`pit.game.sequences.dealt_digest`): a sweep finds a shoe whose cards are as they
    were indexed by one digest, without hashing and reading its shingles again. Derived data, written
    with the shingles in the same transaction."""

    shoe = models.OneToOneField(
        "shoes.Shoe", on_delete=models.CASCADE, primary_key=True, related_name="+", verbose_name=_("shoe")
    )
    digest = models.BigIntegerField(verbose_name=_("digest"))

    class Meta:
        verbose_name = _("indexed shoe")
        verbose_name_plural = _("indexed shoes")
        default_permissions = ()  # an index for the check, in no screen: no role reads or writes it

    def __str__(self) -> str:
        return f"shoe {self.shoe_id} indexed"


class SideBetExpectation(models.Model):
    """What a side bet was worth on a coup, computed exactly by the engine from the cards seen before
    it (burns and earlier coups): the expectation per unit staked, rounded to 12 places for
    display, and whether it was positive (decided on the exact fraction)."""

    coup = models.ForeignKey("shoes.Coup", on_delete=models.CASCADE, related_name="+", verbose_name=_("coup"))
    bet = models.CharField(max_length=20, verbose_name=_("bet"))
    expectation = models.DecimalField(max_digits=16, decimal_places=12, verbose_name=_("expectation"))
    positive = models.BooleanField(verbose_name=_("positive"))

    class Meta:
        verbose_name = _("side bet expectation")
        verbose_name_plural = _("side bet expectations")
        default_permissions = ()  # read through the violations it is evidence for, in no screen of its own
        constraints = [models.UniqueConstraint(fields=["coup", "bet"], name="side_bet_expectation_unique")]
        indexes = [models.Index(fields=["coup", "positive"], name="side_bet_expectation_positive")]

    def __str__(self) -> str:
        return f"{self.bet} on coup {self.coup_id}: {self.expectation}"
