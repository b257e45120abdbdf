"""Abstract models every part of the pit shares."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Recorded(models.Model):
    """Who wrote a row and when: a floor device through the API, or a staff user."""

    recorded_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("recorded at"))
    recorded_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("recorded by user"),
    )
    recorded_by_device = models.ForeignKey(
        "accounts.Device",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("recorded by device"),
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


class FailedTaskState(models.TextChoices):
    REDELIVERED = "redelivered", _("Redelivered (the worker was lost under it); running again")
    SUCCEEDED = "succeeded", _("Succeeded after a redelivery")
    PARKED = "parked", _("Parked: failed, not run again")
    REQUEUED = "requeued", _("Enqueued again by staff")


class FailedTask(models.Model):
    """A Celery task that did not complete on its first delivery, counted per task id.

    A row appears when a message comes back (the worker died under it) or when a task fails for
    good (an error that is not transient, or transient errors beyond the retry bound). Once its
    deliveries exceed PIT_TASK_MAX_DELIVERIES it is parked: acknowledged and never run again, so a
    task that kills its worker cannot loop forever. Staff see it in the admin and may enqueue it again.
    """

    task_id = models.CharField(max_length=255, unique=True, verbose_name=_("task id"))
    task_name = models.CharField(max_length=200, db_index=True, verbose_name=_("task name"))
    args = models.JSONField(default=list, blank=True, verbose_name=_("args"))
    kwargs = models.JSONField(default=dict, blank=True, verbose_name=_("kwargs"))
    state = models.CharField(max_length=12, choices=FailedTaskState.choices, verbose_name=_("state"))
    attempts = models.PositiveIntegerField(
        default=1, help_text=_("Deliveries and retries seen so far."), verbose_name=_("attempts")
    )
    error = models.TextField(blank=True, verbose_name=_("error"))
    first_seen_at = models.DateTimeField(auto_now_add=True, verbose_name=_("first seen at"))
    last_seen_at = models.DateTimeField(db_index=True, verbose_name=_("last seen at"))

    class Meta:
        verbose_name = _("failed task")
        verbose_name_plural = _("failed tasks")
        ordering = ["-last_seen_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=FailedTaskState.values), name="failed_task_state_valid"
            ),
            models.CheckConstraint(condition=models.Q(attempts__gte=1), name="failed_task_attempts_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.task_name} {self.task_id} ({self.state})"


class OutboxMessage(models.Model):
    """A background task a write still owes, stored in the write's own transaction.

    The write (a coup, a shoe close, an export request) inserts it; the task is sent to the broker
    after commit, and the row is deleted when the task has run (or is parked as a failed task). So
    what the broker never got, or a worker lost, is still here: `core.outbox_dispatch` (beat) sends
    rows never sent, and sends again rows whose task has not completed after a grace period.
    """

    task_id = models.CharField(
        max_length=64, unique=True, help_text=_("The Celery task id every send uses."), verbose_name=_("task id")
    )
    task_name = models.CharField(max_length=200, verbose_name=_("task name"))
    args = models.JSONField(default=list, blank=True, verbose_name=_("args"))
    kwargs = models.JSONField(default=dict, blank=True, verbose_name=_("kwargs"))
    created_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("created at"))
    dispatched_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=_("When the broker last took it; empty: never sent yet."),
        verbose_name=_("dispatched at"),
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text=_("Sends the broker accepted."), verbose_name=_("attempts")
    )

    class Meta:
        verbose_name = _("outbox message")
        verbose_name_plural = _("outbox messages")
        ordering = ["created_at", "id"]
        # Plumbing, not a record anyone reviews: no admin page, no permissions.
        default_permissions = ()

    def __str__(self) -> str:
        return f"{self.task_name}{tuple(self.args)} ({self.task_id})"


class WorkerHeartbeat(models.Model):
    """A Celery worker consuming a queue, alive at `beat_at`: each worker writes one row per queue it
    consumes when it is ready and then every PIT_WORKER_HEARTBEAT_SECONDS (pit.core.workers), and
    deletes its rows when it stops. /healthz counts, per queue, the rows fresher than
    PIT_HEALTH_WORKER_STALE_SECONDS: a worker killed stops beating, and its queue is reported."""

    worker = models.CharField(
        max_length=255, help_text=_("The worker's node name, e.g. urgent@host."), verbose_name=_("worker")
    )
    queue = models.CharField(max_length=200, verbose_name=_("queue"))
    pid = models.PositiveIntegerField(help_text=_("The worker's main process."), verbose_name=_("pid"))
    beat_at = models.DateTimeField(db_index=True, verbose_name=_("beat at"))

    class Meta:
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")
        ordering = ["queue", "worker"]
        constraints = [models.UniqueConstraint(fields=["worker", "queue"], name="worker_heartbeat_one_per_queue")]
        # Plumbing, not a record anyone reviews: no admin page, no permissions.
        default_permissions = ()

    def __str__(self) -> str:
        return f"{self.worker} on {self.queue} at {self.beat_at:%H:%M:%S}"
