"""Coups over the API: one posted as dealt (the hot path), a batch of them, a shoe's coups, one coup;
each answered with the engine's evaluation, the settlement of its wagers and its violations."""

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, TypeVar

from django.http import Http404
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from pit import game
from pit.api import examples
from pit.api.authentication import DevicePrincipal, actor_for
from pit.api.errors import error_response, flatten_errors
from pit.api.idempotency import idempotent
from pit.api.parsers import MAX_BATCH_COUPS
from pit.api.permissions import DEVICE_READ, DEVICE_READ_WRITE, ensure_table_access
from pit.api.replays import PostKind, post_kind
from pit.api.resources.shoes import shoe_for
from pit.api.serializers import (
    CardsField,
    ChoiceField,
    IdentifierField,
    IntegerField,
    MomentField,
    MoneyField,
    SignedMoneyField,
    StrictSerializer,
    bet_field,
    integer_problem,
    iso,
    moment_problem,
    money,
    money_problem,
    validated,
)
from pit.compliance.models import RuleViolation
from pit.core.collection import collection_paused
from pit.core.errors import Conflict
from pit.shoes import services as shoe_services
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.selectors import wagers_standing

WINNERS = ("player", "banker", "tie")


# ------------------------------------------------------------------------------------------ inputs
class WagerInputSerializer(StrictSerializer):
    seat = IntegerField(min_value=1, max_value=99, help_text="A seat of the table.")
    bet = bet_field(help_text="A bet of the table's paytable: player, banker, tie ...")
    amount = MoneyField(positive=True, help_text="The stake, a positive decimal string.")
    paid = MoneyField(
        required=False,
        allow_null=True,
        help_text="What the table paid beyond the returned stake, if the floor reports it (checked).",
    )


class CoupInputSerializer(StrictSerializer):
    number = IntegerField(min_value=1, max_value=100000, help_text="1, 2, 3 ... within the shoe.")
    player = CardsField(help_text='Player\'s cards in dealt order (2 or 3), e.g. ["5H", "KD", "2C"].')
    banker = CardsField(help_text="Banker's cards in dealt order (2 or 3).")
    dealt_at = MomentField(required=False, help_text="When it was dealt, with its UTC offset; default: now.")
    reported_winner = ChoiceField(
        choices=WINNERS,
        required=False,
        allow_null=True,
        help_text="The winner the table announced (checked against the cards); null or left out when the "
        "table reports none.",
    )
    # The stubs type only the child's arguments: many=True hands max_length to the ListSerializer.
    wagers = WagerInputSerializer(many=True, required=False, max_length=200)  # type: ignore[call-arg]

    def to_internal_value(self, data) -> dict:
        # The fields above document the input; `coup_values` checks it, fast enough for a day's batch.
        return coup_values(data)

    def run_validators(self, value) -> None:
        # DRF's would first build `fields` (a deep copy of every field declared above, some 40 field
        # objects, on each coup posted) only to look for read-only fields with a default to add to
        # `value`: there is none, and the serializer has no validators of its own.
        serializers.Field.run_validators(self, value)


_Declared = TypeVar("_Declared", bound=serializers.Field)


def _declared(fields: Mapping[str, serializers.Field], name: str, kind: type[_Declared]) -> _Declared:
    """The field declared as `name`, as the `kind` whose limits `coup_values` reads."""
    field = fields[name]
    if not isinstance(field, kind):
        raise TypeError(f"{name!r} is declared as {type(field).__name__}, not {kind.__name__}")
    return field


def _limit(value: int | None) -> int:
    """A limit `coup_values` enforces: every field it reads one from declares it."""
    if value is None:
        raise TypeError("a field coup_values reads a limit from declares none")
    return value


