"""The API's views: thin, each calls one service or selector; the services own the rules.

Access: `PitAccess` (pit/api/permissions.py) with the permissions each view declares, and
`ensure_table_access` on every object that belongs to a table. Every POST honours Idempotency-Key.
"""

from collections import defaultdict

from django.db.models import OuterRef, Prefetch, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from pit import game
from pit.api import examples
from pit.api import serializers as s
from pit.api.authentication import DevicePrincipal, request_device
from pit.api.errors import error_response, flatten_errors
from pit.api.filters import ViolationFilter
from pit.api.idempotency import idempotent
from pit.api.parsers import MAX_BATCH_COUPS
from pit.api.permissions import READ, WRITE, ensure_table_access
from pit.compliance import services as compliance_services
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.core.collection import collection_paused
from pit.core.errors import Conflict
from pit.core.money import from_minor
from pit.ledger import services as ledger_services
from pit.ledger.models import Reconciliation, ReconciliationSeat
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable
from pit.shoes import services as shoe_services
from pit.shoes.models import Coup, Shoe, ShoeStatus, Wager
from pit.shoes.selectors import wagers_standing
from pit.tables import services as table_services
from pit.tables.models import Table, TableLimit

# Seconds a poller waits: a queued reconciliation is made within seconds, a dealing shoe runs for long.
RECONCILIATION_RETRY_PENDING = 2
RECONCILIATION_RETRY_DEALING = 60
DEVICE_READ = frozenset({READ})
DEVICE_READ_WRITE = frozenset({READ, WRITE})


def actor_for(request) -> Actor:
    if isinstance(request.user, DevicePrincipal):
        return Actor(device=request.user.device)
    return Actor(user=request.user)


