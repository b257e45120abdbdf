"""Daily rollups: derived sums of the standing detail per table and gaming day (not facts).

They are rewritten whenever the detail of their day changes, so they are plain tables: no history,
no insert-only triggers. Reports read them only for days `RolledUpDay` covers and whose refresh is
not owed (pit.rollups.selectors), so what a report shows is always exactly what the detail says.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _


class RolledUpDay(models.Model):
    """A complete gaming day whose every table-day with coups has its rollup (made by the catch-up or
    `rebuild_rollups`). Later changes of the day's detail owe a refresh of their table-day (outbox)."""

    gaming_day = models.DateField(unique=True)
    rolled_up_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["gaming_day"]
        default_permissions = ()

    def __str__(self) -> str:
        return f"rolled up {self.gaming_day}"


class TableDayRollup(models.Model):
    """One table's gaming day: coups, commission reversed on standing wagers, and the marks of the
    detail it was computed from (the catch-up compares them with the detail's)."""

    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="+")
    gaming_day = models.DateField()
    coups = models.PositiveIntegerField()
    reversed_minor = models.BigIntegerField(help_text=_("Reversals of accruals on standing wagers (negative)."))
    coup_mark = models.BigIntegerField(help_text=_("The highest coup id of the table-day."))
    correction_mark = models.BigIntegerField(help_text=_("The highest correction id of its coups (0: none)."))
    reversal_mark = models.BigIntegerField(help_text=_("The highest reversal id of its accruals (0: none)."))
    refreshed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["gaming_day", "table"]
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["gaming_day", "table"], name="rollup_table_day_unique"),
        ]

    def __str__(self) -> str:
        return f"rollup of table {self.table_id} on {self.gaming_day}"


class BetRollup(models.Model):
    """The standing wagers of a table-day on one bet, per paytable version and deck count (the
    theoretical win and variance are computed from them at read time, exactly as from the detail)."""

    table_day = models.ForeignKey(TableDayRollup, on_delete=models.CASCADE, related_name="bets")
    paytable = models.ForeignKey("paytables.PaytableConfiguration", on_delete=models.PROTECT, related_name="+")
    decks = models.PositiveSmallIntegerField()
    bet = models.CharField(max_length=20)
    wagers = models.PositiveIntegerField()
    handle_minor = models.BigIntegerField()
    payouts_minor = models.BigIntegerField()
    commission_minor = models.BigIntegerField()
    lost_minor = models.BigIntegerField()
    paid_minor = models.BigIntegerField()
    overpaid_minor = models.BigIntegerField()
    underpaid_minor = models.BigIntegerField()
    deducted_minor = models.BigIntegerField(help_text=_("Commission deducted from payouts (deducting paytables)."))
    squares = models.DecimalField(max_digits=40, decimal_places=0, help_text=_("Sum of stake² in minor units."))

    class Meta:
        ordering = ["table_day", "paytable", "decks", "bet"]
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["table_day", "paytable", "decks", "bet"], name="rollup_bet_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.bet} of {self.table_day}"
