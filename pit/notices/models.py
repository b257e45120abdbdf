"""Notices the pit owes: to surveillance (each acknowledged by surveillance within a set time) and to
the regulator (each filed with a reference before its deadline). Every row is an insert-only fact:
an acknowledgement or a filing is a row of its own, never a changed column."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.core.immutable import Fact
from pit.core.models import Recorded


class NotificationKind(models.TextChoices):
    DROP = "drop", _("Drop about to begin")
    DECKS = "decks", _("Decks leaving storage")
    OFF_SCHEDULE = "off_schedule", _("Table opened or closed outside its schedule")
    LARGE_FILL = "large_fill", _("Large fill")
    ALARM = "alarm", _("Live alarm")


class SurveillanceNotification(Recorded, Fact):
    """Something the pit tells surveillance, once per `source` (what it is about, e.g. `alarm:12`), to
    be acknowledged by `due_by` (the jurisdiction's acknowledgement time)."""

    kind = models.CharField(_("kind"), max_length=12, choices=NotificationKind.choices)
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="surveillance_notifications", verbose_name=_("table")
    )
    message = models.TextField(_("message"))
    source = models.CharField(_("source"), max_length=80, unique=True, help_text=_("What it is about, once."))
    violation = models.ForeignKey(
        "compliance.RuleViolation",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("violation"),
    )
    notified_at = models.DateTimeField(_("notified at"), db_index=True)
    due_by = models.DateTimeField(_("acknowledge by"))

    class Meta:
        ordering = ["-notified_at", "-id"]
        verbose_name = _("surveillance notification")
        verbose_name_plural = _("surveillance notifications")
        permissions = [
            ("notify_surveillancenotification", "Can notify surveillance (a drop, decks leaving storage)"),
            ("acknowledge_surveillancenotification", "Can acknowledge a notification (surveillance)"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=NotificationKind.values), name="notification_kind_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(due_by__gte=models.F("notified_at")), name="notification_due_after"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.table.code} {self.notified_at:%Y-%m-%d %H:%M}"


class SurveillanceAcknowledgement(Recorded, Fact):
    """Surveillance saw a notification: who and when (late if after its `due_by`)."""

    notification = models.OneToOneField(
        SurveillanceNotification,
        on_delete=models.PROTECT,
        related_name="acknowledgement",
        verbose_name=_("notification"),
    )
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("acknowledged by")
    )
    acknowledged_at = models.DateTimeField(_("acknowledged at"))
    note = models.CharField(_("note"), max_length=300, blank=True)

    class Meta:
        ordering = ["-acknowledged_at", "-id"]
        verbose_name = _("surveillance acknowledgement")
        verbose_name_plural = _("surveillance acknowledgements")

    def __str__(self) -> str:
        return f"{self.notification} acknowledged"


class RegulatorNotice(Recorded, Fact):
    """An error the jurisdiction wants reported (pit.core.jurisdictions.RegulatorRule), with its
    deadline: once per `source` (the rule and the record that shows the error)."""

    rule_code = models.CharField(_("rule code"), max_length=40)
    jurisdiction = models.CharField(_("jurisdiction"), max_length=20)
    rule = models.CharField(_("rule"), max_length=300)
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="regulator_notices", verbose_name=_("table")
    )
    gaming_day = models.DateField(_("gaming day"), db_index=True)
    message = models.TextField(_("message"))
    amount_minor = models.BigIntegerField(_("discrepancy (minor units)"))
    currency = models.CharField(max_length=3, verbose_name=_("currency"))
    source = models.CharField(_("source"), max_length=80, unique=True)
    found_at = models.DateTimeField(_("found at"))
    due_at = models.DateTimeField(_("report by"), db_index=True)

    class Meta:
        ordering = ["due_at", "id"]
        verbose_name = _("notice to the regulator")
        verbose_name_plural = _("notices to the regulator")
        permissions = [("file_regulatornotice", "Can record the filing of a notice to the regulator")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(due_at__gte=models.F("found_at")), name="regulator_notice_due_after"
            ),
            models.CheckConstraint(condition=models.Q(amount_minor__gte=0), name="regulator_notice_amount_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.rule_code} {self.table.code} {self.gaming_day}"


class RegulatorNoticeFiling(Recorded, Fact):
    """A notice filed with the regulator: the regulator's (or the filing's) reference, who and when."""

    notice = models.OneToOneField(
        RegulatorNotice, on_delete=models.PROTECT, related_name="filing", verbose_name=_("notice")
    )
    reference = models.CharField(_("reference"), max_length=100)
    filed_at = models.DateTimeField(_("filed at"))
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("filed by")
    )
    note = models.CharField(_("note"), max_length=300, blank=True)

    class Meta:
        ordering = ["-filed_at", "-id"]
        verbose_name = _("filing of a notice to the regulator")
        verbose_name_plural = _("filings of notices to the regulator")
        constraints = [models.CheckConstraint(condition=~models.Q(reference=""), name="regulator_filing_has_reference")]

    def __str__(self) -> str:
        return f"{self.notice} filed {self.reference}"
