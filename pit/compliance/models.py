"""Rule violations: found once (by fingerprint), reviewed by pit bosses, never deleted."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track
from pit.core.immutable import Fact


class Severity(models.TextChoices):
    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")


class ViolationStatus(models.TextChoices):
    OPEN = "open", _("Open")
    ACKNOWLEDGED = "acknowledged", _("Acknowledged")
    RESOLVED = "resolved", _("Resolved")
    DISMISSED = "dismissed", _("Dismissed")


@audit_track("RuleViolationAuditEvent")
class RuleViolation(Fact):
    """A finding of a check. `fingerprint` identifies the finding, so re-running a check never
    records it twice; a finding that no longer holds after a fix gets `cleared_at`, not deleted.
    Only the review and `cleared_at` change after it is found."""

    # `message`: a re-check words a finding as the engine now does (the audit trail keeps the old words).
    fact_updatable = ("cleared_at", "status", "status_note", "status_changed_by", "status_changed_at", "message")

    code = models.CharField(
        max_length=40, db_index=True, help_text=_("The engine's machine-readable code."), verbose_name=_("code")
    )
    message = models.TextField(verbose_name=_("message"))
    severity = models.CharField(max_length=6, choices=Severity.choices, verbose_name=_("severity"))
    fingerprint = models.CharField(max_length=200, unique=True, verbose_name=_("fingerprint"))
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, related_name="violations", verbose_name=_("table")
    )
    shoe = models.ForeignKey(
        "shoes.Shoe", null=True, blank=True, on_delete=models.PROTECT, related_name="violations", verbose_name=_("shoe")
    )
    coup = models.ForeignKey(
        "shoes.Coup", null=True, blank=True, on_delete=models.PROTECT, related_name="violations", verbose_name=_("coup")
    )
    wager = models.ForeignKey(
        "shoes.Wager",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="violations",
        verbose_name=_("wager"),
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("seat"))
    gaming_day = models.DateField(db_index=True, verbose_name=_("gaming day"))
    found_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("found at"))
    found_by = models.CharField(max_length=40, help_text=_("The check that found it."), verbose_name=_("found by"))
    cleared_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When a re-check found it no longer holds (e.g. after a rules fix)."),
        verbose_name=_("cleared at"),
    )
    status = models.CharField(
        max_length=12, choices=ViolationStatus.choices, default=ViolationStatus.OPEN, verbose_name=_("status")
    )
    status_note = models.TextField(blank=True, verbose_name=_("status note"))
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("status changed by"),
    )
    status_changed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("status changed at"))

    class Meta:
        verbose_name = _("rule violation")
        verbose_name_plural = _("rule violations")
        ordering = ["-found_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(severity__in=Severity.values), name="violation_severity_valid"),
            models.CheckConstraint(
                condition=models.Q(status__in=ViolationStatus.values), name="violation_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(status="open")
                | (~models.Q(status_note="") & models.Q(status_changed_at__isnull=False)),
                name="violation_review_has_note",
            ),
        ]
        indexes = [models.Index(fields=["status", "gaming_day"], name="violation_status_day")]

    def __str__(self) -> str:
        return gettext("%(code)s on %(where)s") % {"code": self.code, "where": self.coup or self.shoe or self.table}
