"""Dealers over the API: floor systems post who comes in at their table (dealer rotations); pit
bosses say whose fault a violation was; staff read each dealer's figures."""

import datetime as dt

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ_WRITE
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.tables import table_for
from pit.api.serializers import ChoiceField, DayField, LookupField, MomentField, StrictSerializer, TextField, validated
from pit.compliance.models import RuleViolation
from pit.dealers.models import Dealer, DealerRotation, Fault, ViolationFault
from pit.dealers.selectors import dealer_statistics
from pit.dealers.services import dealer_rotate, violation_attribute

MAX_DAYS = 366


class RotationInputSerializer(StrictSerializer):
    dealer = LookupField(
        queryset=Dealer.objects.all(),
        slug_field="code",
        pattern=r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}",
        rule=_("1 to 20 ASCII letters, digits, - or _, e.g. D042"),
        what=_("a dealer code"),
        max_length=20,
        allow_null=True,
        help_text="The dealer's code (badge), e.g. D042; null: the dealer went out and nobody came in.",
    )
    started_at = MomentField(help_text="When they took over the table, with its UTC offset.")


class RotationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.CharField(source="table.code")
    dealer = serializers.CharField(source="dealer.code", allow_null=True, default=None)
    started_at = serializers.DateTimeField()
    recorded_at = serializers.DateTimeField()


class FaultInputSerializer(StrictSerializer):
    fault = ChoiceField(choices=Fault.choices)
    note = TextField(allow_blank=True, max_length=2000, help_text="Required: why.")


class FaultSerializer(serializers.Serializer):
    violation = serializers.IntegerField(source="violation_id")
    fault = serializers.CharField()
    note = serializers.CharField()
    decided_by = serializers.CharField(source="decided_by.username")
    decided_at = serializers.DateTimeField()


class DealerFiguresSerializer(serializers.Serializer):
    dealer = serializers.CharField(source="dealer.code")
    name = serializers.CharField(source="dealer.name")
    coups = serializers.IntegerField()
    hours = serializers.DecimalField(max_digits=12, decimal_places=2)
    coups_per_hour = serializers.DecimalField(max_digits=12, decimal_places=1, allow_null=True)
    errors_per_1000_coups = serializers.DictField(child=serializers.DecimalField(max_digits=12, decimal_places=2))
    # A field, not Serializer.errors: DRF's metaclass takes declared fields out of the class body.
    errors = serializers.DictField(child=serializers.IntegerField())  # type: ignore[assignment]
    device_faults = serializers.IntegerField(
        help_text="Violations of their coups that are not the dealer's: a machine's or neither's by their code, "
        "or put down to a device or neither by a pit boss."
    )
    mispays = serializers.IntegerField()
    mispaid = serializers.DictField(
        child=serializers.DecimalField(max_digits=18, decimal_places=2), help_text="Currency -> money paid wrong."
    )


class DayRangeSerializer(StrictSerializer):
    """?from=YYYY-MM-DD&to=YYYY-MM-DD (gaming days, both included)."""

    def get_fields(self):
        return {"from": DayField(), "to": DayField()}

    def validate(self, attrs):
        if attrs["to"] < attrs["from"]:
            raise serializers.ValidationError({"to": gettext("The range ends before it starts.")})
        if (attrs["to"] - attrs["from"]).days >= MAX_DAYS:
            raise serializers.ValidationError(
                {"to": gettext("At most {max_days} gaming days at a time.").format(max_days=MAX_DAYS)}
            )
        return attrs


@post_kind(PostKind.FACT)
@extend_schema(tags=["dealers"])
class TableRotationView(APIView):
    write_permissions = ("dealers.record_dealerrotation",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=RotationInputSerializer,
        responses={201: RotationSerializer, 200: RotationSerializer},
        summary="A dealer comes in at the table (201; 200 for a replay; 409 for another dealer at that moment)",
    )
    @idempotent
    def post(self, request, code: str):
        table = table_for(request, code)
        data = validated(RotationInputSerializer, request)
        return recorded_once(
            what=f"The rotation of {table.code} at {data['started_at'].isoformat()}",
            serializer_class=RotationInputSerializer,
            values=data,
            recorded=DealerRotation.objects.select_related("table", "dealer")
            .filter(table=table, started_at=data["started_at"])
            .first,
            as_posted=lambda rotation: {
                "dealer": rotation.dealer.code if rotation.dealer_id else None,
                "started_at": rotation.started_at.isoformat(),
            },
            create=lambda: dealer_rotate(
                table=table, dealer=data["dealer"], started_at=data["started_at"], actor=actor_for(request)
            )[0],
            answer=lambda rotation: RotationSerializer(rotation).data,
        )


@post_kind(PostKind.REVISION)
@extend_schema(tags=["dealers"])
class ViolationFaultView(APIView):
    write_permissions = ("dealers.attribute_violation",)

    @extend_schema(
        request=FaultInputSerializer,
        responses={201: FaultSerializer, 200: FaultSerializer},
        summary="A pit boss says whose fault a violation was (dealer, device, other; note required)",
        description="201 with the attribution, which stands from now on; 200 with the one standing when it "
        "says the same already (fault and note; nothing written).",
    )
    @idempotent
    def post(self, request, violation_id: int):
        violation = get_object_or_404(RuleViolation, pk=violation_id)
        data = validated(FaultInputSerializer, request)
        standing = (
            ViolationFault.objects.filter(violation=violation).select_related("decided_by").order_by("-pk").first()
        )
        if standing is not None and (standing.fault, standing.note) == (data["fault"], data["note"]):
            return Response(FaultSerializer(standing).data, status=status.HTTP_200_OK)
        attribution = violation_attribute(
            violation=violation, fault=data["fault"], user=request.user, note=data["note"]
        )
        return Response(FaultSerializer(attribution).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["dealers"])
class DealerStatisticsView(APIView):
    read_permissions = ("dealers.view_dealer",)

    @extend_schema(
        parameters=[
            OpenApiParameter("from", dt.date, required=True, description="First gaming day."),
            OpenApiParameter("to", dt.date, required=True, description="Last gaming day."),
        ],
        responses={200: DealerFiguresSerializer(many=True)},
        summary="Per dealer: coups, hours, coups per hour, dealer errors per 1,000 coups, mispays",
    )
    def get(self, request):
        query = DayRangeSerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        days = query.validated_data
        figures = dealer_statistics(first_day=days["from"], last_day=days["to"])
        return Response([_figures_data(row) for row in figures])


def _figures_data(figures) -> dict:
    return {
        **DealerFiguresSerializer(figures).data,
        "errors": dict(sorted(figures.errors.items())),
        "mispaid": {currency: str(amount) for currency, amount in sorted(figures.mispaid.items())},
    }