# A coup is checked by hand rather than field by field through DRF: the same rules and messages,
# about twenty times faster, which is what lets a batch of a day's coups validate in milliseconds.
# The names and limits are read from the fields declared above, once; tests/api/test_coup_values.py
# proves field by field that `coup_values` answers as those fields do.
_COUP_DECLARED = CoupInputSerializer().fields
_WAGER_DECLARED = WagerInputSerializer().fields
_COUP_FIELDS = frozenset(_COUP_DECLARED)
_WAGER_FIELDS = frozenset(_WAGER_DECLARED)
_NUMBER = _declared(_COUP_DECLARED, "number", IntegerField)
_NUMBER_MIN, _NUMBER_MAX = _limit(_NUMBER.min_value), _limit(_NUMBER.max_value)
_CARDS = {hand: _declared(_COUP_DECLARED, hand, CardsField) for hand in ("player", "banker")}
_HANDS = tuple((hand, _limit(field.min_length), _limit(field.max_length)) for hand, field in _CARDS.items())
_CARD = {hand: _declared({"child": field.child}, "child", IdentifierField) for hand, field in _CARDS.items()}
_declared(_COUP_DECLARED, "dealt_at", MomentField)  # read by moment_problem, the MomentField's own check
_WINNER = _declared(_COUP_DECLARED, "reported_winner", ChoiceField)
# The stubs declare ListSerializer's max_length only as an argument; DRF keeps it as an attribute.
_MAX_WAGERS = _limit(_declared(_COUP_DECLARED, "wagers", serializers.ListSerializer).max_length)  # type: ignore[attr-defined]
_SEAT = _declared(_WAGER_DECLARED, "seat", IntegerField)
_WAGER_INTEGERS = (("seat", _limit(_SEAT.min_value), _limit(_SEAT.max_value)),)
_BET = _declared(_WAGER_DECLARED, "bet", IdentifierField)
_POSITIVE_MONEY = _declared(_WAGER_DECLARED, "amount", MoneyField)
_MONEY_FIELD = _declared(_WAGER_DECLARED, "paid", MoneyField)
_REQUIRED = _("This field is required.")
_NULL = _("This field may not be null.")


def _empty(field: serializers.Field, value) -> str | None:
    """DRF's answer for null or "" (read before the field's type, by `run_validation`): the slow path,
    taken only for those two, so that both readers say the same."""
    try:
        field.run_validation(value)
    except serializers.ValidationError as exc:
        return str(exc.detail[0])  # type: ignore[index]
    return None


def _list_problem(value, fewest: int, most: int) -> str | None:
    if not isinstance(value, list):
        return gettext('Expected a list of items but got type "{input_type}".').format(input_type=type(value).__name__)
    if len(value) < fewest:
        return gettext("Ensure this field has at least {min_length} elements.").format(min_length=fewest)
    if len(value) > most:
        return gettext("Ensure this field has no more than {max_length} elements.").format(max_length=most)
    return None


def wager_values(wager, where: str, errors: dict[str, list[str]], currency: str | None = None) -> dict[str, Any]:
    """One posted wager, read by the rules of `WagerInputSerializer`'s fields (the coup POST's and the
    correction's one reader of wagers); its problems added to `errors` under `where` (`wagers[2]`)."""
    if not isinstance(wager, dict):
        errors[where] = [
            gettext("Invalid data. Expected a dictionary, but got {datatype}.").format(datatype=type(wager).__name__)
        ]
        return {}
    for name in wager:
        if name not in _WAGER_FIELDS:
            errors[f"{where}.{name[:40]}"] = [gettext("Unknown field.")]
    item: dict[str, Any] = {}
    for name, low, high in _WAGER_INTEGERS:
        if name not in wager:
            errors[f"{where}.{name}"] = [str(_REQUIRED)]
        else:
            value = wager[name]
            problem = _empty(_SEAT, value) if value is None else integer_problem(value, low, high)
            if problem:
                errors[f"{where}.{name}"] = [problem]
            else:
                item[name] = wager[name]
    if "bet" not in wager:
        errors[f"{where}.bet"] = [str(_REQUIRED)]
    else:
        bet = wager["bet"]
        problem = _empty(_BET, bet) if bet is None or bet == "" else _BET.problem(bet)
        if problem:
            errors[f"{where}.bet"] = [problem]
        else:
            item["bet"] = wager["bet"]
    if "amount" not in wager:
        errors[f"{where}.amount"] = [str(_REQUIRED)]
    else:
        amount = wager["amount"]
        item["amount"], problem = (
            (None, _empty(_POSITIVE_MONEY, amount))
            if amount is None
            else money_problem(amount, positive=True, currency=currency)
        )
        if problem:
            errors[f"{where}.amount"] = [problem]
    if wager.get("paid") is not None:
        item["paid"], problem = money_problem(wager["paid"], positive=False, currency=currency)
        if problem:
            errors[f"{where}.paid"] = [problem]
    return item


