"""What the API itself keeps: the Idempotency-Key of every POST that sent one, with its answer."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyStatus(models.TextChoices):
    IN_PROGRESS = "in_progress", _("In progress")
    COMPLETED = "completed", _("Completed")


class IdempotencyKey(models.Model):
    """One client's key for one POST: a retry with the same key and body gets `response_*` again.

    The owner is the device or the staff user that sent it (exactly one). The stored answer is
    written in the same transaction as the effect, so there is never an effect without its answer.
    """

    key = models.CharField(max_length=255, verbose_name=_("key"))
    device = models.ForeignKey(
        "accounts.Device", null=True, blank=True, on_delete=models.CASCADE, related_name="+", verbose_name=_("device")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    method = models.CharField(max_length=10, verbose_name=_("method"))
    path = models.CharField(max_length=500, verbose_name=_("path"))
    request_hash = models.CharField(
        max_length=64,
        help_text=_("SHA-256 of method, path and the canonical JSON body."),
        verbose_name=_("request hash"),
    )
    status = models.CharField(
        max_length=12,
        choices=IdempotencyStatus.choices,
        default=IdempotencyStatus.IN_PROGRESS,
        verbose_name=_("status"),
    )
    locked_at = models.DateTimeField(
        help_text=_("When the request now running took the key."), verbose_name=_("locked at")
    )
    response_status = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("response status"))
    # JSON text, not jsonb: an answer may echo a field name with \u0000, which jsonb refuses.
    response_body = models.TextField(
        blank=True, default="", help_text=_("The answer's JSON body, as sent."), verbose_name=_("response body")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    expires_at = models.DateTimeField(db_index=True, verbose_name=_("expires at"))

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["device", "key"],
                condition=models.Q(device__isnull=False),
                name="idempotency_key_unique_device",
            ),
            models.UniqueConstraint(
                fields=["user", "key"],
                condition=models.Q(user__isnull=False),
                name="idempotency_key_unique_user",
            ),
            models.CheckConstraint(
                condition=models.Q(device__isnull=False, user__isnull=True)
                | models.Q(device__isnull=True, user__isnull=False),
                name="idempotency_key_one_owner",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=IdempotencyStatus.values), name="idempotency_key_status_valid"
            ),
            models.CheckConstraint(
                condition=models.Q(status="in_progress") | models.Q(response_status__isnull=False),
                name="idempotency_key_completed_has_response",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} [{self.key}]"
