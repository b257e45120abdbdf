"""The commission ledger of a shoe over the API: a seat's commission collected when its player leaves,
the shoe's box reconciliation, and the supplementary reconciliations later corrections cause."""

from django.db.models import Prefetch
from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ, DEVICE_READ_WRITE
from pit.api.replays import PostKind, post_kind
from pit.api.resources.shoes import shoe_for
from pit.api.serializers import (
    MoneyField,
    OutputSerializer,
    SignedMoneyField,
    StrictSerializer,
    TextField,
    iso,
    money,
    validated,
)
from pit.core.money import from_minor
from pit.ledger import services as ledger_services
from pit.ledger.models import (
    Reconciliation,
    ReconciliationSeat,
    ReconciliationSupplement,
    ReconciliationSupplementSeat,
)
from pit.shoes.models import ShoeStatus

# Seconds a poller waits: a queued reconciliation is made within seconds, a dealing shoe runs for long.
RECONCILIATION_RETRY_PENDING = 2
RECONCILIATION_RETRY_DEALING = 60


# ------------------------------------------------------------------------------------------ inputs
class CollectInputSerializer(StrictSerializer):
    note = TextField(required=False, allow_blank=True, max_length=500)


# ------------------------------------------------------------------------------------------ outputs
def collection_data(shoe, seat: int, entry) -> dict:
    """What `entry` (None when the seat owed nothing) collected from the seat."""
    currency = shoe.table.currency
    return {
        "shoe": shoe.pk,
        "seat": seat,
        "currency": currency,
        "collected": str(-from_minor(entry.amount_minor, currency) if entry else from_minor(0, currency)),
        "entry": entry.pk if entry else None,
    }


class CollectionSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    seat = serializers.IntegerField()
    currency = serializers.CharField()
    collected = SignedMoneyField(help_text='Collected from the seat now; "0.00" when it owed nothing.')
    entry = serializers.IntegerField(allow_null=True, help_text="Id of the ledger entry, if one was written.")

    def to_representation(self, instance):
        return instance


class ReconciliationSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    accrued = SignedMoneyField()
    collected_earlier = SignedMoneyField()
    expected = SignedMoneyField()
    counted = SignedMoneyField()
    variance = SignedMoneyField()


def reconciliation_data(reconciliation) -> dict:
    currency = reconciliation.currency
    return {
        "shoe": reconciliation.shoe_id,
        "currency": currency,
        "status": reconciliation.status,
        "accrued": money(reconciliation.accrued_minor, currency),
        "collected_earlier": money(reconciliation.collected_earlier_minor, currency),
        "expected": money(reconciliation.expected_minor, currency),
        "counted": money(reconciliation.counted_minor, currency),
        "variance": money(reconciliation.variance_minor, currency),
        "reconciled_at": iso(reconciliation.reconciled_at),
        "explanation": reconciliation.explanation,
        "seats": [
            {
                "seat": line.seat,
                "accrued": money(line.accrued_minor, currency),
                "collected_earlier": money(line.collected_earlier_minor, currency),
                "expected": money(line.expected_minor, currency),
                "counted": money(line.counted_minor, currency),
                "variance": money(line.variance_minor, currency),
            }
            for line in reconciliation.seats.all()
        ],
    }


class ReconciliationSerializer(OutputSerializer):
    shoe = serializers.IntegerField()
    currency = serializers.CharField()
    status = serializers.ChoiceField(choices=("balanced", "variance", "explained"))
    accrued = SignedMoneyField()
    collected_earlier = SignedMoneyField()
    expected = SignedMoneyField()
    counted = SignedMoneyField()
    variance = SignedMoneyField(help_text="Counted minus expected.")
    reconciled_at = serializers.DateTimeField()
    explanation = serializers.CharField()
    seats = ReconciliationSeatSerializer(many=True)
    data_function = staticmethod(reconciliation_data)


def reconciliation_pending_data(shoe) -> dict:
    dealing = shoe.status == ShoeStatus.DEALING
    return {
        "shoe": shoe.pk,
        "status": "dealing" if dealing else "pending",
        "message": f"Shoe {shoe.pk} has no reconciliation yet: "
        + (
            "it is still dealing; it is reconciled when it is closed at the shuffle."
            if dealing
            else "it was closed and its reconciliation is queued."
        ),
        "retry_after_seconds": RECONCILIATION_RETRY_DEALING if dealing else RECONCILIATION_RETRY_PENDING,
    }


class ReconciliationPendingSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=("dealing", "pending"),
        help_text="`dealing`: the shoe is not closed yet; `pending`: closed, its reconciliation is queued.",
    )
    message = serializers.CharField()
    retry_after_seconds = serializers.IntegerField(help_text="The same as the Retry-After header.")


class SupplementSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    change = SignedMoneyField(help_text="What the seat came to owe after the reconciliation (negative: owed to it).")
    accrued = MoneyField()
    collected_earlier = MoneyField()
    expected = MoneyField(help_text="What the box should have held, as the ledger stands now.")
    counted = MoneyField(help_text="What was counted at the shuffle (unchanged).")
    variance = SignedMoneyField(help_text="Counted minus expected, now.")


class SupplementSerializer(serializers.Serializer):
    sequence = serializers.IntegerField()
    status = serializers.ChoiceField(choices=("balanced", "variance"))
    currency = serializers.CharField()
    change = SignedMoneyField()
    expected = MoneyField()
    counted = MoneyField()
    variance = SignedMoneyField()
    recorded_at = serializers.DateTimeField()
    seats = SupplementSeatSerializer(many=True)

    def to_representation(self, instance):
        return instance


def supplement_data(supplement: ReconciliationSupplement) -> dict:
    currency = supplement.currency
    figures = ("change", "expected", "counted", "variance")
    return {
        "sequence": supplement.sequence,
        "status": supplement.status,
        "currency": currency,
        **{name: money(getattr(supplement, f"{name}_minor"), currency) for name in figures},
        "recorded_at": iso(supplement.recorded_at),
        "seats": [
            {
                "seat": line.seat,
                **{
                    name: money(getattr(line, f"{name}_minor"), currency)
                    for name in ("change", "accrued", "collected_earlier", *figures[1:])
                },
            }
            for line in supplement.seats.all()
        ],
    }


# ------------------------------------------------------------------------------------------ lookups
def reconciliation_of(shoe) -> Reconciliation | None:
    return (
        Reconciliation.objects.filter(shoe=shoe)
        .prefetch_related(Prefetch("seats", queryset=ReconciliationSeat.objects.order_by("seat")))
        .first()
    )


def supplements_of(shoe):
    return (
        ReconciliationSupplement.objects.filter(reconciliation__shoe=shoe)
        .prefetch_related(Prefetch("seats", queryset=ReconciliationSupplementSeat.objects.order_by("seat")))
        .order_by("sequence")
    )


# ------------------------------------------------------------------------------------------ views
@extend_schema(tags=["shoes"])
class ReconciliationView(APIView):
    read_permissions = ("ledger.view_reconciliation",)
    device_access = DEVICE_READ

    @extend_schema(
        responses={
            200: ReconciliationSerializer,
            202: OpenApiResponse(
                ReconciliationPendingSerializer,
                description="No reconciliation yet: the shoe is still dealing, or it was closed and its "
                "reconciliation is queued. Ask again after `Retry-After` seconds.",
            ),
        },
        summary="The shoe's commission box reconciliation (202 while it is pending)",
        description="200 with the reconciliation once it is made; 202 with `status` `dealing` or `pending` "
        "before that; 404 only for a shoe that does not exist.",
    )
    def get(self, request, shoe_id: int):
        shoe = shoe_for(request, shoe_id)
        reconciliation = reconciliation_of(shoe)
        if reconciliation is None:
            body = reconciliation_pending_data(shoe)
            return Response(
                body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": str(body["retry_after_seconds"])}
            )
        return Response(reconciliation_data(reconciliation))


@post_kind(PostKind.TRANSITION)
@extend_schema(tags=["ledger"])
class CommissionCollectView(APIView):
    write_permissions = ("ledger.add_commissionentry",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=CollectInputSerializer,
        responses={201: CollectionSerializer, 200: CollectionSerializer},
        summary="The player at the seat leaves: collect what the seat owes the commission box",
    )
    @idempotent
    def post(self, request, shoe_id: int, seat: int):
        data = validated(CollectInputSerializer, request)
        shoe = shoe_for(request, shoe_id)
        entry = ledger_services.commission_collect(
            shoe=shoe, seat=seat, actor=actor_for(request), note=data.get("note", "")
        )
        return Response(
            collection_data(shoe, seat, entry), status=status.HTTP_201_CREATED if entry else status.HTTP_200_OK
        )


@extend_schema(tags=["shoes"])
class ReconciliationSupplementsView(APIView):
    read_permissions = ("ledger.view_reconciliationsupplement",)
    device_access = DEVICE_READ

    @extend_schema(
        responses=SupplementSerializer(many=True),
        summary="The supplementary reconciliations of a shoe (commission that changed after it was reconciled)",
    )
    def get(self, request, shoe_id: int):
        shoe = shoe_for(request, shoe_id)
        if not Reconciliation.objects.filter(shoe=shoe).exists():
            raise Http404(gettext("Shoe {shoe_pk} has no reconciliation yet.").format(shoe_pk=shoe.pk))
        return Response([supplement_data(supplement) for supplement in supplements_of(shoe)])