def coup_values(data) -> dict:
    """A posted coup, checked for shape and types (the rules of the table are the service's):
    its values, or ValidationError keyed by field path (`wagers[2].amount`). The same rules and
    messages as the kit's fields declared above (their own checks, called here without DRF)."""
    if not isinstance(data, dict):
        raise serializers.ValidationError(
            {
                "non_field_errors": [
                    gettext("Invalid data. Expected a dictionary, but got {datatype}.").format(
                        datatype=type(data).__name__
                    )
                ]
            }
        )
    errors: dict[str, list[str]] = {name[:40]: [gettext("Unknown field.")] for name in data if name not in _COUP_FIELDS}
    values: dict = {}
    if "number" not in data:
        errors["number"] = [str(_REQUIRED)]
    else:
        number = data["number"]
        problem = _empty(_NUMBER, number) if number is None else integer_problem(number, _NUMBER_MIN, _NUMBER_MAX)
        if problem:
            errors["number"] = [problem]
        else:
            values["number"] = data["number"]
    for hand, fewest, most in _HANDS:
        cards = data.get(hand)
        if hand not in data:
            errors[hand] = [str(_REQUIRED)]
            continue
        problem = _list_problem(cards, fewest, most)
        if problem:
            errors[hand] = [problem]
            continue
        for index, code in enumerate(cards or ()):  # a list: _list_problem said so
            problem = _empty(_CARD[hand], code) if code is None or code == "" else _CARD[hand].problem(code)
            if problem:
                errors[f"{hand}[{index}]"] = [problem]
        values[hand] = cards
    if data.get("dealt_at") is not None:
        values["dealt_at"], problem = moment_problem(data["dealt_at"])
        if problem:
            errors["dealt_at"] = [problem]
    elif "dealt_at" in data:
        errors["dealt_at"] = [str(_NULL)]
    if data.get("reported_winner") is not None:
        problem = _WINNER.problem(data["reported_winner"])
        if problem:
            errors["reported_winner"] = [problem]
        else:
            values["reported_winner"] = data["reported_winner"]
    wagers = data.get("wagers", [])
    problem = _list_problem(wagers, 0, _MAX_WAGERS)
    if problem:
        errors["wagers"] = [problem]
        wagers = []
    values["wagers"] = [wager_values(wager, f"wagers[{index}]", errors) for index, wager in enumerate(wagers)]
    if errors:
        raise serializers.ValidationError(errors)
    return values


class CoupBatchInputSerializer(StrictSerializer):
    # The stubs type only the child's arguments: many=True hands the lengths to the ListSerializer.
    coups = CoupInputSerializer(many=True, min_length=1, max_length=MAX_BATCH_COUPS)  # type: ignore[call-arg]


# ------------------------------------------------------------------------------------------ outputs
class ViolationBriefSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class WagerSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    bet = serializers.CharField()
    amount = SignedMoneyField()
    paid = SignedMoneyField(allow_null=True)
    result = serializers.ChoiceField(choices=("win", "lose", "push"))
    payout = SignedMoneyField(help_text="Paid beyond the returned stake, by the paytable.")
    commission = SignedMoneyField(help_text="Owed into the seat's commission box.")


