"""Corrections and voids of coups over the API (a misread stake, a misdeal): the coup and its first
wagers stay as recorded; the same correction posted again is answered with the one recorded."""

from django.db.models import Prefetch
from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ_WRITE, ensure_table_access
from pit.api.replays import PostKind, differences, post_kind
from pit.api.resources.coups import CoupSerializer, WagerInputSerializer, WagerSerializer, coups_payload
from pit.api.serializers import StrictSerializer, TextField, iso, money, validated
from pit.core.errors import Conflict
from pit.shoes import services as shoe_services
from pit.shoes.models import CorrectionKind, Coup, CoupCorrection, Wager

REASON_HELP = "Required: why (the misread stake, the misdeal), in words a pit boss reads later."


# ------------------------------------------------------------------------------------------ inputs
class CorrectionInputSerializer(StrictSerializer):
    # The stubs type only the child's arguments: many=True hands max_length to the ListSerializer.
    wagers = WagerInputSerializer(  # type: ignore[call-arg]
        many=True,
        max_length=200,
        help_text="Every wager of the coup as it should stand (those left out no longer stand).",
    )
    reason = TextField(allow_blank=True, max_length=2000, help_text=REASON_HELP)


class VoidInputSerializer(StrictSerializer):
    reason = TextField(allow_blank=True, max_length=2000, help_text=REASON_HELP)


# ------------------------------------------------------------------------------------------ outputs
def correction_data(correction: CoupCorrection, coup_payload: dict | None) -> dict:
    currency = correction.coup.shoe.table.currency
    return {
        "id": correction.pk,
        "coup": correction.coup_id,
        "sequence": correction.sequence,
        "kind": correction.kind,
        "reason": correction.reason,
        "recorded_at": iso(correction.recorded_at),
        "recorded_by": correction.recorded_by,
        "wagers": [
            {
                "seat": wager.seat,
                "bet": wager.bet,
                "amount": money(wager.amount_minor, currency),
                "paid": money(wager.paid_minor, currency),
                "result": wager.result,
                "payout": money(wager.payout_minor, currency),
                "commission": money(wager.commission_minor, currency),
            }
            for wager in correction.wagers.all()
        ],
        "standing": coup_payload,
    }


class CorrectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    coup = serializers.IntegerField()
    sequence = serializers.IntegerField(help_text="1, 2, 3 ... per coup; the highest stands.")
    kind = serializers.ChoiceField(choices=CorrectionKind.values)
    reason = serializers.CharField()
    recorded_at = serializers.DateTimeField()
    recorded_by = serializers.CharField()
    wagers = WagerSerializer(many=True, help_text="The wagers this correction wrote (none for a void).")
    standing = CoupSerializer(
        allow_null=True, help_text="The coup as it stands now (in answers to a correction or a void)."
    )

    def to_representation(self, instance):
        return instance


# ------------------------------------------------------------------------------------------ views
def _coup_for(request, coup_id: int) -> Coup:
    coup = Coup.objects.select_related("shoe__table").filter(pk=coup_id).first()
    if coup is None:
        raise Http404(gettext("There is no coup {coup_id}.").format(coup_id=coup_id))
    ensure_table_access(request, coup.shoe.table)
    return coup


def _corrections(coup_ids):
    return (
        CoupCorrection.objects.filter(coup_id__in=coup_ids)
        .select_related("coup__shoe__table", "recorded_by_user", "recorded_by_device__table")
        .prefetch_related(Prefetch("wagers", queryset=Wager.objects.order_by("seat", "bet")))
        .order_by("coup_id", "sequence")
    )


