"""Shoes over the API: starting one after a shuffle, reading its progress, closing it with the box count."""

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit import game
from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ, DEVICE_READ_WRITE, ensure_table_access
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.tables import table_for
from pit.api.serializers import (
    CardsField,
    IntegerField,
    MomentField,
    MoneyField,
    OutputSerializer,
    StrictSerializer,
    iso,
    validated,
)
from pit.shoes import services as shoe_services
from pit.shoes.models import Shoe


# ------------------------------------------------------------------------------------------ inputs
class ShoeStartSerializer(StrictSerializer):
    decks = IntegerField(min_value=1, max_value=12, default=8)
    cut_card_position = IntegerField(
        min_value=1, max_value=12 * 52, help_text="Cards from the top (after the burn) to the cut card."
    )
    burn = CardsField(required=False, default=list, min_length=0, max_length=20, help_text="The burned cards' codes.")
    shuffled_at = MomentField(required=False, help_text="With its UTC offset; default: now.")


class BoxCountInputSerializer(StrictSerializer):
    seat = IntegerField(min_value=1, max_value=99)
    counted = MoneyField(help_text="What was counted in the seat's commission box.")


class ShoeCloseSerializer(StrictSerializer):
    # The stubs type only the child's arguments: many=True hands max_length to the ListSerializer.
    commission_box = BoxCountInputSerializer(many=True, max_length=99)  # type: ignore[call-arg]
    closed_at = MomentField(required=False, help_text="With its UTC offset; default: now.")


# ------------------------------------------------------------------------------------------ outputs
def shoe_data(shoe) -> dict:
    return {
        "id": shoe.pk,
        "table": shoe.table.code,
        "sequence": shoe.sequence,
        "decks": shoe.decks,
        "shuffled_at": iso(shoe.shuffled_at),
        "cut_card_position": shoe.cut_card_position,
        "burn": list(shoe.burn_cards),
        "status": shoe.status,
        "closed_at": iso(shoe.closed_at),
        "cards_dealt": shoe.cards_dealt,
        "coups_recorded": shoe.coups_recorded,
        "cards_left_before_cut": shoe.cards_left_before_cut,
        "recorded_by": shoe.recorded_by,
    }


class ShoeSerializer(OutputSerializer):
    id = serializers.IntegerField()
    table = serializers.CharField()
    sequence = serializers.IntegerField()
    decks = serializers.IntegerField()
    shuffled_at = serializers.DateTimeField()
    cut_card_position = serializers.IntegerField()
    burn = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=("dealing", "closed"))
    closed_at = serializers.DateTimeField(allow_null=True)
    cards_dealt = serializers.IntegerField()
    coups_recorded = serializers.IntegerField()
    cards_left_before_cut = serializers.IntegerField()
    recorded_by = serializers.CharField(help_text="'device <name> @ <table>', 'user <name>' or 'system'.")
    data_function = staticmethod(shoe_data)


# ------------------------------------------------------------------------------------------ lookups
def shoe_for(request, shoe_id: int) -> Shoe:
    try:
        shoe = Shoe.objects.select_related("table", "recorded_by_device__table", "recorded_by_user").get(pk=shoe_id)
    except Shoe.DoesNotExist:
        raise Http404(gettext("There is no shoe {shoe_id}.").format(shoe_id=shoe_id)) from None
    ensure_table_access(request, shoe.table)
    return shoe


# ------------------------------------------------------------------------------------------ views
@post_kind(PostKind.FACT)
@extend_schema(tags=["shoes"])
class ShoeStartView(APIView):
    write_permissions = ("shoes.add_shoe",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=ShoeStartSerializer,
        responses={201: ShoeSerializer, 200: ShoeSerializer},
        summary="Start a shoe after a shuffle (409 naming the open shoe while another is dealing)",
        description="201 with the shoe. A start that gives `shuffled_at` names its shoe: posted again the "
        "same in every field it is a 200 with the shoe (nothing written), with anything different a 409 "
        "naming each difference.",
    )
    @idempotent
    def post(self, request, code: str):
        data = validated(ShoeStartSerializer, request)
        table = table_for(request, code)
        shuffled_at = data.get("shuffled_at")
        return recorded_once(
            what=f"The shoe of {table.code} shuffled at {shuffled_at.isoformat() if shuffled_at else 'now'}",
            serializer_class=ShoeStartSerializer,
            values=data,
            recorded=lambda: (
                None
                if shuffled_at is None
                else Shoe.objects.select_related("table").filter(table=table, shuffled_at=shuffled_at).first()
            ),
            as_posted=shoe_data,
            create=lambda: shoe_for(
                request,
                shoe_services.shoe_start(
                    table=table,
                    decks=data["decks"],
                    cut_card_position=data["cut_card_position"],
                    burn=data["burn"],
                    shuffled_at=shuffled_at,
                    actor=actor_for(request),
                ).pk,
            ),
            answer=shoe_data,
        )


@extend_schema(tags=["shoes"])
class ShoeDetailView(APIView):
    read_permissions = ("shoes.view_shoe",)
    device_access = DEVICE_READ

    @extend_schema(responses=ShoeSerializer, summary="A shoe and its progress to the cut card")
    def get(self, request, shoe_id: int):
        return Response(shoe_data(shoe_for(request, shoe_id)))


@post_kind(PostKind.TRANSITION)
@extend_schema(tags=["shoes"])
class ShoeCloseView(APIView):
    write_permissions = ("shoes.change_shoe",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=ShoeCloseSerializer,
        responses=ShoeSerializer,
        summary="Close the shoe at the shuffle with the commission box count per seat (reconciled after)",
    )
    @idempotent
    def post(self, request, shoe_id: int):
        data = validated(ShoeCloseSerializer, request)
        shoe = shoe_for(request, shoe_id)
        if not data["commission_box"] and shoe.table.paytable.rules.get("commission_mode") == game.CommissionMode.BOX:
            # A floor system that sends no count at all has not counted: an empty box is a count of 0.00.
            raise serializers.ValidationError(
                {
                    "commission_box": [
                        gettext("This table keeps commission in boxes: send each seat's count (0.00 if empty).")
                    ]
                }
            )
        shoe_services.shoe_close(
            shoe=shoe,
            box_counts=[(line["seat"], line["counted"]) for line in data["commission_box"]],
            closed_at=data.get("closed_at"),
            actor=actor_for(request),
        )
        return Response(shoe_data(shoe_for(request, shoe_id)))
