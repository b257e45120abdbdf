"""Failed Celery tasks in the back-office: what was parked and why; staff may enqueue one again.

The page lists parked tasks only: what failed and needs a person. The other rows of FailedTask are
the delivery bookkeeping of pit.core.tasks (a redelivery being counted, a task that succeeded after
one, a task staff enqueued again): nothing there for anyone to do, so never listed here
(docs/operations/queues.md); they stay in the table for the count and for a query.
"""

from typing import TYPE_CHECKING

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from pit.core.models import FailedTask, FailedTaskState
from pit.core.tasks import failed_task_requeue

# Django's ModelAdmin is generic to the type checker only (not subscriptable at run time).
if TYPE_CHECKING:
    _ModelAdmin = admin.ModelAdmin[FailedTask]
else:
    _ModelAdmin = admin.ModelAdmin


@admin.register(FailedTask)
class FailedTaskAdmin(_ModelAdmin):
    list_display = (
        "task_name",
        "state",
        "attempts",
        "args",
        "first_seen_at",
        "last_seen_at",
        "error_summary",
    )
    list_filter = ("task_name",)
    search_fields = ("task_id", "task_name", "error")
    date_hierarchy = "last_seen_at"
    readonly_fields = (
        "task_id",
        "task_name",
        "args",
        "kwargs",
        "state",
        "attempts",
        "error",
        "first_seen_at",
        "last_seen_at",
    )
    actions = ["requeue"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[FailedTask]:
        return super().get_queryset(request).filter(state=FailedTaskState.PARKED)

    @admin.display(description=_("error"))
    def error_summary(self, obj: FailedTask) -> str:
        return Truncator(obj.error.splitlines()[0] if obj.error else "").chars(120)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: FailedTask | None = None) -> bool:
        return False

    @admin.action(description=_("Enqueue the selected parked tasks again"), permissions=["change"])
    def requeue(self, request: HttpRequest, queryset: QuerySet[FailedTask]) -> None:
        sent = 0
        for failed_task in queryset:
            if failed_task.state != FailedTaskState.PARKED:
                self.message_user(
                    request,
                    gettext("{failed_task_task_name} {failed_task_task_id} is not parked; left as it is.").format(
                        failed_task_task_name=failed_task.task_name, failed_task_task_id=failed_task.task_id
                    ),
                    messages.WARNING,
                )
                continue
            failed_task_requeue(failed_task=failed_task)
            sent += 1
        if sent:
            self.message_user(request, gettext("{sent} task(s) enqueued again.").format(sent=sent), messages.SUCCESS)
