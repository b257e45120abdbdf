"""Rule violations over the API: the list (filtered) and a pit boss's acknowledgement or resolution."""

from collections.abc import Callable
from typing import ClassVar

import django_filters
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.idempotency import idempotent
from pit.api.replays import PostKind, post_kind
from pit.api.serializers import OutputSerializer, StrictSerializer, TextField, iso, validated
from pit.compliance import services as compliance_services
from pit.compliance.models import RuleViolation, ViolationStatus


# ------------------------------------------------------------------------------------------ inputs
class ReviewInputSerializer(StrictSerializer):
    note = TextField(allow_blank=True, max_length=2000, help_text="Required: what was done or why.")


class ViolationFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=ViolationStatus.choices)
    table = django_filters.CharFilter(field_name="table__code", help_text="Table code, e.g. BB1.")
    gaming_day = django_filters.DateFilter()
    code = django_filters.CharFilter(help_text="The engine's violation code, e.g. banker_missed_draw.")

    class Meta:
        model = RuleViolation
        fields = ["status", "table", "gaming_day", "code"]


# ------------------------------------------------------------------------------------------ outputs
def violation_data(violation) -> dict:
    return {
        "id": violation.pk,
        "code": violation.code,
        "message": violation.message,
        "severity": violation.severity,
        "status": violation.status,
        "table": violation.table.code,
        "shoe": violation.shoe_id,
        "coup": violation.coup_id,
        "wager": violation.wager_id,
        "seat": violation.seat,
        "gaming_day": violation.gaming_day.isoformat(),
        "found_at": iso(violation.found_at),
        "found_by": violation.found_by,
        "cleared_at": iso(violation.cleared_at),
        "status_note": violation.status_note,
        "status_changed_by": violation.status_changed_by.get_username() if violation.status_changed_by_id else None,
        "status_changed_at": iso(violation.status_changed_at),
    }


class ViolationSerializer(OutputSerializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()
    severity = serializers.ChoiceField(choices=("low", "medium", "high"))
    status = serializers.ChoiceField(choices=("open", "acknowledged", "resolved", "dismissed"))
    table = serializers.CharField()
    shoe = serializers.IntegerField(allow_null=True)
    coup = serializers.IntegerField(allow_null=True)
    wager = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    gaming_day = serializers.DateField()
    found_at = serializers.DateTimeField()
    found_by = serializers.CharField()
    cleared_at = serializers.DateTimeField(allow_null=True)
    status_note = serializers.CharField()
    status_changed_by = serializers.CharField(allow_null=True)
    status_changed_at = serializers.DateTimeField(allow_null=True)
    data_function = staticmethod(violation_data)


# ------------------------------------------------------------------------------------------ views
@extend_schema(
    tags=["violations"], summary="Rule violations, newest first; filter by status, table (code), gaming_day, code"
)
class ViolationListView(generics.ListAPIView):
    serializer_class = ViolationSerializer
    filterset_class = ViolationFilter
    read_permissions = ("compliance.view_ruleviolation",)

    def get_queryset(self):
        return RuleViolation.objects.select_related("table", "status_changed_by").order_by("-found_at", "-id")


@post_kind(PostKind.TRANSITION)
class _ViolationReviewView(APIView):
    write_permissions = ("compliance.change_ruleviolation",)
    service: ClassVar[Callable[..., RuleViolation]]  # the review each view records

    @idempotent
    def post(self, request, violation_id: int):
        data = validated(ReviewInputSerializer, request)
        violation = get_object_or_404(RuleViolation, pk=violation_id)
        violation = type(self).service(violation=violation, user=request.user, note=data["note"])
        violation = RuleViolation.objects.select_related("table", "status_changed_by").get(pk=violation.pk)
        return Response(violation_data(violation))


@extend_schema(
    tags=["violations"],
    request=ReviewInputSerializer,
    responses=ViolationSerializer,
    summary="A pit boss acknowledges a violation (note required)",
)
class ViolationAcknowledgeView(_ViolationReviewView):
    service = staticmethod(compliance_services.violation_acknowledge)


@extend_schema(
    tags=["violations"],
    request=ReviewInputSerializer,
    responses=ViolationSerializer,
    summary="A pit boss resolves a violation (note required)",
)
class ViolationResolveView(_ViolationReviewView):
    service = staticmethod(compliance_services.violation_resolve)
