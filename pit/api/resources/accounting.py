"""Table accounting over the API (under /api/v1/accounting/): chip tray counts, fill and credit
slips, drop counts, and the statutory win of a gaming day. Who may call what: docs/design/api.md."""

from decimal import Decimal

from django.http import Http404
from django.urls import path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.accounting import selectors as accounting_selectors
from pit.accounting import services as accounting_services
from pit.accounting.models import (
    DeviceScope,
    DropCount,
    InventoryCount,
    Slip,
    SlipKind,
    SlipStep,
    SlipStepKind,
)
from pit.api import serializers as s
from pit.api.authentication import actor_for, request_device
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ, DEVICE_WRITE
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.tables import table_for
from pit.api.serializers import validated
from pit.core.money import MoneyError, from_minor, to_minor
from pit.core.percent import percent
from pit.tables.models import Table


def ChipsField(**kwargs) -> s.DenominationsField:  # noqa: N802 (a field, declared as fields are)
    """{"25.00": 40, "100.00": 30}: pieces (whole numbers) per denomination (a decimal string)."""
    kwargs.setdefault("allow_empty", False)
    return s.DenominationsField(max_pieces=accounting_services.MAX_PIECES, **kwargs)


# A slip number as printed on the slip: ASCII letters, digits and -, so that "５" and "5" are not two slips.
SLIP_NUMBER = {"pattern": r"[A-Za-z0-9][A-Za-z0-9-]{0,29}", "rule": "1 to 30 ASCII letters, digits or -, e.g. F-100"}


class InventoryInputSerializer(s.StrictSerializer):
    gaming_day = s.DayField()
    shift = s.IntegerField(min_value=1, max_value=3, default=1)
    kind = s.ChoiceField(choices=["opener", "closer"])
    chips = ChipsField(help_text='Pieces per denomination, e.g. {"25.00": 40, "100.00": 30}.')
    dealer = s.username_field(help_text="The dealer's username (first signer).")
    dealer_password = s.SecretField(
        help_text="The dealer's password, entered by them at this screen (not needed when the dealer is the "
        "authenticated user). Segregation of duties: a signer other than the caller authenticates.",
    )
    pit_boss = s.username_field(help_text="The pit boss's username (second signer).")
    pit_boss_password = s.SecretField(
        help_text="The pit boss's password when the pit boss is not the authenticated user (a device posting).",
    )


class SlipInputSerializer(s.StrictSerializer):
    kind = s.ChoiceField(choices=SlipKind.values)
    number = s.IdentifierField(**SLIP_NUMBER, what=_("a slip number"), max_length=30)
    table = s.table_code_field()
    gaming_day = s.DayField()
    shift = s.IntegerField(min_value=1, max_value=3, default=1)
    reason = s.TextField(max_length=200)
    chips = ChipsField()


class SlipStepInputSerializer(s.StrictSerializer):
    chips = ChipsField()
    signed_by = s.username_field(
        required=False,
        help_text="Username of the person who signed the step (default: the authenticated user). Each step "
        "of a slip is by a different person: 400 naming `signed_by` otherwise.",
    )
    signed_by_password = s.SecretField(
        help_text="The signer's password, entered by them, when the signer is not the authenticated user.",
    )


class DropInputSerializer(s.StrictSerializer):
    gaming_day = s.DayField()
    shift = s.IntegerField(min_value=1, max_value=3, default=1)
    cash = ChipsField(allow_empty=True, help_text='Notes per denomination, e.g. {"100.00": 52}.')
    chips = s.MoneyField(default=Decimal(0), help_text="Chips found in the box; default 0.")
    markers = s.MoneyField(
        default=Decimal(0), help_text="Markers found in the box, if the casino takes them; default 0."
    )


def _minor_chips(chips: dict[Decimal, int], currency: str, field: str) -> dict[str, int]:
    """Pieces per denomination (as the kit's DenominationsField reads them) keyed by minor units."""
    converted: dict[str, int] = {}
    for amount, pieces in chips.items():
        try:
            minor = to_minor(amount, currency)
        except MoneyError:
            raise exceptions.ValidationError(
                {
                    f"{field}.{amount}": [
                        gettext("{amount} is not a denomination in {currency}.").format(
                            amount=amount, currency=currency
                        )
                    ]
                }
            ) from None
        converted[str(minor)] = pieces
    return converted


