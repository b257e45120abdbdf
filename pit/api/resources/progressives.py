"""Progressive meters over the API (under /api/v1/progressives/): what each meter stands at, for a
floor display (a device of a bank table, or staff), and a hit paid by a pit boss with a second signer."""

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api import serializers as s
from pit.api.authentication import actor_for, request_device
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.serializers import validated
from pit.core.money import from_minor
from pit.progressives.models import Meter, MeterPayout
from pit.progressives.selectors import MeterFigures, meter_figures, meters_liability
from pit.progressives.services import meter_payout_record
from pit.shoes.models import Coup
from pit.tables.models import Table


class MeterSerializer(serializers.Serializer):
    code = serializers.CharField()
    name = serializers.CharField()
    bet = serializers.CharField(help_text="The paytable bet key that feeds the meter.")
    currency = serializers.CharField()
    amount = serializers.CharField(help_text="What the meter shows: a decimal string in the currency's units.")
    base = serializers.CharField(help_text="The filed base amount.")
    reset = serializers.CharField(help_text="The filed reset amount (after a hit), in force now.")
    rate = serializers.CharField(help_text="The rate of progression in force: the share of each stake, e.g. 0.050000.")
    tables = serializers.ListField(child=serializers.CharField(), help_text="The bank's tables in force.")
    configuration = serializers.IntegerField(help_text="The version of the filed configuration in force.")
    contributions = serializers.CharField(help_text="Rate times the standing stakes, to the cent below.")
    carried = serializers.CharField(help_text="Contributions of stakes a correction or void withdrew, kept on.")
    payouts = serializers.IntegerField(help_text="Hits paid so far.")


class PayoutInputSerializer(s.StrictSerializer):
    meter = s.LookupField(
        queryset=Meter.objects.all(),
        slug_field="code",
        pattern=r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}",
        rule="1 to 20 ASCII letters, digits, - or _, e.g. PP1",
        what="a progressive meter",
        max_length=20,
        help_text="The meter's code, e.g. PP1.",
    )
    seat = s.IntegerField(min_value=1, max_value=99, help_text="The seat of the winning wager.")
    paid_by = s.username_field(help_text="The pit boss's username (first signer).")
    paid_by_password = s.SecretField(
        help_text="The pit boss's password when they are not the authenticated user.",
    )
    witnessed_by = s.username_field(help_text="The second signer's username (the cage's cashier).")
    witnessed_by_password = s.SecretField(
        help_text="The second signer's password, entered by them, when they are not the authenticated user. "
        "Segregation of duties: two people sign, each authenticated.",
    )
    note = s.TextField(max_length=2000, allow_blank=True, default="")


class PayoutSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    meter = serializers.CharField()
    coup = serializers.IntegerField()
    table = serializers.CharField()
    seat = serializers.IntegerField()
    amount = serializers.CharField(help_text="What the meter stood at, paid.")
    reset = serializers.CharField(help_text="The filed reset amount the meter stands at after the payout.")
    paid_by = serializers.CharField()
    witnessed_by = serializers.CharField()
    note = serializers.CharField()
    recorded_at = serializers.DateTimeField()


def _money(minor: int, currency: str) -> str:
    return str(from_minor(minor, currency))


def meter_data(figures: MeterFigures, codes: dict[int, str]) -> dict:
    configuration, currency = figures.configuration, figures.currency
    return {
        "code": figures.meter.code,
        "name": figures.meter.name,
        "bet": figures.meter.bet,
        "currency": currency,
        "amount": _money(figures.amount_minor, currency),
        "base": _money(figures.base_minor, currency),
        "reset": _money(configuration.reset_minor, currency),
        "rate": str(configuration.rate),
        "tables": sorted(codes[table_id] for table_id in figures.table_ids),
        "configuration": configuration.version,
        "contributions": _money(int(figures.contributions), currency),
        "carried": _money(int(figures.carried), currency),
        "payouts": figures.payouts,
    }


def _table_codes() -> dict[int, str]:
    return dict(Table.objects.values_list("pk", "code"))


def _visible(request, figures: MeterFigures) -> bool:
    device = request_device(request)
    return device is None or device.table_id in figures.table_ids