def coup_data(coup, wagers: list[dict], violations: list[dict]) -> dict:
    """`wagers` as WagerSerializer dicts, `violations` as {code, message}."""
    return {
        "id": coup.pk,
        "shoe": coup.shoe_id,
        "number": coup.number,
        "dealt_at": iso(coup.dealt_at),
        "gaming_day": coup.gaming_day.isoformat(),
        "player": list(coup.player_cards),
        "banker": list(coup.banker_cards),
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "winner": coup.winner,
        "natural": coup.natural,
        "player_pair": coup.player_pair,
        "banker_pair": coup.banker_pair,
        "reported_winner": coup.reported_winner or None,
        "paytable": coup.paytable_id,
        "recorded_by": coup.recorded_by,
        "wagers": wagers,
        "violations": violations,
    }


class CoupSerializer(serializers.Serializer):
    """A recorded coup: the cards, the engine's evaluation, the wagers' settlement, the violations."""

    id = serializers.IntegerField()
    shoe = serializers.IntegerField()
    number = serializers.IntegerField()
    dealt_at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    player = serializers.ListField(child=serializers.CharField())
    banker = serializers.ListField(child=serializers.CharField())
    player_total = serializers.IntegerField(min_value=0, max_value=9)
    banker_total = serializers.IntegerField(min_value=0, max_value=9)
    winner = serializers.ChoiceField(choices=WINNERS)
    natural = serializers.BooleanField()
    player_pair = serializers.BooleanField()
    banker_pair = serializers.BooleanField()
    reported_winner = serializers.ChoiceField(
        choices=WINNERS, allow_null=True, help_text="Null when none was reported."
    )
    paytable = serializers.IntegerField()
    recorded_by = serializers.CharField()
    wagers = WagerSerializer(many=True)
    violations = ViolationBriefSerializer(
        many=True,
        help_text="Rule violations known when answering: the engine's draw checks and recorded findings.",
    )

    def to_representation(self, instance):
        return instance  # views pass coup_data() dicts


def batch_request_errors(body, answer: str, max_coups: int) -> dict[str, list[str]]:
    """What is wrong with a batch as a whole (its shape, `?answer=`, its size); {} when nothing."""
    if not isinstance(body, dict) or set(body) != {"coups"} or not isinstance(body["coups"], list):
        errors = {"coups": ['Send {"coups": [...]} with a list of coups.']}
        if isinstance(body, dict):
            errors.update({name: ["Unknown field."] for name in body if name != "coups"})
        return errors
    if answer not in ("brief", "full"):
        return {"answer": [f"{answer!r} is not an answer form: brief (the default) or full."]}
    if not 1 <= len(body["coups"]) <= max_coups:
        return {"coups": [f"Send 1 to {max_coups} coups in one batch."]}
    return {}


def batch_invalid_data(index: int, item, detail) -> dict:
    """A batch item refused by `coup_values`; its number only if it sent a whole one."""
    number = item.get("number") if isinstance(item, dict) else None
    return {
        "index": index,
        "number": number if isinstance(number, int) and not isinstance(number, bool) else None,
        "status": "invalid",
        "id": None,
        "errors": flatten_errors(detail),
    }


def batch_outcome_data(index: int, coup: shoe_services.CoupInput, outcome) -> dict:
    return {
        "index": index,
        "number": coup.number,
        "status": outcome.status,
        "id": outcome.coup.pk if outcome.coup is not None else None,
        "errors": {
            key: list(value) if isinstance(value, list | tuple) else [str(value)]
            for key, value in outcome.errors.items()
        },
    }


def batch_data(shoe, results: list[dict]) -> dict:
    summary = dict.fromkeys(("created", "existing", "conflict", "invalid"), 0)
    for result in results:
        summary[result["status"]] += 1
    return {"shoe": shoe.pk, "summary": summary, "results": results}


class CoupBatchItemSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="Position in the posted list.")
    number = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=("created", "existing", "conflict", "invalid"))
    id = serializers.IntegerField(
        allow_null=True, help_text="The coup that holds the number (created now or before); null when invalid."
    )
    # A field, not Serializer.errors: DRF's metaclass takes declared fields out of the class body.
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))  # type: ignore[assignment]
    coup = CoupSerializer(
        allow_null=True, required=False, help_text="Only with `?answer=full`: the coup as `GET /coups/{id}/` shows it."
    )


