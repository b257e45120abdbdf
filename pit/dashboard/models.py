"""The dashboard's own records: where each table stands on the floor map, and the notes a shift's
pit boss hands to the next shift."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class FloorPosition(models.Model):
    """Where a table stands on the pit's floor map: a cell of a grid, row and column from 1 (the
    operator places the tables; a table with no position is drawn after the placed ones)."""

    table = models.OneToOneField(
        "tables.Table", on_delete=models.CASCADE, primary_key=True, related_name="+", verbose_name=_("table")
    )
    row = models.PositiveSmallIntegerField(help_text=_("From 1, the front of the pit first."), verbose_name=_("row"))
    column = models.PositiveSmallIntegerField(help_text=_("From 1, left to right."), verbose_name=_("column"))

    class Meta:
        # Who may read and write these is decided in pit.dashboard.admin (the operator places the
        # tables: superusers), not by a permission a role would have to hold.
        verbose_name = _("floor position")
        verbose_name_plural = _("floor positions")
        default_permissions = ()
        ordering = ["row", "column"]
        constraints = [
            models.UniqueConstraint(fields=["row", "column"], name="floor_position_one_table_a_cell"),
            models.CheckConstraint(condition=models.Q(row__gte=1, column__gte=1), name="floor_position_from_one"),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id} at row {self.row}, column {self.column}"


class ShiftNote(models.Model):
    """What a pit boss hands to the next shift (a table to watch, a player, a device acting up),
    stamped with the gaming day and shift it was written in. Kept as written: a correction is a
    new note."""

    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    shift = models.PositiveSmallIntegerField(
        help_text=_("The shift of the gaming day it was written in, from 1."), verbose_name=_("shift")
    )
    table = models.ForeignKey(
        "tables.Table",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text=_("Empty: the pit."),
        verbose_name=_("table"),
    )
    text = models.TextField(verbose_name=_("text"))
    written_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("written by")
    )
    written_at = models.DateTimeField(auto_now_add=True, verbose_name=_("written at"))

    class Meta:
        # Read by whoever watches the floor, written by pit bosses (pit.dashboard.admin): the same
        # check as the dashboard's own, not a permission of its own.
        verbose_name = _("shift note")
        verbose_name_plural = _("shift notes")
        default_permissions = ()
        ordering = ["-written_at", "-id"]
        indexes = [models.Index(fields=["gaming_day", "shift"], name="shift_note_day_shift")]
        constraints = [models.CheckConstraint(condition=~models.Q(text=""), name="shift_note_has_text")]

    def __str__(self) -> str:
        return f"{self.gaming_day} shift {self.shift}: {self.text[:40]}"
