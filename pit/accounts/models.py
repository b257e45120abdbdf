"""Floor devices and their API keys. Staff are Django users; roles are Django groups."""

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.utils.translation import gettext_lazy as _

from pit.accounts.audit import audit_track


class Role(models.TextChoices):
    """The roles, as Django group names (created by a migration)."""

    PIT_BOSS = "pit boss", _("Pit boss")
    ACCOUNTANT = "accountant", _("Accountant")
    AUDITOR = "auditor", _("Auditor")
    CAGE = "cage", _("Cage")
    HOST = "host", _("Host")
    COMPLIANCE = "compliance", _("Compliance")
    SURVEILLANCE = "surveillance", _("Surveillance")
    FLOOR_DEVICE = "floor device", _("Floor device")


@audit_track("DeviceAuditEvent", exclude=("key_hash",))
class Device(models.Model):
    """A card-reading shoe, table terminal or bet-recognition system, allowed to write to one table.

    Its API key is shown once at creation and stored only as a SHA-256 hash; the prefix finds it.
    """

    name = models.CharField(max_length=100, verbose_name=_("name"))
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="devices", verbose_name=_("table"))
    key_prefix = models.CharField(max_length=12, unique=True, editable=False, verbose_name=_("key prefix"))
    key_hash = models.CharField(max_length=64, editable=False, verbose_name=_("key hash"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("revoked by"),
    )

    class Meta:
        verbose_name = _("device")
        verbose_name_plural = _("devices")
        ordering = ["table__code", "name"]
        constraints = [
            models.UniqueConstraint(fields=["table", "name"], name="device_name_unique_per_table"),
        ]

    def __str__(self) -> str:
        return f"{self.name} @ {self.table.code}" if self.table_id else self.name

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


@audit_track("StaffTokenAuditEvent", exclude=("key_hash",))
class StaffToken(models.Model):
    """A staff user's personal API token: "<prefix>.<secret>", shown once, stored as its SHA-256,
    valid until `expires_at` (PIT_STAFF_TOKEN_DAYS at most) unless revoked first."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_tokens", verbose_name=_("user")
    )
    name = models.CharField(
        max_length=100,
        blank=True,
        help_text=_("What the token is for, e.g. 'reporting script'."),
        verbose_name=_("name"),
    )
    key_prefix = models.CharField(max_length=12, unique=True, editable=False, verbose_name=_("key prefix"))
    key_hash = models.CharField(max_length=64, editable=False, verbose_name=_("key hash"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("revoked by"),
    )

    class Meta:
        verbose_name = _("staff token")
        verbose_name_plural = _("staff tokens")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expires_at__gt=models.F("created_at")), name="staff_token_expires_after_creation"
            ),
        ]

    def __str__(self) -> str:
        return f"token {self.key_prefix} of {self.user}" if self.user_id else f"token {self.key_prefix}"


class StaffPermission(models.Model):
    """Holds permissions that belong to no table, so roles can be granted them (no table of its own).

    `accounts.run_reports` lets accountants, auditors and compliance run and export reports: a
    permission of the person, not of any row the reports app keeps (its exports and deliveries).
    """

    class Meta:
        verbose_name = _("staff permission")
        verbose_name_plural = _("staff permissions")
        managed = False
        default_permissions = ()
        permissions = [("run_reports", "Can run and export pit reports")]

    def __str__(self) -> str:
        return "staff permission"


@audit_track("UserAuditEvent", exclude=("password", "last_login"), tracked_label="auth.User")
class AuditedUser(User):
    """auth.User as the audit trail tracks it (a proxy, so the triggers' migrations live here).

    The password hash and the last login are left out: the one is a secret, the other changes
    at every login and says nothing about who changed an account.
    """

    class Meta:
        proxy = True
        verbose_name = _("user (audited)")


class LanguagePreference(models.Model):
    """A staff user's own language for the admin (pit.accounts.language): it wins over the browser's
    Accept-Language; none set, the browser's (or English) is used. Not a fact: a person changes it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_preference", verbose_name=_("user")
    )
    language = models.CharField(_("language"), max_length=16, choices=settings.LANGUAGES)
    changed_at = models.DateTimeField(_("changed at"), auto_now=True)

    class Meta:
        verbose_name = _("language preference")
        verbose_name_plural = _("language preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"