class CoupBatchSummarySerializer(serializers.Serializer):
    created = serializers.IntegerField()
    existing = serializers.IntegerField()
    conflict = serializers.IntegerField()
    invalid = serializers.IntegerField()


class CoupBatchResultSerializer(serializers.Serializer):
    shoe = serializers.IntegerField()
    summary = CoupBatchSummarySerializer()
    results = CoupBatchItemSerializer(many=True)

    def to_representation(self, instance):
        return instance


# ------------------------------------------------------------------------------------------ payloads
def _wager_data(seat, bet, currency, amount, paid, result, payout, commission) -> dict:
    return {
        "seat": seat,
        "bet": bet,
        "amount": money(amount, currency),
        "paid": money(paid, currency),
        "result": result,
        "payout": money(payout, currency),
        "commission": money(commission, currency),
    }


def _coup_data(coup: Coup, wagers: list[dict], recorded: list[tuple[str, str]]) -> dict:
    dealt = game.Coup.from_codes(player=coup.player_cards, banker=coup.banker_cards)
    found = [(v.code, v.message) for v in game.verify_coup(dealt, coup.reported_winner or None)]
    violations = [{"code": code, "message": message} for code, message in dict.fromkeys(found + recorded)]
    return coup_data(coup, wagers, violations)


def coup_payload_created(coup: Coup, wagers: list[shoe_services.SettledWager]) -> dict:
    """A coup just created, as coups_payload shows it, from what was written (no query): all its
    wagers stand, and the rule checks that record violations run after commit."""
    ordered = sorted(wagers, key=lambda w: (w.seat, w.bet))
    return _coup_data(
        coup,
        [
            _wager_data(
                w.seat, w.bet, w.currency, w.amount_minor, w.paid_minor, w.result, w.payout_minor, w.commission_minor
            )
            for w in ordered
        ],
        [],
    )


def coups_payload(coups: list[Coup]) -> list[dict]:
    """The coups as the API shows them, with their wagers and violations, in three queries."""
    ids = [coup.pk for coup in coups]
    wagers: dict[int, list[dict]] = defaultdict(list)
    for coup_id, *values in (
        wagers_standing(Wager.objects.filter(coup_id__in=ids))
        .order_by("coup_id", "seat", "bet")
        .values_list(
            "coup_id",
            "seat",
            "bet",
            "currency",
            "amount_minor",
            "paid_minor",
            "result",
            "payout_minor",
            "commission_minor",
        )
    ):
        wagers[coup_id].append(_wager_data(*values))
    recorded: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for coup_id, code, message in (
        RuleViolation.objects.filter(coup_id__in=ids, cleared_at__isnull=True)
        .order_by("id")
        .values_list("coup_id", "code", "message")
    ):
        recorded[coup_id].append((code, message))
    return [_coup_data(coup, wagers[coup.pk], recorded[coup.pk]) for coup in coups]


def coup_input(data: dict) -> shoe_services.CoupInput:
    return shoe_services.CoupInput(
        number=data["number"],
        player=list(data["player"]),
        banker=list(data["banker"]),
        dealt_at=data.get("dealt_at"),
        reported_winner=data.get("reported_winner") or "",
        wagers=tuple(
            shoe_services.WagerInput(seat=w["seat"], bet=w["bet"], amount=w["amount"], paid=w.get("paid"))
            for w in data.get("wagers", ())
        ),
    )


def _coups_with_recorder(ids):
    return list(Coup.objects.filter(pk__in=ids).select_related("recorded_by_device__table", "recorded_by_user"))