def _answer(outcome: shoe_services.CorrectionOutcome, serializer_class, values: dict) -> Response:
    """201 with the correction recorded now; 200 with the one standing when it says the same (its
    reason too); a 409 naming the reason when the same correction stands with another."""
    if not outcome.created:
        found = differences(serializer_class, {"reason": values["reason"]}, {"reason": outcome.correction.reason})
        if found:
            raise Conflict(
                gettext(
                    "The {kind} standing on coup {coup_id} was recorded with another "
                    "reason; a recorded correction is never changed."
                ).format(kind=outcome.correction.kind, coup_id=outcome.correction.coup_id),
                errors=found,
                existing_id=outcome.correction.pk,
            )
    correction = _corrections([outcome.correction.coup_id]).get(pk=outcome.correction.pk)
    coup = Coup.objects.select_related("recorded_by_device__table", "recorded_by_user").get(pk=correction.coup_id)
    (payload,) = coups_payload([coup])
    return Response(
        correction_data(correction, payload), status=status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK
    )


@post_kind(PostKind.REVISION)
@extend_schema(tags=["coups"])
class CoupCorrectionsView(APIView):
    read_permissions = ("shoes.view_coupcorrection",)
    write_permissions = ("shoes.correct_coup",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(responses=CorrectionSerializer(many=True), summary="The coup's corrections and voids, in order")
    def get(self, request, coup_id: int):
        coup = _coup_for(request, coup_id)
        return Response([correction_data(correction, None) for correction in _corrections([coup.pk])])

    @extend_schema(
        request=CorrectionInputSerializer,
        responses={201: CorrectionSerializer, 200: CorrectionSerializer},
        summary="Correct a coup's wagers (a misread stake): the whole set that stands from now on",
        description=(
            "Each wager carries what the table paid on it (`paid`); a wager sent without `paid` is stored as "
            "paid what the paytable owes on its corrected stake (the old stake's paid figure is not kept, so "
            "correcting a stake raises no payout_mismatch of its own). "
            "201 with the correction and the coup as it now stands; 200 when the same wagers stand already "
            "by an earlier correction (nothing written). The coup's earlier wagers stay recorded; the "
            "commission they accrued is reversed and the corrected wagers' is accrued, settled by the "
            "engine under the coup's paytable version. After the shoe was reconciled, a supplementary "
            "reconciliation follows. 400 names the field (`reason`, `wagers[2].amount`); nothing is written."
        ),
        examples=[
            OpenApiExample(
                "A misread Banker stake",
                request_only=True,
                value={
                    "wagers": [
                        {"seat": 1, "bet": "player", "amount": "100.00", "paid": "100.00"},
                        {"seat": 2, "bet": "banker", "amount": "500.00"},
                    ],
                    "reason": "Bet recognition read 250.00 for a 500.00 stake on seat 2.",
                },
            )
        ],
    )
    @idempotent
    def post(self, request, coup_id: int):
        coup = _coup_for(request, coup_id)
        data = validated(CorrectionInputSerializer, request, currency=coup.shoe.table.currency)
        wagers = tuple(
            shoe_services.WagerInput(seat=w["seat"], bet=w["bet"], amount=w["amount"], paid=w.get("paid"))
            for w in data["wagers"]
        )
        outcome = shoe_services.coup_correct(coup=coup, wagers=wagers, reason=data["reason"], actor=actor_for(request))
        return _answer(outcome, CorrectionInputSerializer, data)


@post_kind(PostKind.FACT)
@extend_schema(tags=["coups"])
class CoupVoidView(APIView):
    write_permissions = ("shoes.correct_coup",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=VoidInputSerializer,
        responses={201: CorrectionSerializer, 200: CorrectionSerializer},
        summary="Void a coup (a misdeal): every stake returned, no win, no commission",
        description=(
            "201 with the void; 200 when the coup stands voided already (nothing written). The coup and its "
            "wagers stay recorded; no wager stands after the void and its commission is reversed."
        ),
        examples=[
            OpenApiExample("A misdeal", request_only=True, value={"reason": "Misdeal: a card exposed on the deal."})
        ],
    )
    @idempotent
    def post(self, request, coup_id: int):
        data = validated(VoidInputSerializer, request)
        coup = _coup_for(request, coup_id)
        outcome = shoe_services.coup_void(coup=coup, reason=data["reason"], actor=actor_for(request))
        return _answer(outcome, VoidInputSerializer, data)
