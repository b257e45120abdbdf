"""Abstract models every part of the pit shares."""
from django.conf import settings
from django.db import models


class Recorded(models.Model):
    """Who wrote a row and when: a floor device through the API, or a staff user."""

    recorded_at = models.DateTimeField(auto_now_add=True, db_index=True)
    recorded_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    recorded_by_device = models.ForeignKey(
        "accounts.Device", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        abstract = True

    @property
    def recorded_by(self) -> str:
        if self.recorded_by_device_id:
            return f"device {self.recorded_by_device}"
        if self.recorded_by_user_id:
            return f"user {self.recorded_by_user}"
        return "system"
