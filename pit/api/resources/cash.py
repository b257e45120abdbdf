"""The patrons' cash over the API. A cage terminal (a device granted the cage scope) or cage staff
post the cage's cash transactions and the day's exchange rates; a table's own cash at the seat is
posted as a buy-in (the seats' API) and becomes its cash transaction there. Compliance reads the day's
transactions and findings and records the review of a finding.

A transaction is recorded once by its `reference` (the terminal's own number): the same post again
is a 200 with the record, the same reference with other values a 409 naming each difference."""

from decimal import Decimal

from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.accounting.models import DeviceScope
from pit.accounts.roles import PATRON_PERSONAL
from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_WRITE
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.accounting import _ensure_scope
from pit.api.resources.players import card_field
from pit.api.serializers import (
    ChoiceField,
    DayField,
    IdentifierField,
    LookupField,
    MomentField,
    MoneyField,
    StrictSerializer,
    TextField,
    currency_field,
    iso,
    money,
    path_day,
    reference_field,
    validated,
)
from pit.cash import selectors, services
from pit.cash.models import CashFinding, CashKind, CashTransaction, ExchangeRate, FindingStatus
from pit.players.selectors import patron_current
from pit.tables.models import Table


class CashInputSerializer(StrictSerializer):
    reference = reference_field(what="the terminal's transaction number")
    kind = ChoiceField(choices=CashKind.choices)
    at = MomentField(help_text="When, with its UTC offset.")
    currency = currency_field()
    amount = MoneyField(positive=True, help_text='In `currency`, in its units (e.g. "12500.00").')
    location = TextField(max_length=60, help_text='Where: the cage window, e.g. "Cage window 3".')
    table = LookupField(
        queryset=Table.objects.all(),
        slug_field="code",
        pattern=r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}",
        rule="1 to 20 ASCII letters, digits, - or _",
        what="a table code",
        max_length=20,
        required=False,
        allow_null=True,
        help_text="A table's code, for cash taken at a table (a marker paid in cash there).",
    )
    card_number = card_field(required=False, allow_null=True, help_text="The patron's card; null: describe the person.")
    description = TextField(
        max_length=200, required=False, allow_blank=True, help_text="A person not identified: what the cashier sees."
    )


class RateField(IdentifierField):
    """An exchange rate as a decimal string, read as its canonical text ("0.12820" is "0.1282")."""

    def to_internal_value(self, data) -> str:
        return selectors.exact_text(Decimal(super().to_internal_value(data)))


class RateInputSerializer(StrictSerializer):
    day = DayField(help_text="The gaming day whose transactions use the rate.")
    currency = currency_field()
    rate = RateField(
        pattern=r"[0-9]{1,9}(\.[0-9]{1,10})?",
        rule='a decimal string of up to 10 decimals, e.g. "1.0312"',
        what="an exchange rate",
        max_length=20,
        help_text="Units of the reporting currency for one unit of `currency`, exact.",
    )


class FindingReviewInputSerializer(StrictSerializer):
    status = ChoiceField(choices=[(s, s) for s in ("acknowledged", "filed", "dismissed")])
    note = TextField(max_length=2000, help_text="What was done and why.")
    filing_reference = TextField(
        max_length=60, required=False, allow_blank=True, help_text="Filed: the filing's number."
    )
    filed_on = DayField(required=False, allow_null=True, help_text="Filed: the day it was filed.")


class CashTransactionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reference = serializers.CharField()
    kind = serializers.ChoiceField(choices=CashKind.choices)
    direction = serializers.ChoiceField(choices=["in", "out"])
    at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    location = serializers.CharField()
    table = serializers.CharField(allow_null=True)
    card_number = serializers.CharField(allow_null=True)
    description = serializers.CharField()
    currency = serializers.CharField()
    amount = serializers.CharField()
    rate = serializers.CharField(help_text="The rate into the reporting currency used, exact.")
    reporting_currency = serializers.CharField()
    reporting_amount = serializers.CharField(help_text="amount x rate, exact.")
    reverses = serializers.IntegerField(allow_null=True)
    recorded_by = serializers.CharField()


