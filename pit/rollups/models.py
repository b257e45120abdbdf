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

    gaming_day = models.DateField(unique=True, verbose_name=_("gaming day"))
    rolled_up_at = models.DateTimeField(auto_now=True, verbose_name=_("rolled up at"))

    class Meta:
        verbose_name = _("rolled up day")
        verbose_name_plural = _("rolled up days")
        ordering = ["gaming_day"]
        default_permissions = ()

    def __str__(self) -> str:
        return f"rolled up {self.gaming_day}"


class TableDayRollup(models.Model):
    """One table's gaming day: coups, commission reversed on standing wagers, and the marks of the
    detail it was computed from (the catch-up compares them with the detail's)."""

    table = models.ForeignKey("tables.Table", on_delete=models.CASCADE, related_name="+", verbose_name=_("table"))
    gaming_day = models.DateField(verbose_name=_("gaming day"))
    coups = models.PositiveIntegerField(verbose_name=_("coups"))
    reversed_minor = models.BigIntegerField(
        help_text=_("Reversals of accruals on standing wagers (negative)."), verbose_name=_("reversed minor")
    )
    coup_mark = models.BigIntegerField(
        help_text=_("The highest coup id of the table-day."), verbose_name=_("coup mark")
    )
    correction_mark = models.BigIntegerField(
        help_text=_("The highest correction id of its coups (0: none)."), verbose_name=_("correction mark")
    )
    reversal_mark = models.BigIntegerField(
        help_text=_("The highest reversal id of its accruals (0: none)."), verbose_name=_("reversal mark")
    )
    refreshed_at = models.DateTimeField(auto_now=True, verbose_name=_("refreshed at"))

    class Meta:
        verbose_name = _("table day rollup")
        verbose_name_plural = _("table day rollups")
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

    table_day = models.ForeignKey(
        TableDayRollup, on_delete=models.CASCADE, related_name="bets", verbose_name=_("table day")
    )
    paytable = models.ForeignKey(
        "paytables.PaytableConfiguration", on_delete=models.PROTECT, related_name="+", verbose_name=_("paytable")
    )
    decks = models.PositiveSmallIntegerField(verbose_name=_("decks"))
    bet = models.CharField(max_length=20, verbose_name=_("bet"))
    wagers = models.PositiveIntegerField(verbose_name=_("wagers"))
    handle_minor = models.BigIntegerField(verbose_name=_("handle minor"))
    payouts_minor = models.BigIntegerField(verbose_name=_("payouts minor"))
    commission_minor = models.BigIntegerField(verbose_name=_("commission minor"))
    lost_minor = models.BigIntegerField(verbose_name=_("lost minor"))
    paid_minor = models.BigIntegerField(verbose_name=_("paid minor"))
    overpaid_minor = models.BigIntegerField(verbose_name=_("overpaid minor"))
    underpaid_minor = models.BigIntegerField(verbose_name=_("underpaid minor"))
    deducted_minor = models.BigIntegerField(
        help_text=_("Commission deducted from payouts (deducting paytables)."), verbose_name=_("deducted minor")
    )
    squares = models.DecimalField(
        max_digits=40, decimal_places=0, help_text=_("Sum of stake² in minor units."), verbose_name=_("squares")
    )

    class Meta:
        verbose_name = _("bet rollup")
        verbose_name_plural = _("bet rollups")
        ordering = ["table_day", "paytable", "decks", "bet"]
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["table_day", "paytable", "decks", "bet"], name="rollup_bet_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.bet} of {self.table_day}"