def _display_chips(chips: dict, currency: str) -> dict[str, int]:
    return {str(from_minor(int(key), currency)): pieces for key, pieces in chips.items()}


def _user(username: str, field: str):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise exceptions.ValidationError(
            {field: [gettext("There is no active user {username!r}.").format(username=username)]}
        )
    return user


def _ensure_scope(request, scope: str) -> None:
    device = request_device(request)
    if device is not None and not accounting_selectors.device_holds(device_id=device.pk, scope=scope):
        raise exceptions.PermissionDenied(
            gettext("This device is not granted the {replace} scope.").format(replace=scope.replace("_", " "))
        )


def _slips():
    return Slip.objects.select_related("table").prefetch_related(
        "steps__signed_by", "steps__recorded_by_user", "steps__recorded_by_device__table"
    )


def _slip_for(request, kind: str, number: str, *, own_table: bool) -> Slip:
    slip = Slip.objects.select_related("table").filter(kind=kind, number=number).first()
    if slip is None:
        raise Http404(gettext("There is no {kind} slip {number!r}.").format(kind=kind, number=number))
    if own_table:
        table_for(request, slip.table.code)
    return slip


def inventory_data(count) -> dict:
    return {
        "id": count.pk,
        "table": count.table.code,
        "gaming_day": count.gaming_day.isoformat(),
        "shift": count.shift,
        "kind": count.kind,
        "currency": count.currency,
        "chips": _display_chips(count.chips, count.currency),
        "total": s.money(count.total_minor, count.currency),
        "dealer": count.dealer.username,
        "pit_boss": count.pit_boss.username,
    }


def slip_data(slip) -> dict:
    steps = {step.step: step for step in slip.steps.all()}
    return {
        "id": slip.pk,
        "kind": slip.kind,
        "number": slip.number,
        "table": slip.table.code,
        "gaming_day": slip.gaming_day.isoformat(),
        "shift": slip.shift,
        "currency": slip.currency,
        "reason": slip.reason,
        "chips": _display_chips(slip.chips, slip.currency),
        "total": s.money(slip.total_minor, slip.currency),
        "requested_by": s.recorded_by(slip),
        "steps": [
            {
                "step": name,
                "chips": _display_chips(step.chips, slip.currency),
                "total": s.money(step.total_minor, slip.currency),
                "recorded_by": s.recorded_by(step),
                "signed_by": step.signed_by.username if step.signed_by_id else None,
            }
            for name, step in steps.items()
        ],
    }


def drop_data(drop) -> dict:
    return {
        "id": drop.pk,
        "table": drop.table.code,
        "gaming_day": drop.gaming_day.isoformat(),
        "shift": drop.shift,
        "currency": drop.currency,
        "cash": _display_chips(drop.cash, drop.currency),
        "cash_total": s.money(drop.cash_minor, drop.currency),
        "chips": s.money(drop.chips_minor, drop.currency),
        "markers": s.money(drop.markers_minor, drop.currency),
        "total": s.money(drop.total_minor, drop.currency),
    }


def day_win_data(day: str, figures: dict, codes: dict[int, str], *, by_shift: bool) -> dict:
    """The statutory win of each table (or table and shift) of a gaming day, by table code."""
    rows = []
    for (_day, table_id, shift), item in sorted(figures.items(), key=lambda entry: (codes[entry[0][1]], entry[0][2])):
        money = {
            name: s.money(getattr(item, name), item.currency)
            for name in ("opener", "closer", "fills", "credits", "drop", "win")
        }
        hold = accounting_selectors.win_to_drop(item.win, item.drop)
        rows.append(
            {
                "table": codes[table_id],
                **({"shift": shift} if by_shift else {}),
                "currency": item.currency,
                "complete": item.complete,
                **money,
                "win_to_drop": None if hold is None else str(percent(hold)),
            }
        )
    return {"gaming_day": day, "tables": rows}


_OBJECT = {"type": "object"}