def transaction_data(row: CashTransaction) -> dict:
    return {
        "id": row.pk,
        "reference": row.reference,
        "kind": row.kind,
        "direction": row.direction,
        "at": iso(row.at),
        "gaming_day": row.gaming_day.isoformat(),
        "location": row.location,
        "table": row.table.code if row.table else None,
        "card_number": row.patron.card_number if row.patron else None,
        "description": row.description,
        "currency": row.currency,
        "amount": money(row.amount_minor, row.currency),
        "rate": row.rate,
        "reporting_currency": row.reporting_currency,
        "reporting_amount": selectors.exact_text(row.reporting_amount),
        "reverses": row.reverses_id,
        "recorded_by": row.recorded_by,
    }


def _as_posted(row: CashTransaction) -> dict:
    return {
        "reference": row.reference,
        "kind": row.kind,
        "at": iso(row.at),
        "currency": row.currency,
        "amount": money(row.amount_minor, row.currency),
        "location": row.location,
        "table": row.table.code if row.table else None,
        "card_number": row.patron.card_number if row.patron else None,
        "description": row.description,
    }


def rate_data(rate: ExchangeRate) -> dict:
    return {
        "id": rate.pk,
        "day": rate.day.isoformat(),
        "currency": rate.currency,
        "reporting_currency": rate.reporting_currency,
        "rate": rate.rate,
        "recorded_by": rate.recorded_by,
    }


class RateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    day = serializers.DateField()
    currency = serializers.CharField()
    reporting_currency = serializers.CharField()
    rate = serializers.CharField()
    recorded_by = serializers.CharField()


class FindingSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    gaming_day = serializers.DateField()
    card_number = serializers.CharField(allow_null=True)
    name = serializers.CharField(allow_null=True, help_text="Only for roles that may see personal data; else null.")
    description = serializers.CharField()
    table = serializers.CharField(allow_null=True)
    reporting_currency = serializers.CharField()
    cash_in = serializers.CharField()
    cash_out = serializers.CharField()
    evidence = serializers.JSONField()
    deadline = serializers.DateField(allow_null=True)
    status = serializers.ChoiceField(choices=FindingStatus.choices)
    filing_reference = serializers.CharField()
    filed_on = serializers.DateField(allow_null=True)
    cleared = serializers.BooleanField(help_text="No longer holds (the day's cash changed); kept, never deleted.")


def finding_data(finding: CashFinding, *, personal: bool) -> dict:
    patron = finding.patron
    return {
        "id": finding.pk,
        "kind": finding.kind,
        "gaming_day": finding.gaming_day.isoformat(),
        "card_number": patron.card_number if patron else None,
        "name": patron_current(patron).name if patron and personal else None,
        "description": finding.description,
        "table": finding.table.code if finding.table else None,
        "reporting_currency": finding.reporting_currency,
        "cash_in": finding.cash_in,
        "cash_out": finding.cash_out,
        "evidence": finding.evidence,
        "deadline": finding.deadline.isoformat() if finding.deadline else None,
        "status": finding.status,
        "filing_reference": finding.filing_reference,
        "filed_on": finding.filed_on.isoformat() if finding.filed_on else None,
        "cleared": finding.cleared_at is not None,
    }


def _transactions():
    return CashTransaction.objects.select_related("table", "patron", "recorded_by_user", "recorded_by_device")


