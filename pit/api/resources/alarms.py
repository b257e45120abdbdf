"""Live alarms for floor systems and surveillance: unreviewed critical violations (game protection,
box variances, play at a closed table), newest first. Read scope: staff who may view violations,
and floor devices for their own table."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import generics

from pit.api.authentication import DevicePrincipal
from pit.api.permissions import DEVICE_READ
from pit.api.resources.violations import ViolationSerializer
from pit.compliance.models import RuleViolation
from pit.protection.selectors import ALARM_CODES, alarms_unreviewed


class AlarmFilter(django_filters.FilterSet):
    table = django_filters.CharFilter(field_name="table__code", help_text="Table code, e.g. BB1.")
    code = django_filters.ChoiceFilter(choices=[(code, code) for code in ALARM_CODES])
    since = django_filters.IsoDateTimeFilter(
        field_name="found_at", lookup_expr="gte", help_text="Only alarms found at or after this time (ISO 8601)."
    )
    gaming_day = django_filters.DateFilter()

    class Meta:
        model = RuleViolation
        fields = ["table", "code", "since", "gaming_day"]


@extend_schema(tags=["violations"], summary="Unreviewed critical alarms, newest first")
class AlarmListView(generics.ListAPIView):
    """Open, holding violations whose code is an alarm; filter by table (code), code, since, gaming_day."""

    serializer_class = ViolationSerializer
    filterset_class = AlarmFilter
    read_permissions = ("compliance.view_ruleviolation",)
    device_access = DEVICE_READ

    def get_queryset(self):
        user = self.request.user
        if isinstance(user, DevicePrincipal):  # a floor device sees its own table's alarms
            return alarms_unreviewed(table_id=user.device.table_id)
        return alarms_unreviewed()
