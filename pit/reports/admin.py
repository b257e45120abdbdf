"""The report schedules in the admin: who gets which report, in which format, covering which gaming
days, when, by e-mail or to a folder, with each run's outcome below. Accountants (and superusers)
keep them; auditors read them. Thin: the form shows `schedule_problems`, the save is a service."""

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from pit.accounts.roles import RUN_REPORTS
from pit.core.admin_site import ReadOnlyAdminMixin, ReadOnlyInline

from .models import ReportDelivery, ReportSchedule, ReportScheduleRun

# The catalog, the schedules and the services are imported where used, function-locally: they load
# openpyxl and reportlab, which Django's start (admin autodiscovery) should not; the worker's
# warm-up (deploy/gunicorn.conf.py) loads them before the first request.


def _report_choices() -> list[tuple[str, str]]:
    from .catalog import REPORTS  # function-local: see above

    return [(slug, report.title) for slug, report in REPORTS.items()]


class ReportScheduleForm(forms.ModelForm):
    report = forms.ChoiceField(choices=_report_choices, label=_("Report"))

    class Meta:
        model = ReportSchedule
        fields = (
            "name",
            "report",
            "format",
            "tables",
            "game",
            "period",
            "frequency",
            "weekday",
            "day_of_month",
            "hour",
            "recipients",
            "folder",
            "active",
        )

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean(self):
        from .schedules import schedule_problems  # function-local: see the top of the module

        cleaned = super().clean()
        if self.errors:
            return cleaned
        schedule = self.instance
        for name, value in (cleaned or {}).items():
            setattr(schedule, name, value)
        if schedule.owner_id is None and self.user is not None:
            schedule.owner = self.user
        for field, problem in schedule_problems(schedule).items():
            self.add_error(field if field in self.fields else None, problem)
        return cleaned


class ReportScheduleRunInline(ReadOnlyInline):
    model = ReportScheduleRun
    fields = ("due_on", "date_from", "date_to", "status", "started_at", "finished_at", "file", "sent_to", "error")
    readonly_fields = fields
    ordering = ("-due_on", "-id")

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _reads_schedules(request.user)


def _reads_schedules(user) -> bool:
    return bool(user.is_active and user.is_staff and (user.is_superuser or user.has_perm(RUN_REPORTS)))


KEEP_SCHEDULES = "reports.keep_reportschedule"  # accountants' (pit.accounts.roles)


def _keeps_schedules(user) -> bool:
    return bool(user.is_active and user.is_staff and user.has_perm(KEEP_SCHEDULES))


@admin.register(ReportSchedule)
class ReportScheduleAdmin(admin.ModelAdmin):
    form = ReportScheduleForm
    list_display = (
        "name",
        "report",
        "format",
        "period",
        "frequency",
        "hour",
        "recipients",
        "folder",
        "active",
        "owner",
    )
    list_filter = ("report", "format", "frequency", "active")
    search_fields = ("name", "recipients", "folder")
    list_select_related = ("owner",)
    readonly_fields = ("owner", "created_at")
    inlines = (ReportScheduleRunInline,)
    actions = None  # no bulk delete: a schedule is removed (or paused) one at a time

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)

        class WithUser(form):  # type: ignore[valid-type,misc]
            def __init__(self, *args, **inner):
                super().__init__(*args, user=request.user, **inner)

        return WithUser

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self.has_view_permission(request)

    def has_view_permission(self, request: HttpRequest, obj=None) -> bool:
        return _reads_schedules(request.user)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _keeps_schedules(request.user)

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return _keeps_schedules(request.user)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return _keeps_schedules(request.user)

    def save_model(self, request, obj, form, change):
        from .services import report_schedule_save  # function-local: see the top of the module

        report_schedule_save(schedule=obj, user=request.user)


@admin.register(ReportDelivery)
class ReportDeliveryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every time a report's rows left pit: which report and days, to whom, how, and when. Auditors
    and compliance read it (`reports.view_reportdelivery`); nobody changes it."""

    list_display = ("delivered_at", "report", "format", "via", "delivered_to", "detail")
    list_filter = ("via", "format", "report")
    list_select_related = ("delivered_to",)
    search_fields = ("report", "delivered_to__username", "detail")
    date_hierarchy = "delivered_at"
    readonly_fields = ("report", "format", "via", "filters", "delivered_to", "delivered_at", "detail")