@post_kind(PostKind.FACT)
@extend_schema(tags=["cash"])
class CashTransactionView(APIView):
    read_permissions = ("cash.view_cashtransaction",)
    write_permissions = ("cash.record_cashtransaction",)
    device_access = DEVICE_WRITE

    @extend_schema(
        request=CashInputSerializer,
        responses={201: CashTransactionSerializer, 200: CashTransactionSerializer},
        summary="Record a cash transaction (the cage's, or cash at a table not through a seat)",
    )
    @idempotent
    def post(self, request):
        _ensure_scope(request, DeviceScope.CAGE)
        data = validated(CashInputSerializer, request)
        return recorded_once(
            what=f"Cash transaction {data['reference']}",
            serializer_class=CashInputSerializer,
            values=data,
            context={"currency": data["currency"]},
            recorded=None,  # the service reads the reference once, in its transaction
            as_posted=_as_posted,
            create=lambda: services.transaction_record_once(
                cash=services.CashInput(
                    reference=data["reference"],
                    kind=data["kind"],
                    at=data["at"],
                    currency=data["currency"],
                    amount=data["amount"],
                    table=data.get("table"),
                    location=data["location"],
                    patron=data.get("card_number"),
                    description=data.get("description", ""),
                ),
                actor=actor_for(request),
            ),
            answer=transaction_data,
        )


@extend_schema(
    tags=["cash"],
    summary="A gaming day's cash transactions, oldest first",
    responses=CashTransactionSerializer(many=True),
)
class CashDayView(APIView):
    read_permissions = ("cash.view_cashtransaction",)

    def get(self, request, day: str):
        rows = _transactions().filter(gaming_day=path_day(day)).order_by("at", "id")
        return Response({"gaming_day": day, "transactions": [transaction_data(row) for row in rows]})


@post_kind(PostKind.FACT)
@extend_schema(tags=["cash"])
class RateView(APIView):
    write_permissions = ("cash.record_exchangerate",)
    device_access = DEVICE_WRITE

    @extend_schema(
        request=RateInputSerializer,
        responses={201: RateSerializer, 200: RateSerializer},
        summary="Record a day's exchange rate",
    )
    @idempotent
    def post(self, request):
        _ensure_scope(request, DeviceScope.CAGE)
        data = validated(RateInputSerializer, request)
        return recorded_once(
            what=f"The rate of {data['currency']} on {data['day']}",
            serializer_class=RateInputSerializer,
            values=data,
            recorded=ExchangeRate.objects.filter(day=data["day"], currency=data["currency"]).first,
            as_posted=lambda rate: {"day": rate.day.isoformat(), "currency": rate.currency, "rate": rate.rate},
            create=lambda: services.rate_record(
                day=data["day"], currency=data["currency"], rate=data["rate"], actor=actor_for(request)
            ),
            answer=rate_data,
        )


@extend_schema(
    tags=["cash"],
    summary="Open cash findings (CTR worksheets, identifications, SAR candidates)",
    responses=FindingSerializer(many=True),
)
class FindingListView(APIView):
    read_permissions = ("cash.view_cashfinding",)

    def get(self, request):
        personal = request.user.has_perm(PATRON_PERSONAL)
        findings = selectors.findings_open().order_by("deadline", "id")
        return Response({"findings": [finding_data(f, personal=personal) for f in findings]})


@post_kind(PostKind.TRANSITION)
@extend_schema(tags=["cash"])
class FindingReviewView(APIView):
    write_permissions = ("cash.review_cashfinding",)

    @extend_schema(
        request=FindingReviewInputSerializer,
        responses={200: FindingSerializer},
        summary="Acknowledge, file or dismiss a finding",
    )
    @idempotent
    def post(self, request, finding_id: int):
        data = validated(FindingReviewInputSerializer, request)
        finding = CashFinding.objects.filter(pk=finding_id).select_related("patron", "table").first()
        if finding is None:
            raise Http404(gettext("There is no cash finding {finding_id}.").format(finding_id=finding_id))
        reviewed = services.finding_review(
            finding=finding,
            status=data["status"],
            note=data["note"],
            filing_reference=data.get("filing_reference", ""),
            filed_on=data.get("filed_on"),
            actor=actor_for(request),
        )
        return Response(finding_data(reviewed, personal=request.user.has_perm(PATRON_PERSONAL)))
