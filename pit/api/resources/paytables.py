"""Paytables over the API: every configuration version (a device sees its table's) and exact odds."""

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit import game
from pit.api.authentication import request_device
from pit.api.errors import error_response
from pit.api.permissions import DEVICE_READ
from pit.api.serializers import FACT_CHOICES, ROUNDING_MODES, OutputSerializer
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable


# ------------------------------------------------------------------------------------------ outputs
def paytable_data(configuration) -> dict:
    return {
        "id": configuration.pk,
        "code": configuration.code,
        "version": configuration.version,
        "name": configuration.name,
        "preset": configuration.preset,
        "rules": configuration.rules,
        "house_edges": configuration.house_edges,
        "override_reason": configuration.override_reason,
        "supersedes": configuration.supersedes_id,
        "superseded_by": getattr(getattr(configuration, "superseded_by", None), "pk", None),
    }


class PaytableRuleSerializer(serializers.Serializer):
    when = serializers.ListField(
        child=serializers.ChoiceField(choices=FACT_CHOICES),
        help_text="Facts of the outcome that must all hold for this rule to decide the bet.",
    )
    result = serializers.ChoiceField(choices=[result.value for result in game.BetResult])
    odds = serializers.RegexField(
        r"^[0-9]+:[0-9]+$", allow_null=True, help_text='What a win pays, e.g. "8:1"; null unless a win.'
    )
    commission = serializers.BooleanField(help_text="A win owes commission.")


class PaytableBetSerializer(serializers.Serializer):
    rules = PaytableRuleSerializer(many=True, help_text="Tried in order; the first that matches decides.")


class PaytableRoundingSerializer(serializers.Serializer):
    increment = serializers.CharField(help_text='A decimal string, e.g. "0.01".')
    mode = serializers.ChoiceField(choices=ROUNDING_MODES)


class PaytableRulesSerializer(serializers.Serializer):
    name = serializers.CharField()
    commission_mode = serializers.ChoiceField(choices=[mode.value for mode in game.CommissionMode])
    commission_rate = serializers.CharField(help_text='A decimal string, e.g. "0.05".')
    commission_rounding = PaytableRoundingSerializer()
    bet_increments = serializers.DictField(child=serializers.CharField(), help_text="Bet -> increment.")
    ties_push = serializers.BooleanField(help_text="A tie pushes Player and Banker bets.")
    bets = serializers.DictField(child=PaytableBetSerializer(), help_text="Bet name -> its rules.")


class HouseEdgeSerializer(serializers.Serializer):
    house_edge = serializers.CharField()
    variance = serializers.CharField()


class PaytableSerializer(OutputSerializer):
    id = serializers.IntegerField()
    code = serializers.CharField()
    version = serializers.IntegerField()
    name = serializers.CharField()
    preset = serializers.CharField()
    rules = PaytableRulesSerializer(help_text="The engine's paytable: bets, payouts, commission mode and rounding.")
    house_edges = serializers.DictField(child=HouseEdgeSerializer(), help_text="Per bet, 8 decks, as computed on save.")
    override_reason = serializers.CharField()
    supersedes = serializers.IntegerField(allow_null=True)
    superseded_by = serializers.IntegerField(allow_null=True)
    data_function = staticmethod(paytable_data)


def _decimal_text(value) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def odds_data(configuration, decks: int, odds) -> dict:
    """The engine's exact odds of every bet of `configuration` for a full shoe of `decks` decks."""
    bets = [
        {
            "bet": bet,
            "house_edge": str(game.fraction_to_decimal(bet_odds.house_edge, 12)),
            "variance": str(game.fraction_to_decimal(bet_odds.variance, 12)),
            "outcomes": [
                {
                    "result": str(o.result),
                    "net": _decimal_text(game.fraction_to_decimal(o.net, 12)),
                    "probability": str(game.fraction_to_decimal(o.probability, 12)),
                }
                for o in bet_odds.outcomes
            ],
        }
        for bet, bet_odds in odds.bets.items()
    ]
    return {"paytable": configuration.pk, "decks": decks, "cards": decks * 52, "bets": bets}


class OutcomeOddsSerializer(serializers.Serializer):
    result = serializers.ChoiceField(choices=("win", "lose", "push"))
    net = serializers.CharField(help_text="Net return per unit staked, a decimal string.")
    probability = serializers.CharField()


class BetOddsSerializer(serializers.Serializer):
    bet = serializers.CharField()
    house_edge = serializers.CharField(help_text="Exact, as a decimal string (12 places); negative favours the player.")
    variance = serializers.CharField()
    outcomes = OutcomeOddsSerializer(many=True)


class OddsSerializer(serializers.Serializer):
    paytable = serializers.IntegerField()
    decks = serializers.IntegerField()
    cards = serializers.IntegerField()
    bets = BetOddsSerializer(many=True)

    def to_representation(self, instance):
        return instance


# ------------------------------------------------------------------------------------------ lookups
def paytables_for(request):
    queryset = PaytableConfiguration.objects.select_related("superseded_by").order_by("code", "-version")
    device = request_device(request)
    return queryset.filter(pk=device.table.paytable_id) if device else queryset


# ------------------------------------------------------------------------------------------ views
@extend_schema(tags=["paytables"], summary="Paytable configurations (every version); a device sees its table's")
class PaytableListView(generics.ListAPIView):
    serializer_class = PaytableSerializer
    read_permissions = ("paytables.view_paytableconfiguration",)
    device_access = DEVICE_READ

    def get_queryset(self):
        return paytables_for(self.request)


@extend_schema(tags=["paytables"])
class PaytableOddsView(APIView):
    read_permissions = ("paytables.view_paytableconfiguration",)
    device_access = DEVICE_READ

    @extend_schema(
        responses=OddsSerializer,
        summary="Exact odds and house edge of every bet, for a full shoe",
        parameters=[OpenApiParameter("decks", OpenApiTypes.INT, description="1 to 12; default 8.")],
    )
    def get(self, request, paytable_id: int):
        raw = request.query_params.get("decks", "8")
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 12:
            return error_response(
                400,
                "invalid",
                gettext("The request has errors; see `errors`."),
                {"decks": ["Give a whole number of decks from 1 to 12."]},
            )
        configuration = paytables_for(request).filter(pk=paytable_id).first()
        if configuration is None:
            if PaytableConfiguration.objects.filter(pk=paytable_id).exists():
                return error_response(
                    403, "permission_denied", gettext("This device may read its table's paytable only.")
                )
            raise Http404(gettext("There is no paytable configuration {paytable_id}.").format(paytable_id=paytable_id))
        decks = int(raw)
        odds = game.exact_odds(engine_paytable(configuration.rules), decks)
        return Response(odds_data(configuration, decks, odds))