# ------------------------------------------------------------------------------------------ views
# ---------------------------------------------------------------------------------------- coups
# Examples a client may paste as they are into a fresh shoe of a commission-box table: each is dealt by
# the rules, reports the right winner and payouts, and stays within the usual limits (25 to 10,000 on
# Player and Banker, 5 to 1,000 on Tie). tests/api/test_schema_examples.py posts every one of them.
# Player 5 draws a 2 (7); Banker 6 stands on a Player third card of 2: Player wins 7 to 6.
COUP_EXAMPLE = {
    "number": 1,
    "player": ["5H", "KD", "2C"],
    "banker": ["6S", "TD"],
    "dealt_at": "2026-11-29T21:14:05Z",
    "reported_winner": "player",
    "wagers": [
        {"seat": 1, "bet": "player", "amount": "100.00", "paid": "100.00"},
        {"seat": 2, "bet": "banker", "amount": "250.00", "paid": "0.00"},
        {"seat": 3, "bet": "tie", "amount": "25.00", "paid": "0.00"},
    ],
}
# Player 8 against Banker 9, both naturals: Banker wins, nobody draws.
NATURALS_EXAMPLE = {"number": 1, "player": ["4S", "4H"], "banker": ["9C", "KH"], "reported_winner": "banker"}
# Banker 3 draws on a Player third card of 0 (domain.md): Player 4 + K = 4, Banker 3 + 5 = 8.
SECOND_COUP_EXAMPLE = {
    "number": 2,
    "player": ["AS", "3D", "KC"],
    "banker": ["2H", "AC", "5D"],
    "reported_winner": "banker",
    "wagers": [{"seat": 2, "bet": "banker", "amount": "100.00", "paid": "100.00"}],
}