def validated(serializer_class, request, **kwargs) -> dict:
    serializer = serializer_class(data=request.data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# ---------------------------------------------------------------------------------------- lookups
def tables_queryset():
    dealing = Shoe.objects.filter(table=OuterRef("pk"), status=ShoeStatus.DEALING).values("pk")[:1]
    return Table.objects.annotate(dealing_shoe_id=Subquery(dealing)).prefetch_related(
        Prefetch("limits", queryset=TableLimit.objects.order_by("bet"))
    )


def table_for(request, code: str, queryset=None) -> Table:
    try:
        table = (queryset if queryset is not None else Table.objects).get(code=code)
    except Table.DoesNotExist:
        raise Http404(f"There is no table {code!r}.") from None
    ensure_table_access(request, table)
    return table


def shoe_for(request, shoe_id: int) -> Shoe:
    try:
        shoe = Shoe.objects.select_related("table", "recorded_by_device__table", "recorded_by_user").get(pk=shoe_id)
    except Shoe.DoesNotExist:
        raise Http404(f"There is no shoe {shoe_id}.") from None
    ensure_table_access(request, shoe.table)
    return shoe


def _wager_data(seat, bet, currency, amount, paid, result, payout, commission) -> dict:
    return {
        "seat": seat,
        "bet": bet,
        "amount": s.money(amount, currency),
        "paid": s.money(paid, currency),
        "result": result,
        "payout": s.money(payout, currency),
        "commission": s.money(commission, currency),
    }


def _coup_data(coup: Coup, wagers: list[dict], recorded: list[tuple[str, str]]) -> dict:
    dealt = game.Coup.from_codes(player=coup.player_cards, banker=coup.banker_cards)
    found = [(v.code, v.message) for v in game.verify_coup(dealt, coup.reported_winner or None)]
    violations = [{"code": code, "message": message} for code, message in dict.fromkeys(found + recorded)]
    return s.coup_data(coup, wagers, violations)


def coup_payload_created(coup: Coup, wagers: list[Wager]) -> dict:
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


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
@authentication_classes([])
@permission_classes([AllowAny])
def api_not_found(request, *args, **kwargs):
    """Any path under /api/v1/ that names no resource."""
    return error_response(404, "not_found", f"There is no API resource at {request.path}.")


# ---------------------------------------------------------------------------------------- tables
@extend_schema(tags=["tables"], summary="Tables: all of them for staff, its own table for a device")
class TableListView(generics.ListAPIView):
    serializer_class = s.TableSerializer
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

    @extend_schema(responses=s.TableSerializer, summary="A table, its limits, paytable and dealing shoe")
    def get(self, request, code: str):
        return Response(s.table_data(table_for(request, code, tables_queryset())))


class _TableStatusView(APIView):
    write_permissions = ("tables.change_table",)
    device_access = DEVICE_READ_WRITE
    service = None

    @idempotent
    def post(self, request, code: str):
        data = validated(s.TableEventInputSerializer, request)
        table = table_for(request, code)
        type(self).service(table=table, actor=actor_for(request), at=data.get("at"))
        return Response(s.table_data(tables_queryset().get(pk=table.pk)))


@extend_schema(
    tags=["tables"],
    request=s.TableEventInputSerializer,
    responses=s.TableSerializer,
    summary="Open the table (a no-op if it is open)",
)
class TableOpenView(_TableStatusView):
    service = staticmethod(table_services.table_open)


@extend_schema(
    tags=["tables"],
    request=s.TableEventInputSerializer,
    responses=s.TableSerializer,
    summary="Close the table (a no-op if it is closed)",
)
class TableCloseView(_TableStatusView):
    service = staticmethod(table_services.table_close)


# ---------------------------------------------------------------------------------------- shoes
@extend_schema(tags=["shoes"])
class ShoeStartView(APIView):
    write_permissions = ("shoes.add_shoe",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=s.ShoeStartSerializer,
        responses={201: s.ShoeSerializer},
        summary="Start a shoe after a shuffle (409 naming the open shoe while another is dealing)",
    )
    @idempotent
    def post(self, request, code: str):
        data = validated(s.ShoeStartSerializer, request)
        table = table_for(request, code)
        shoe = shoe_services.shoe_start(
            table=table,
            decks=data["decks"],
            cut_card_position=data["cut_card_position"],
            burn=data["burn"],
            shuffled_at=data.get("shuffled_at"),
            actor=actor_for(request),
        )
        return Response(s.shoe_data(shoe_for(request, shoe.pk)), status=status.HTTP_201_CREATED)


@extend_schema(tags=["shoes"])
class ShoeDetailView(APIView):
    read_permissions = ("shoes.view_shoe",)
    device_access = DEVICE_READ

    @extend_schema(responses=s.ShoeSerializer, summary="A shoe and its progress to the cut card")
    def get(self, request, shoe_id: int):
        return Response(s.shoe_data(shoe_for(request, shoe_id)))


@extend_schema(tags=["shoes"])
class ShoeCloseView(APIView):
    write_permissions = ("shoes.change_shoe",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=s.ShoeCloseSerializer,
        responses=s.ShoeSerializer,
        summary="Close the shoe at the shuffle with the commission box count per seat (reconciled after)",
    )
    @idempotent
    def post(self, request, shoe_id: int):
        data = validated(s.ShoeCloseSerializer, request)
        shoe = shoe_for(request, shoe_id)
        shoe_services.shoe_close(
            shoe=shoe,
            box_counts=[(line["seat"], line["counted"]) for line in data["commission_box"]],
            closed_at=data.get("closed_at"),
            actor=actor_for(request),
        )
        return Response(s.shoe_data(shoe_for(request, shoe_id)))


@extend_schema(tags=["shoes"])
class ReconciliationView(APIView):
    read_permissions = ("ledger.view_reconciliation",)
    device_access = DEVICE_READ

    @extend_schema(
        responses={
            200: s.ReconciliationSerializer,
            202: OpenApiResponse(
                s.ReconciliationPendingSerializer,
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
        reconciliation = (
            Reconciliation.objects.filter(shoe=shoe)
            .prefetch_related(Prefetch("seats", queryset=ReconciliationSeat.objects.order_by("seat")))
            .first()
        )
        if reconciliation is None:
            dealing = shoe.status == ShoeStatus.DEALING
            body = {
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
            return Response(
                body, status=status.HTTP_202_ACCEPTED, headers={"Retry-After": str(body["retry_after_seconds"])}
            )
        return Response(s.reconciliation_data(reconciliation))


@extend_schema(tags=["ledger"])
class CommissionCollectView(APIView):
    write_permissions = ("ledger.add_commissionentry",)
    device_access = DEVICE_READ_WRITE

    @extend_schema(
        request=s.CollectInputSerializer,
        responses={201: s.CollectionSerializer, 200: s.CollectionSerializer},
        summary="The player at the seat leaves: collect what the seat owes the commission box",
    )
    @idempotent
    def post(self, request, shoe_id: int, seat: int):
        data = validated(s.CollectInputSerializer, request)
        shoe = shoe_for(request, shoe_id)
        entry = ledger_services.commission_collect(
            shoe=shoe, seat=seat, actor=actor_for(request), note=data.get("note", "")
        )
        currency = shoe.table.currency
        body = {
            "shoe": shoe.pk,
            "seat": seat,
            "currency": currency,
            "collected": str(-from_minor(entry.amount_minor, currency) if entry else from_minor(0, currency)),
            "entry": entry.pk if entry else None,
        }
        return Response(body, status=status.HTTP_201_CREATED if entry else status.HTTP_200_OK)


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


@extend_schema(tags=["coups"])
class ShoeCoupsView(APIView):
    read_permissions = ("shoes.view_coup",)
    write_permissions = ("shoes.add_coup",)
    device_access = DEVICE_READ_WRITE
    pagination_class = generics.GenericAPIView.pagination_class

    @extend_schema(
        responses=s.CoupSerializer(many=True),
        summary="The shoe's coups in number order (paginated)",
        parameters=[OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
    )
    def get(self, request, shoe_id: int):
        shoe = shoe_for(request, shoe_id)
        paginator = self.pagination_class()
        queryset = shoe.coups.select_related("recorded_by_device__table", "recorded_by_user").order_by("number")
        page = paginator.paginate_queryset(queryset, request, view=self)
        return paginator.get_paginated_response(coups_payload(page))

    @extend_schema(
        request=s.CoupInputSerializer,
        responses={201: s.CoupSerializer, 200: s.CoupSerializer},
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
        data = validated(s.CoupInputSerializer, request)
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
            raise Http404(f"There is no shoe {shoe_id}.") from None
        except Conflict as exc:
            # Answered, not raised: the violation recorded for the clash must be kept.
            return error_response(409, "conflict", exc.message, exc.errors, exc.details)
        if outcome.status == shoe_services.CoupOutcomeStatus.CREATED:
            # Answered from what was written; the coup holds its writer already.
            return Response(coup_payload_created(outcome.coup, outcome.wagers), status=status.HTTP_201_CREATED)
        (payload,) = coups_payload(_coups_with_recorder([outcome.coup.pk]))  # a replay: read as recorded
        return Response(payload, status=status.HTTP_200_OK)


@extend_schema(tags=["coups"])
class ShoeCoupsBatchView(APIView):
    write_permissions = ("shoes.add_coup",)
    device_access = DEVICE_READ_WRITE
    MAX_COUPS = MAX_BATCH_COUPS

    @extend_schema(
        request=s.CoupBatchInputSerializer,
        responses=s.CoupBatchResultSerializer,
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
        body = request.data
        if not isinstance(body, dict) or set(body) != {"coups"} or not isinstance(body["coups"], list):
            errors = {"coups": ['Send {"coups": [...]} with a list of coups.']}
            if isinstance(body, dict):
                errors.update({name: ["Unknown field."] for name in body if name != "coups"})
            return error_response(400, "invalid", "The request has errors; see `errors`.", errors)
        answer = request.query_params.get("answer", "brief")
        if answer not in ("brief", "full"):
            return error_response(
                400,
                "invalid",
                "The request has errors; see `errors`.",
                {"answer": [f"{answer!r} is not an answer form: brief (the default) or full."]},
            )
        items = body["coups"]
        if not 1 <= len(items) <= self.MAX_COUPS:
            return error_response(
                400,
                "invalid",
                "The request has errors; see `errors`.",
                {"coups": [f"Send 1 to {self.MAX_COUPS} coups in one batch."]},
            )
        shoe = shoe_for(request, shoe_id)
        full = answer == "full"
        results: list[dict] = [{}] * len(items)
        inputs, positions = [], []
        for index, item in enumerate(items):
            try:
                inputs.append(coup_input(s.coup_values(item)))
                positions.append(index)
            except ValidationError as exc:
                number = item.get("number") if isinstance(item, dict) else None
                results[index] = {
                    "index": index,
                    "number": number if isinstance(number, int) and not isinstance(number, bool) else None,
                    "status": "invalid",
                    "id": None,
                    "errors": flatten_errors(exc.detail),
                }
        outcomes = shoe_services.coups_record(shoe=shoe, coups=inputs, actor=actor_for(request)) if inputs else []
        payloads = {}
        if full:
            coup_ids = {outcome.coup.pk for outcome in outcomes if outcome.coup is not None}
            payloads = {p["id"]: p for p in coups_payload(_coups_with_recorder(coup_ids))} if coup_ids else {}
        for index, item, outcome in zip(positions, inputs, outcomes, strict=True):
            results[index] = {
                "index": index,
                "number": item.number,
                "status": outcome.status,
                "id": outcome.coup.pk if outcome.coup is not None else None,
                "errors": {
                    key: list(value) if isinstance(value, list | tuple) else [str(value)]
                    for key, value in outcome.errors.items()
                },
            }
        if full:
            for result in results:
                result["coup"] = payloads.get(result["id"])
        summary = dict.fromkeys(("created", "existing", "conflict", "invalid"), 0)
        for result in results:
            summary[result["status"]] += 1
        return Response({"shoe": shoe.pk, "summary": summary, "results": results})


@extend_schema(tags=["coups"])
class CoupDetailView(APIView):
    read_permissions = ("shoes.view_coup",)
    device_access = DEVICE_READ

    @extend_schema(responses=s.CoupSerializer, summary="A coup with its evaluation, settlement and violations")
    def get(self, request, coup_id: int):
        coup = (
            Coup.objects.select_related("shoe__table", "recorded_by_device__table", "recorded_by_user")
            .filter(pk=coup_id)
            .first()
        )
        if coup is None:
            raise Http404(f"There is no coup {coup_id}.")
        ensure_table_access(request, coup.shoe.table)
        (payload,) = coups_payload([coup])
        return Response(payload)


# ---------------------------------------------------------------------------------------- violations
@extend_schema(
    tags=["violations"], summary="Rule violations, newest first; filter by status, table (code), gaming_day, code"
)
class ViolationListView(generics.ListAPIView):
    serializer_class = s.ViolationSerializer
    filterset_class = ViolationFilter
    read_permissions = ("compliance.view_ruleviolation",)

    def get_queryset(self):
        return RuleViolation.objects.select_related("table", "status_changed_by").order_by("-found_at", "-id")


class _ViolationReviewView(APIView):
    write_permissions = ("compliance.change_ruleviolation",)
    service = None

    @idempotent
    def post(self, request, violation_id: int):
        data = validated(s.ReviewInputSerializer, request)
        violation = get_object_or_404(RuleViolation, pk=violation_id)
        violation = type(self).service(violation=violation, user=request.user, note=data["note"])
        violation = RuleViolation.objects.select_related("table", "status_changed_by").get(pk=violation.pk)
        return Response(s.violation_data(violation))


@extend_schema(
    tags=["violations"],
    request=s.ReviewInputSerializer,
    responses=s.ViolationSerializer,
    summary="A pit boss acknowledges a violation (note required)",
)
class ViolationAcknowledgeView(_ViolationReviewView):
    service = staticmethod(compliance_services.violation_acknowledge)


@extend_schema(
    tags=["violations"],
    request=s.ReviewInputSerializer,
    responses=s.ViolationSerializer,
    summary="A pit boss resolves a violation (note required)",
)
class ViolationResolveView(_ViolationReviewView):
    service = staticmethod(compliance_services.violation_resolve)


# ---------------------------------------------------------------------------------------- paytables
def paytables_for(request):
    queryset = PaytableConfiguration.objects.select_related("superseded_by").order_by("code", "-version")
    device = request_device(request)
    return queryset.filter(pk=device.table.paytable_id) if device else queryset


@extend_schema(tags=["paytables"], summary="Paytable configurations (every version); a device sees its table's")
class PaytableListView(generics.ListAPIView):
    serializer_class = s.PaytableSerializer
    read_permissions = ("paytables.view_paytableconfiguration",)
    device_access = DEVICE_READ

    def get_queryset(self):
        return paytables_for(self.request)


def _decimal_text(value) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


@extend_schema(tags=["paytables"])
class PaytableOddsView(APIView):
    read_permissions = ("paytables.view_paytableconfiguration",)
    device_access = DEVICE_READ

    @extend_schema(
        responses=s.OddsSerializer,
        summary="Exact odds and house edge of every bet, for a full shoe",
        parameters=[OpenApiParameter("decks", OpenApiTypes.INT, description="1 to 12; default 8.")],
    )
    def get(self, request, paytable_id: int):
        raw = request.query_params.get("decks", "8")
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 12:
            return error_response(
                400,
                "invalid",
                "The request has errors; see `errors`.",
                {"decks": ["Give a whole number of decks from 1 to 12."]},
            )
        configuration = paytables_for(request).filter(pk=paytable_id).first()
        if configuration is None:
            if PaytableConfiguration.objects.filter(pk=paytable_id).exists():
                return error_response(403, "permission_denied", "This device may read its table's paytable only.")
            raise Http404(f"There is no paytable configuration {paytable_id}.")
        decks = int(raw)
        odds = game.exact_odds(engine_paytable(configuration.rules), decks)
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
        return Response({"paytable": configuration.pk, "decks": decks, "cards": decks * 52, "bets": bets})
