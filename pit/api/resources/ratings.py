"""Ratings and comps over the API, for staff (a host's tablet, the player-club desk): a patron's
session ratings as computed from the recorded play, the comp balance and ledger, and a host's
redemption. Each read is recorded as a look at the patron (pit.players.services.patron_look_record).

A redemption names its comp slip (`reference`, once per patron): the same slip again is a 200 with
the entry, the same slip with other values a 409 naming each difference, a redemption past the
balance a 409 naming the balance."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.players import patron_or_404
from pit.api.serializers import (
    MoneyField,
    StrictSerializer,
    TextField,
    currency_field,
    iso,
    money,
    reference_field,
    validated,
)
from pit.core.money import to_minor
from pit.players.models import Patron
from pit.players.services import patron_look_record
from pit.ratings import selectors
from pit.ratings.models import CompEntry, SessionRating
from pit.ratings.services import comp_redeem, round_minor

VIEW = ("ratings.view_ratings",)
LISTED = 200


class RatingSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    table = serializers.CharField()
    seat = serializers.IntegerField()
    gaming_day = serializers.DateField()
    currency = serializers.CharField()
    seconds_played = serializers.IntegerField(help_text="Time seated, pauses out.")
    coups_played = serializers.IntegerField(help_text="Coups the seat had a standing wager on.")
    table_coups = serializers.IntegerField(help_text="Coups dealt at the table while the session played.")
    handle = serializers.CharField(help_text="Stakes standing after corrections and voids, in `currency`.")
    handle_by_bet = serializers.DictField(child=serializers.CharField(), help_text="Bet -> handle.")
    average_bet = serializers.CharField(help_text="Handle / coups played (or the estimate, when `estimated`).")
    largest_bet = serializers.CharField()
    won = serializers.CharField(help_text="The house's actual win: stakes lost - payouts + commission owed.")
    commission_owed = serializers.CharField()
    theo = serializers.CharField(help_text="Exact theoretical win, rounded to 6 places of the minor unit.")
    theo_exact = serializers.CharField(help_text='The exact theo in minor units as a fraction, "n/d".')
    standard_theo = serializers.CharField(help_text="Average bet x coups dealt x the paytable's full-shoe edge.")
    game_edge = serializers.CharField(help_text="The full-shoe Banker edge the standard theo uses, as a fraction.")
    estimated = serializers.BooleanField()
    final = serializers.BooleanField(help_text="The session has stood up.")
    as_of = serializers.DateTimeField()


class CompBalanceSerializer(serializers.Serializer):
    currency = serializers.CharField()
    balance = serializers.CharField()


class CompEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["earned", "adjusted", "redeemed"])
    session = serializers.IntegerField(allow_null=True)
    currency = serializers.CharField()
    amount = serializers.CharField(help_text="Positive earned, negative redeemed.")
    reason = serializers.CharField()
    reference = serializers.CharField(allow_null=True, help_text="A redemption's comp slip.")
    recorded_at = serializers.DateTimeField()
    recorded_by = serializers.CharField()


class CompsSerializer(serializers.Serializer):
    card_number = serializers.CharField()
    balances = CompBalanceSerializer(many=True)
    entries = CompEntrySerializer(many=True, help_text=f"The latest {LISTED}, newest first.")


class RedemptionInputSerializer(StrictSerializer):
    reference = reference_field(what="the comp slip's number")
    currency = currency_field()
    amount = MoneyField(positive=True, help_text='In `currency`, in its units (e.g. "150.00").')
    reason = TextField(max_length=200, help_text="What the comp is for (a dinner, a room night).")


def rating_data(rating: SessionRating) -> dict:
    theo = rating.theo
    return {
        "session": rating.session_id,
        "table": rating.table.code,
        "seat": rating.session.seat,
        "gaming_day": rating.gaming_day.isoformat(),
        "currency": rating.currency,
        "seconds_played": rating.seconds_played,
        "coups_played": rating.coups_played,
        "table_coups": rating.table_coups,
        "handle": money(rating.handle_minor, rating.currency),
        "handle_by_bet": {bet: money(minor, rating.currency) for bet, minor in sorted(rating.handle_by_bet.items())},
        "average_bet": money(round_minor(rating.average_bet_minor), rating.currency),
        "largest_bet": money(rating.largest_bet_minor, rating.currency),
        "won": money(rating.won_minor, rating.currency),
        "commission_owed": money(rating.commission_owed_minor, rating.currency),
        "theo": str(rating.theo_minor),
        "theo_exact": f"{theo.numerator}/{theo.denominator}",
        "standard_theo": str(rating.standard_theo_minor),
        "game_edge": rating.game_edge,
        "estimated": rating.estimated,
        "final": rating.final,
        "as_of": iso(rating.as_of),
    }


def entry_data(entry: CompEntry) -> dict:
    return {
        "id": entry.pk,
        "kind": entry.kind,
        "session": entry.session_id,
        "currency": entry.currency,
        "amount": money(entry.amount_minor, entry.currency),
        "reason": entry.reason,
        "reference": entry.reference,
        "recorded_at": iso(entry.recorded_at),
        "recorded_by": entry.recorded_by,
    }


def _looked_at(request, card_number: str, where: str) -> Patron:
    patron = patron_or_404(card_number)
    patron_look_record(patron=patron, user=request.user, where=where, personal=False)
    return patron


@extend_schema(tags=["players"])
class PatronRatingsView(APIView):
    read_permissions = VIEW

    @extend_schema(
        responses={200: RatingSerializer(many=True)},
        summary=f"A patron's session ratings, newest first (the latest {LISTED})",
        description="Computed from the recorded wagers, never typed; an open session is rated up to its latest coup.",
    )
    def get(self, request, card_number: str):
        patron = _looked_at(request, card_number, "api patron ratings")
        ratings = selectors.ratings_of_patron(patron)[:LISTED]
        return Response([rating_data(rating) for rating in ratings])


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class PatronCompsView(APIView):
    read_permissions = VIEW
    write_permissions = ("ratings.redeem_comp",)

    @extend_schema(responses={200: CompsSerializer}, summary="A patron's comp balances and ledger")
    def get(self, request, card_number: str):
        patron = _looked_at(request, card_number, "api patron comps")
        return Response(
            {
                "card_number": patron.card_number,
                "balances": [
                    {"currency": currency, "balance": money(balance, currency)}
                    for currency, balance in selectors.comp_balances(patron)
                ],
                "entries": [entry_data(entry) for entry in selectors.comp_entries(patron)[:LISTED]],
            }
        )

    @extend_schema(
        request=RedemptionInputSerializer,
        responses={201: CompEntrySerializer, 200: CompEntrySerializer},
        summary="A host redeems a patron's comps (201; 200 for the same slip again; 409 past the balance)",
    )
    @idempotent
    def post(self, request, card_number: str):
        patron = patron_or_404(card_number)
        data = validated(RedemptionInputSerializer, request)
        return recorded_once(
            what=f"Comp slip {data['reference']} of patron {patron.card_number}",
            serializer_class=RedemptionInputSerializer,
            values=data,
            context={"currency": data["currency"]},
            recorded=CompEntry.objects.filter(patron=patron, reference=data["reference"]).first,
            as_posted=lambda entry: {
                "reference": entry.reference,
                "currency": entry.currency,
                "amount": money(-entry.amount_minor, entry.currency),
                "reason": entry.reason,
            },
            create=lambda: comp_redeem(
                patron=patron,
                currency=data["currency"],
                amount_minor=to_minor(data["amount"], data["currency"]),
                reason=data["reason"],
                reference=data["reference"],
                actor=actor_for(request),
            ),
            answer=entry_data,
        )
