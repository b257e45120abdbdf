"""Live alarms for floor systems and surveillance: unreviewed critical violations (game protection,
box variances, play at a closed table), newest first, one per event: the findings of one shoe (or,
with no shoe, of one table, code and gaming day) are one alarm, its newest finding with their count.
Read scope: staff who may view violations, and floor devices for their own table."""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers

from pit.api.authentication import DevicePrincipal
from pit.api.permissions import DEVICE_READ
from pit.api.resources.violations import ViolationSerializer, violation_data
from pit.api.serializers import iso
from pit.compliance.models import RuleViolation
from pit.protection.selectors import ALARM_CODES, alarm_events, alarm_groups, alarms_unreviewed


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


def alarm_data(violation) -> dict:  # an event of pit.protection.selectors.alarm_events
    return {
        **violation_data(violation["violation"]),
        "count": violation["count"],
        "first_found_at": iso(violation["first_found_at"]),
        "last_found_at": iso(violation["last_found_at"]),
    }


class AlarmSerializer(ViolationSerializer):
    count = serializers.IntegerField(help_text="How many findings this event holds (e.g. one per coup of a shoe).")
    first_found_at = serializers.DateTimeField()
    last_found_at = serializers.DateTimeField()
    data_function = staticmethod(alarm_data)


@extend_schema(tags=["violations"], summary="Unreviewed critical alarms, one per event, newest first")
class AlarmListView(generics.ListAPIView):
    """Open, holding violations whose code is an alarm, one per event (its newest finding, with the
    count); filter by table (code), code, since, gaming_day."""

    serializer_class = AlarmSerializer
    filterset_class = AlarmFilter
    read_permissions = ("compliance.view_ruleviolation",)
    device_access = DEVICE_READ

    def get_queryset(self):
        user = self.request.user
        if isinstance(user, DevicePrincipal):  # a floor device sees its own table's alarms
            return alarms_unreviewed(table_id=user.device.table_id)
        return alarms_unreviewed()

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(alarm_groups(self.filter_queryset(self.get_queryset())))
        return self.get_paginated_response(self.get_serializer(alarm_events(page or []), many=True).data)
