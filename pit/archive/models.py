"""What became of a month of partitions: archived and detached, or the detached tables dropped."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact


class ArchiveAction(models.TextChoices):
    DETACHED = "detached", _("Archived to files and detached")
    DROPPED = "dropped", _("Detached tables dropped (their archive verified again first)")


class MonthArchive(Fact):
    """One step of archiving a month of gaming days (insert-only): the files written, their rows and
    SHA-256, and who ran it. Rows leave the database only through these steps, never silently."""

    month = models.DateField(help_text=_("First day of the month of gaming days."), verbose_name=_("month"))
    action = models.CharField(max_length=8, choices=ArchiveAction.choices, verbose_name=_("action"))
    directory = models.CharField(
        max_length=500, help_text=_("Where the month's files and manifest are."), verbose_name=_("directory")
    )
    manifest = models.JSONField(help_text=_("Per table: partition, file, rows, sha256."), verbose_name=_("manifest"))
    operator = models.CharField(
        max_length=150, help_text=_("Who ran manage.py archive_month (the OS user)."), verbose_name=_("operator")
    )
    recorded_at = models.DateTimeField(auto_now_add=True, verbose_name=_("recorded at"))

    class Meta:
        verbose_name = _("month archive")
        verbose_name_plural = _("month archives")
        ordering = ["month", "recorded_at"]
        default_permissions = ()  # written by a management command, read in the database: in no screen
        constraints = [
            models.UniqueConstraint(fields=["month", "action"], name="month_archive_action_once"),
            models.CheckConstraint(condition=models.Q(action__in=ArchiveAction.values), name="month_archive_action"),
        ]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.action}"