@post_kind(PostKind.FACT)
@extend_schema(tags=["accounting"])
class InventoryView(APIView):
    write_permissions = ("accounting.record_inventorycount",)
    device_access = DEVICE_WRITE

    @extend_schema(
        request=InventoryInputSerializer,
        responses={201: _OBJECT, 200: _OBJECT},
        summary="Record the table's opener or closer (chips by denomination, two signers)",
    )
    @idempotent
    def post(self, request, code: str):
        table = table_for(request, code)
        data = validated(InventoryInputSerializer, request, currency=table.currency)
        return recorded_once(
            what=f"The {data['kind']} of {table.code} for {data['gaming_day']} shift {data['shift']}",
            serializer_class=InventoryInputSerializer,
            values=data,
            context={"currency": table.currency},
            recorded=InventoryCount.objects.select_related("table", "dealer", "pit_boss")
            .filter(table=table, gaming_day=data["gaming_day"], shift=data["shift"], kind=data["kind"])
            .first,
            as_posted=inventory_data,
            create=lambda: accounting_services.inventory_record(
                table=table,
                gaming_day=data["gaming_day"],
                shift=data["shift"],
                kind=data["kind"],
                chips=_minor_chips(data["chips"], table.currency, "chips"),
                dealer=_user(data["dealer"], "dealer"),
                pit_boss=_user(data["pit_boss"], "pit_boss"),
                actor=actor_for(request),
                secrets={name: data.get(f"{name}_password", "") for name in ("dealer", "pit_boss")},
            ),
            answer=inventory_data,
        )


@post_kind(PostKind.FACT)
@extend_schema(tags=["accounting"])
class SlipRequestView(APIView):
    write_permissions = ("accounting.request_slip",)
    device_access = DEVICE_WRITE

    @extend_schema(
        request=SlipInputSerializer, responses={201: _OBJECT, 200: _OBJECT}, summary="Request a fill or credit"
    )
    @idempotent
    def post(self, request):
        data = validated(SlipInputSerializer, request)
        table = table_for(request, data["table"])
        return recorded_once(
            what=f"{data['kind'].capitalize()} slip {data['number']}",
            serializer_class=SlipInputSerializer,
            values=data,
            context={"currency": table.currency},
            recorded=_slips().filter(kind=data["kind"], number=data["number"]).first,
            as_posted=slip_data,
            create=lambda: accounting_services.slip_request(
                kind=data["kind"],
                number=data["number"],
                table=table,
                gaming_day=data["gaming_day"],
                shift=data["shift"],
                reason=data["reason"],
                chips=_minor_chips(data["chips"], table.currency, "chips"),
                actor=actor_for(request),
            ),
            answer=slip_data,
        )


@post_kind(PostKind.FACT)
class _SlipStepView(APIView):
    device_access = DEVICE_WRITE
    step = ""

    @idempotent
    def post(self, request, kind: str, number: str):
        cage = self.step == "issue"
        if cage:
            _ensure_scope(request, DeviceScope.CAGE)
        slip = _slip_for(request, kind, number, own_table=not cage)
        data = validated(SlipStepInputSerializer, request, currency=slip.currency)
        signer = _user(data["signed_by"], "signed_by") if data.get("signed_by") else None
        service = accounting_services.slip_issue if cage else accounting_services.slip_receive
        step = SlipStepKind.ISSUED if cage else SlipStepKind.RECEIVED

        def as_posted(recorded: SlipStep) -> dict:
            signed_by = recorded.signed_by.username if recorded.signed_by is not None else None
            return {"chips": _display_chips(recorded.chips, slip.currency), "signed_by": signed_by}

        return recorded_once(
            what=f"The {step} step of {slip}",
            serializer_class=SlipStepInputSerializer,
            values=data,
            context={"currency": slip.currency},
            recorded=SlipStep.objects.select_related("signed_by").filter(slip=slip, step=step).first,
            as_posted=as_posted,
            create=lambda: service(
                slip=slip,
                chips=_minor_chips(data["chips"], slip.currency, "chips"),
                actor=actor_for(request),
                signed_by=signer or (None if request_device(request) else request.user),
                secrets={"signed_by": data.get("signed_by_password", "")},
            ),
            answer=lambda _step: slip_data(_slips().get(pk=slip.pk)),
        )


@extend_schema(
    tags=["accounting"],
    request=SlipStepInputSerializer,
    responses={201: _OBJECT, 200: _OBJECT},
    summary="The cage issues the slip's chips (cage devices and the cage role)",
)
class SlipIssueView(_SlipStepView):
    write_permissions = ("accounting.issue_slip",)
    step = "issue"


