"""Tables over the API: the list and one table (limits, paytable, dealing shoe); opening and closing."""

from collections.abc import Callable
from typing import ClassVar

from django.db.models import OuterRef, Prefetch, Subquery
from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.authentication import actor_for, request_device
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ, DEVICE_READ_WRITE, ensure_table_access
from pit.api.replays import PostKind, post_kind
from pit.api.serializers import (
    MomentField,
    OutputSerializer,
    SignedMoneyField,
    StrictSerializer,
    money,
    validated,
)
from pit.shoes.models import Shoe, ShoeStatus
from pit.tables import services as table_services
from pit.tables.models import Table, TableLimit


# ------------------------------------------------------------------------------------------ inputs
class TableEventInputSerializer(StrictSerializer):
    at = MomentField(required=False, help_text="When it happened, with its UTC offset; default: now.")


# ------------------------------------------------------------------------------------------ outputs
def table_data(table) -> dict:
    return {
        "code": table.code,
        "name": table.name,
        "game": table.game,
        "seats": table.seats,
        "squeeze": table.squeeze,
        "status": table.status,
        "currency": table.currency,
        "paytable": table.paytable_id,
        "limits": [
            {
                "bet": limit.bet,
                "minimum": money(limit.minimum_minor, table.currency),
                "maximum": money(limit.maximum_minor, table.currency),
            }
            for limit in table.limits.all()
        ],
        "dealing_shoe": getattr(table, "dealing_shoe_id", None),
    }


class TableLimitSerializer(serializers.Serializer):
    bet = serializers.CharField()
    minimum = SignedMoneyField()
    maximum = SignedMoneyField()


class TableSerializer(OutputSerializer):
    code = serializers.CharField()
    name = serializers.CharField()
    game = serializers.ChoiceField(choices=("big", "midi", "mini"))
    seats = serializers.ListField(child=serializers.IntegerField())
    squeeze = serializers.BooleanField()
    status = serializers.ChoiceField(choices=("open", "closed"))
    currency = serializers.CharField()
    paytable = serializers.IntegerField(help_text="Id of the paytable configuration in force.")
    limits = TableLimitSerializer(many=True)
    dealing_shoe = serializers.IntegerField(allow_null=True, help_text="Id of the shoe now dealing, if any.")
    data_function = staticmethod(table_data)


# ------------------------------------------------------------------------------------------ lookups
def tables_queryset():
    dealing = Shoe.objects.filter(table=OuterRef("pk"), status=ShoeStatus.DEALING).values("pk")[:1]
    return Table.objects.annotate(dealing_shoe_id=Subquery(dealing)).prefetch_related(
        Prefetch("limits", queryset=TableLimit.objects.order_by("bet"))
    )


def table_for(request, code: str, queryset=None) -> Table:
    try:
        table = (queryset if queryset is not None else Table.objects).get(code=code)
    except Table.DoesNotExist:
        raise Http404(gettext("There is no table {code!r}.").format(code=code)) from None
    ensure_table_access(request, table)
    return table


# ------------------------------------------------------------------------------------------ views
@extend_schema(tags=["tables"], summary="Tables: all of them for staff, its own table for a device")
class TableListView(generics.ListAPIView):
    serializer_class = TableSerializer
    read_permissions = ("tables.view_table",)
    device_access = DEVICE_READ

    def get_queryset(self):
        queryset = tables_queryset().order_by("code")
        device = request_device(self.request)
        return queryset.filter(pk=device.table_id) if device else queryset


@extend_schema(tags=["tables"])
class TableDetailView(APIView):
    read_permissions = ("tables.view_table",)
    device_access = DEVICE_READ

    @extend_schema(responses=TableSerializer, summary="A table, its limits, paytable and dealing shoe")
    def get(self, request, code: str):
        return Response(table_data(table_for(request, code, tables_queryset())))


@post_kind(PostKind.TRANSITION)
class _TableStatusView(APIView):
    write_permissions = ("tables.change_table",)
    device_access = DEVICE_READ_WRITE
    service: ClassVar[Callable[..., Table]]  # the status change each view makes

    @idempotent
    def post(self, request, code: str):
        data = validated(TableEventInputSerializer, request)
        table = table_for(request, code)
        type(self).service(table=table, actor=actor_for(request), at=data.get("at"))
        return Response(table_data(tables_queryset().get(pk=table.pk)))


@extend_schema(
    tags=["tables"],
    request=TableEventInputSerializer,
    responses=TableSerializer,
    summary="Open the table (a no-op if it is open)",
)
class TableOpenView(_TableStatusView):
    service = staticmethod(table_services.table_open)


@extend_schema(
    tags=["tables"],
    request=TableEventInputSerializer,
    responses=TableSerializer,
    summary="Close the table (a no-op if it is closed)",
)
class TableCloseView(_TableStatusView):
    service = staticmethod(table_services.table_close)