@extend_schema(tags=["progressives"])
class MeterListView(APIView):
    read_permissions = ("progressives.view_meter",)
    device_access = DEVICE_READ

    @extend_schema(
        responses={200: MeterSerializer(many=True)},
        summary="Every progressive meter as it stands (a device: the meters of its table's bank)",
    )
    def get(self, request):
        codes = _table_codes()
        return Response([meter_data(f, codes) for f in meters_liability() if _visible(request, f)])


@extend_schema(tags=["progressives"])
class MeterDetailView(APIView):
    read_permissions = ("progressives.view_meter",)
    device_access = DEVICE_READ

    @extend_schema(
        responses={200: MeterSerializer},
        summary="One meter as it stands, for a floor display (a device of a table of its bank)",
    )
    def get(self, request, code: str):
        meter = Meter.objects.filter(code=code).first()
        if meter is None or not meter.configurations.exists():
            raise exceptions.NotFound(gettext("There is no progressive meter {code}.").format(code=repr(code)))
        figures = meter_figures(meter)
        if not _visible(request, figures):
            raise exceptions.PermissionDenied(
                gettext("Meter {meter} is not of this device's table's bank.").format(meter=meter.code)
            )
        return Response(meter_data(figures, _table_codes()))


def payout_data(payout: MeterPayout) -> dict:
    currency = payout.meter.currency
    return {
        "id": payout.pk,
        "meter": payout.meter.code,
        "coup": payout.coup_id,
        "table": payout.table.code,
        "seat": payout.seat,
        "amount": _money(payout.amount_minor, currency),
        "reset": _money(payout.reset_minor, currency),
        "paid_by": payout.paid_by.username,
        "witnessed_by": payout.witnessed_by.username,
        "note": payout.note,
        "recorded_at": payout.recorded_at.isoformat().replace("+00:00", "Z"),
    }


def _user(username: str, field: str):
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise exceptions.ValidationError(
            {field: [gettext("There is no active user {username}.").format(username=repr(username))]}
        )
    return user


@post_kind(PostKind.FACT)
@extend_schema(tags=["progressives"])
class PayoutView(APIView):
    write_permissions = ("progressives.pay_meterpayout",)

    @extend_schema(
        request=PayoutInputSerializer,
        responses={201: PayoutSerializer, 200: PayoutSerializer},
        summary="Pay a progressive hit (two signers); the meter resets to its filed reset amount",
        description="201 with the payout: the meter's amount as it stood, paid to the standing winning wager "
        "on its bet at the seat of a coup of its bank; 200 for the same post again (nothing written); 409 "
        "naming each field a post of the same hit changes.",
    )
    @idempotent
    def post(self, request, coup_id: int):
        coup = get_object_or_404(Coup.objects.select_related("shoe"), pk=coup_id)
        data = validated(PayoutInputSerializer, request)
        meter = data["meter"]
        return recorded_once(
            what=f"The payout of meter {meter.code} on coup {coup.pk} seat {data['seat']}",
            serializer_class=PayoutInputSerializer,
            values=data,
            recorded=MeterPayout.objects.select_related("meter", "table", "paid_by", "witnessed_by")
            .filter(meter=meter, coup_id=coup.pk, seat=data["seat"])
            .first,
            as_posted=lambda payout: {
                "meter": payout.meter.code,
                "seat": payout.seat,
                "paid_by": payout.paid_by.username,
                "witnessed_by": payout.witnessed_by.username,
                "note": payout.note,
            },
            create=lambda: meter_payout_record(
                meter=meter,
                coup=coup,
                seat=data["seat"],
                paid_by=_user(data["paid_by"], "paid_by"),
                witnessed_by=_user(data["witnessed_by"], "witnessed_by"),
                note=data.get("note", ""),
                actor=actor_for(request),
                secrets={name: data.get(f"{name}_password", "") for name in ("paid_by", "witnessed_by")},
            ),
            answer=payout_data,
        )


urlpatterns = [
    path("meters/", MeterListView.as_view(), name="meter-list"),
    path("meters/<slug:code>/", MeterDetailView.as_view(), name="meter-detail"),
    path("coups/<int:coup_id>/payouts/", PayoutView.as_view(), name="coup-payouts"),
]