@post_kind(PostKind.FACT)
@extend_schema(tags=["coups"])
class ShoeCoupsView(APIView):
    read_permissions = ("shoes.view_coup",)
    write_permissions = ("shoes.add_coup",)
    device_access = DEVICE_READ_WRITE
    pagination_class = generics.GenericAPIView.pagination_class

    @extend_schema(
        responses=CoupSerializer(many=True),
        summary="The shoe's coups in number order (paginated)",
        parameters=[OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
    )
    def get(self, request, shoe_id: int):
        shoe = shoe_for(request, shoe_id)
        assert self.pagination_class is not None, "REST_FRAMEWORK sets DEFAULT_PAGINATION_CLASS"
        paginator = self.pagination_class()
        queryset = shoe.coups.select_related("recorded_by_device__table", "recorded_by_user").order_by("number")
        page = paginator.paginate_queryset(queryset, request, view=self)
        assert page is not None, "PitPagination has a page size: it pages every list"
        return paginator.get_paginated_response(coups_payload(page))

    @extend_schema(
        request=CoupInputSerializer,
        responses={201: CoupSerializer, 200: CoupSerializer},
        summary="Record a coup: cards, wagers; answered with the evaluation, settlement and violations",
        description=(
            "201 when recorded, 200 when the same coup (in every field) was recorded before (nothing "
            "written). The same number with anything different (cards, wagers, reported winner, dealt time) "
            "is a 409 whose `errors` name each difference; nothing of it is written and a violation is "
            "recorded for the pit boss. Malformed input is a 400 naming the field (nothing written); a "
            "well-formed coup that breaks a rule is recorded and flagged in `violations`."
        ),
        examples=[
            OpenApiExample("A coup with three wagers", value=COUP_EXAMPLE, request_only=True),
            OpenApiExample("Two-card naturals, no wagers", request_only=True, value=NATURALS_EXAMPLE),
        ],
    )
    @idempotent
    def post(self, request, shoe_id: int):
        data = validated(CoupInputSerializer, request)
        device = request.user.device if isinstance(request.user, DevicePrincipal) else None
        try:
            outcome = shoe_services.coup_record(
                shoe=shoe_id,
                coup=coup_input(data),
                actor=actor_for(request),
                at_table=None if device is None else device.table_id,  # compared with the shoe it locks
            )
        except shoe_services.ShoeAtOtherTable as exc:
            ensure_table_access(request, exc.table)  # 403: the device is registered for another table
            raise
        except Shoe.DoesNotExist:
            raise Http404(gettext("There is no shoe {shoe_id}.").format(shoe_id=shoe_id)) from None
        except Conflict as exc:
            # Answered, not raised: the violation recorded for the clash must be kept.
            return error_response(409, "conflict", exc.message, exc.errors, exc.details)
        assert outcome.coup is not None, "a created or existing coup's outcome carries it"
        if outcome.status == shoe_services.CoupOutcomeStatus.CREATED:
            # Answered from what was written; the coup holds its writer already.
            return Response(coup_payload_created(outcome.coup, outcome.wagers), status=status.HTTP_201_CREATED)
        (payload,) = coups_payload(_coups_with_recorder([outcome.coup.pk]))  # a replay: read as recorded
        return Response(payload, status=status.HTTP_200_OK)


@post_kind(PostKind.BATCH)
@extend_schema(tags=["coups"])
class ShoeCoupsBatchView(APIView):
    write_permissions = ("shoes.add_coup",)
    device_access = DEVICE_READ_WRITE
    MAX_COUPS = MAX_BATCH_COUPS

    @extend_schema(
        request=CoupBatchInputSerializer,
        responses=CoupBatchResultSerializer,
        summary="Record many coups at once (a replay of a day), each judged on its own",
        description=(
            "One transaction for the valid coups. Each item of `results` says `created`, "
            "`existing` (the same "
            "coup was recorded before), `conflict` (same number, anything different: `errors` names each "
            "difference, a violation is recorded) or "
            "`invalid` (its `errors`, keyed by field within the item; nothing written for it), with `id`, the "
            "coup that holds its number (null when invalid). Always 200. The answer is that small by default "
            "(a day of 1,600 coups answers in about 100 KiB); with `?answer=full` each item also carries its "
            "`coup` as `GET /coups/{id}/` shows it (evaluation, settlement, violations known)."
        ),
        parameters=[
            OpenApiParameter(
                "answer",
                OpenApiTypes.STR,
                enum=["brief", "full"],
                description="`brief` (default): per-item status, id and errors. `full`: each item's coup too.",
            )
        ],
        examples=[
            OpenApiExample(
                "Two coups",
                request_only=True,
                value={"coups": [COUP_EXAMPLE, SECOND_COUP_EXAMPLE]},
            ),
            OpenApiExample("Brief answer (default)", response_only=True, value=examples.BATCH_BRIEF),
            OpenApiExample("Full answer (?answer=full)", response_only=True, value=examples.BATCH_FULL),
        ],
    )
    @collection_paused()
    @idempotent
    def post(self, request, shoe_id: int):
        answer = request.query_params.get("answer", "brief")
        errors = batch_request_errors(request.data, answer, self.MAX_COUPS)
        if errors:
            return error_response(400, "invalid", gettext("The request has errors; see `errors`."), errors)
        items = request.data["coups"]
        shoe = shoe_for(request, shoe_id)
        results: list[dict] = [{}] * len(items)
        inputs, positions = [], []
        for index, item in enumerate(items):
            try:
                inputs.append(coup_input(coup_values(item)))
                positions.append(index)
            except ValidationError as exc:
                results[index] = batch_invalid_data(index, item, exc.detail)
        outcomes = shoe_services.coups_record(shoe=shoe, coups=inputs, actor=actor_for(request)) if inputs else []
        for index, item, outcome in zip(positions, inputs, outcomes, strict=True):
            results[index] = batch_outcome_data(index, item, outcome)
        if answer == "full":
            coup_ids = {outcome.coup.pk for outcome in outcomes if outcome.coup is not None}
            payloads = {p["id"]: p for p in coups_payload(_coups_with_recorder(coup_ids))} if coup_ids else {}
            for result in results:
                result["coup"] = payloads.get(result["id"])
        return Response(batch_data(shoe, results))


@extend_schema(tags=["coups"])
class CoupDetailView(APIView):
    read_permissions = ("shoes.view_coup",)
    device_access = DEVICE_READ

    @extend_schema(responses=CoupSerializer, summary="A coup with its evaluation, settlement and violations")
    def get(self, request, coup_id: int):
        coup = (
            Coup.objects.select_related("shoe__table", "recorded_by_device__table", "recorded_by_user")
            .filter(pk=coup_id)
            .first()
        )
        if coup is None:
            raise Http404(gettext("There is no coup {coup_id}.").format(coup_id=coup_id))
        ensure_table_access(request, coup.shoe.table)
        (payload,) = coups_payload([coup])
        return Response(payload)