@extend_schema(
    tags=["accounting"],
    request=SlipStepInputSerializer,
    responses={201: _OBJECT, 200: _OBJECT},
    summary="The table signs for the slip's chips (409 before the cage issued them)",
)
class SlipReceiveView(_SlipStepView):
    write_permissions = ("accounting.receive_slip",)
    step = "receive"


@extend_schema(tags=["accounting"])
class SlipListView(APIView):
    read_permissions = ("accounting.view_slip",)
    device_access = DEVICE_READ

    @extend_schema(responses={200: _OBJECT}, summary="The slips of a gaming day (cage devices: every table)")
    def get(self, request, day: str):
        _ensure_scope(request, DeviceScope.CAGE)
        gaming_day = s.path_day(day)
        slips = (
            Slip.objects.filter(gaming_day=gaming_day)
            .select_related("table")
            .prefetch_related("steps__signed_by", "steps__recorded_by_user", "steps__recorded_by_device__table")
        )
        return Response({"gaming_day": day, "slips": [slip_data(slip) for slip in slips]})


@post_kind(PostKind.FACT)
@extend_schema(tags=["accounting"])
class DropView(APIView):
    write_permissions = ("accounting.record_dropcount",)
    device_access = DEVICE_WRITE

    @extend_schema(
        request=DropInputSerializer,
        responses={201: _OBJECT, 200: _OBJECT},
        summary="Post the soft count of the table's drop box (count-room devices and accountants)",
    )
    @idempotent
    def post(self, request, code: str):
        _ensure_scope(request, DeviceScope.COUNT_ROOM)
        table = Table.objects.filter(code=code).first()
        if table is None:
            raise Http404(gettext("There is no table {code!r}.").format(code=code))
        data = validated(DropInputSerializer, request, currency=table.currency)
        amounts = {}
        for field in ("chips", "markers"):
            try:
                amounts[field] = to_minor(data[field], table.currency)
            except MoneyError as error:
                raise exceptions.ValidationError({field: [str(error)]}) from None
        return recorded_once(
            what=f"The drop of {table.code} for {data['gaming_day']} shift {data['shift']}",
            serializer_class=DropInputSerializer,
            values=data,
            context={"currency": table.currency},
            recorded=DropCount.objects.select_related("table")
            .filter(table=table, gaming_day=data["gaming_day"], shift=data["shift"])
            .first,
            as_posted=drop_data,
            create=lambda: accounting_services.drop_record(
                table=table,
                gaming_day=data["gaming_day"],
                shift=data["shift"],
                cash=_minor_chips(data["cash"], table.currency, "cash"),
                chips_minor=amounts["chips"],
                markers_minor=amounts["markers"],
                actor=actor_for(request),
            ),
            answer=drop_data,
        )


@extend_schema(tags=["accounting"])
class DayWinView(APIView):
    read_permissions = ("accounting.view_inventorycount",)

    @extend_schema(
        parameters=[OpenApiParameter("by_shift", OpenApiTypes.BOOL, description="One row per table and shift.")],
        responses={200: _OBJECT},
        summary="Statutory win per table (or shift) for a gaming day: drop + closer + credits - opener - fills",
    )
    def get(self, request, day: str):
        gaming_day = s.path_day(day)
        by_shift = s.query_flag(request.query_params, "by_shift")
        figures = accounting_selectors.period_figures(date_from=gaming_day, date_to=gaming_day, by_shift=by_shift)
        codes = dict(Table.objects.filter(pk__in={key[1] for key in figures}).values_list("pk", "code"))
        return Response(day_win_data(day, figures, codes, by_shift=by_shift))


urlpatterns = [
    path("tables/<slug:code>/inventory/", InventoryView.as_view(), name="inventory"),
    path("tables/<slug:code>/drop/", DropView.as_view(), name="drop"),
    path("slips/", SlipRequestView.as_view(), name="slip-request"),
    path("slips/<str:kind>/<str:number>/issue/", SlipIssueView.as_view(), name="slip-issue"),
    path("slips/<str:kind>/<str:number>/receive/", SlipReceiveView.as_view(), name="slip-receive"),
    path("days/<str:day>/slips/", SlipListView.as_view(), name="day-slips"),
    path("days/<str:day>/win/", DayWinView.as_view(), name="day-win"),
]
