"""Players over the API. Floor systems (a device for its own table: the card reader at the seat, the
table terminal) post who sits down, breaks, returns and stands up, identifications of unrated
players, buy-ins and chips walked; staff look a patron up by card number (personal data only with
`players.view_patron_personal`; every lookup is recorded as a look) and read the patron's sessions.

Every POST names the seat in its body and is recorded once (pit.api.replays): the same post again
is a 200 with the record, the same fact (the seat's event at that moment) with other values a 409
naming each difference."""

from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError as RequestError
from rest_framework.response import Response
from rest_framework.views import APIView

from pit.accounts.roles import PATRON_PERSONAL
from pit.api.authentication import actor_for
from pit.api.idempotency import idempotent
from pit.api.permissions import DEVICE_READ, DEVICE_READ_WRITE
from pit.api.replays import PostKind, post_kind, recorded_once
from pit.api.resources.tables import table_for
from pit.api.serializers import (
    ChoiceField,
    IntegerField,
    LookupField,
    MomentField,
    MoneyField,
    StrictSerializer,
    TextField,
    iso,
    money,
    validated,
)
from pit.core.errors import Conflict
from pit.players import selectors
from pit.players.models import (
    BuyIn,
    BuyInKind,
    ChipsWalked,
    Patron,
    SeatSession,
    SessionEvent,
    SessionEventKind,
    SessionIdentification,
    WalkKind,
)
from pit.players.services import (
    buy_in_record,
    patron_look_record,
    session_identify,
    session_pause,
    session_resume,
    session_sit,
    session_stand,
    walk_record,
)

RECORD = ("players.record_seatsession",)
SESSIONS_LISTED = 200
CARD_PATTERN = r"[A-Za-z0-9][A-Za-z0-9-]{0,31}"
CARD_RULE = "1 to 32 ASCII letters, digits or -, e.g. 100234"


def card_field(**kwargs) -> LookupField:
    return LookupField(
        queryset=Patron.objects.all(),
        slug_field="card_number",
        pattern=CARD_PATTERN,
        rule=CARD_RULE,
        what="a player-club card number",
        max_length=32,
        **kwargs,
    )


def seat_field() -> IntegerField:
    return IntegerField(min_value=1, max_value=99, help_text="The seat number at the table, e.g. 3.")


# ------------------------------------------------------------------------------------------- inputs
class SitInputSerializer(StrictSerializer):
    seat = seat_field()
    at = MomentField(help_text="When the player sat down, with its UTC offset.")
    card_number = card_field(
        required=False, allow_null=True, help_text="The patron's card (swiped at the seat); null: an unrated player."
    )
    description = TextField(
        max_length=200, required=False, allow_blank=True, help_text="An unrated player: what the pit sees."
    )


class SeatEventInputSerializer(StrictSerializer):
    seat = seat_field()
    at = MomentField(help_text="When, with its UTC offset.")


class StandInputSerializer(StrictSerializer):
    seat = seat_field()
    at = MomentField(help_text="When the player stood up, with its UTC offset.")
    chips_walked = MoneyField(required=False, allow_null=True, help_text="Chips the player took away, if known.")
    how = ChoiceField(choices=WalkKind.choices, required=False, help_text="Counted (default) or estimated.")


class IdentifyInputSerializer(StrictSerializer):
    seat = seat_field()
    card_number = card_field(help_text="The card of the patron the unrated player turned out to be.")
    reason = TextField(max_length=200, help_text="How the player was identified (kept with the record).")


class BuyInInputSerializer(StrictSerializer):
    seat = seat_field()
    kind = ChoiceField(choices=BuyInKind.choices)
    amount = MoneyField(positive=True, help_text="In the table's currency.")
    at = MomentField(help_text="When, with its UTC offset.")


class WalkInputSerializer(StrictSerializer):
    seat = seat_field()
    how = ChoiceField(choices=WalkKind.choices)
    amount = MoneyField(help_text="In the table's currency.")
    at = MomentField(help_text="When the chips left the seat, with its UTC offset.")


# ------------------------------------------------------------------------------------------ outputs
class SeatSessionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table = serializers.CharField()
    seat = serializers.IntegerField()
    card_number = serializers.CharField(allow_null=True, help_text="The patron's card; null while unrated.")
    description = serializers.CharField()
    started_at = serializers.DateTimeField()
    gaming_day = serializers.DateField()
    recorded_by = serializers.CharField()


def session_data(session: SeatSession) -> dict:
    patron = selectors.session_patron(session)
    return {
        "id": session.pk,
        "table": session.table.code,
        "seat": session.seat,
        "card_number": patron.card_number if patron else None,
        "description": session.description,
        "started_at": iso(session.started_at),
        "gaming_day": session.gaming_day.isoformat(),
        "recorded_by": session.recorded_by,
    }


class SessionHistorySerializer(SeatSessionSerializer):
    state = serializers.ChoiceField(choices=["playing", "paused", "stood"])
    ended_at = serializers.DateTimeField(allow_null=True)


class SessionEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField()
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=SessionEventKind.choices)
    at = serializers.DateTimeField()
    chips_walked = serializers.CharField(allow_null=True, help_text="At a stand-up: the chips taken away, if known.")
    recorded_by = serializers.CharField()


def _walk_at_stand(event: SessionEvent) -> ChipsWalked | None:
    if event.kind != SessionEventKind.STAND:
        return None
    return ChipsWalked.objects.filter(session_id=event.session_id, at=event.at, reverses__isnull=True).first()


def event_data(event: SessionEvent) -> dict:
    walk = _walk_at_stand(event)
    return {
        "id": event.pk,
        "session": event.session_id,
        "seat": event.session.seat,
        "kind": event.kind,
        "at": iso(event.at),
        "chips_walked": money(walk.amount_minor, walk.currency) if walk else None,
        "recorded_by": event.recorded_by,
    }


class IdentificationSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    seat = serializers.IntegerField()
    card_number = serializers.CharField()
    reason = serializers.CharField()
    recorded_at = serializers.DateTimeField()
    recorded_by = serializers.CharField()


def identification_data(identification: SessionIdentification) -> dict:
    return {
        "session": identification.session_id,
        "seat": identification.session.seat,
        "card_number": identification.patron.card_number,
        "reason": identification.reason,
        "recorded_at": iso(identification.recorded_at),
        "recorded_by": identification.recorded_by,
    }


class SeatMoneySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField()
    seat = serializers.IntegerField()
    kind = serializers.CharField(help_text="A buy-in's kind (cash, chips, marker) or how chips walked were known.")
    amount = serializers.CharField()
    currency = serializers.CharField()
    at = serializers.DateTimeField()
    recorded_by = serializers.CharField()


def money_data(row) -> dict:
    return {
        "id": row.pk,
        "session": row.session_id,
        "seat": row.session.seat,
        "kind": row.kind if isinstance(row, BuyIn) else row.how,
        "amount": money(row.amount_minor, row.currency),
        "currency": row.currency,
        "at": iso(row.at),
        "recorded_by": row.recorded_by,
    }


class PatronLookupSerializer(serializers.Serializer):
    card_number = serializers.CharField()
    name = serializers.CharField(allow_null=True, help_text="Only for roles that may see personal data; else null.")
    nationality = serializers.CharField(allow_null=True, help_text="As name.")
    tier = serializers.CharField()
    status = serializers.ChoiceField(choices=["active", "suspended", "closed"])
    excluded = serializers.BooleanField(help_text="Under an exclusion in force now.")
    seated = serializers.ListField(child=serializers.CharField(), help_text="Where the patron sits now: TABLE/seat.")


# ------------------------------------------------------------------------------------------- helpers
def _seated(table, seat: int) -> SeatSession:
    session = selectors.seated_now(table).get(seat)
    if session is None:
        raise Conflict(
            gettext("Nobody is seated at seat {seat} of table {table}.").format(seat=seat, table=table.code),
            errors={"seat": [gettext("Seat {seat} has no session open.").format(seat=seat)]},
        )
    return session


def _seat_checked(table, data) -> None:
    if data["seat"] not in table.seats:
        raise RequestError({"seat": [f"{data['seat']} is not a seat at table {table.code}."]})


class _SeatView(APIView):
    write_permissions = RECORD
    device_access = DEVICE_READ_WRITE


# -------------------------------------------------------------------------------------------- views
@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class SitView(_SeatView):
    @extend_schema(
        request=SitInputSerializer,
        responses={201: SeatSessionSerializer, 200: SeatSessionSerializer},
        summary="A player sits down at a seat (201; 200 for a replay; 409 while the seat is held)",
    )
    @idempotent
    def post(self, request, code: str):
        table = table_for(request, code)
        data = validated(SitInputSerializer, request)
        _seat_checked(table, data)
        return recorded_once(
            what=f"The sit-down at {table.code} seat {data['seat']} at {data['at'].isoformat()}",
            serializer_class=SitInputSerializer,
            values=data,
            recorded=SeatSession.objects.select_related("table", "patron")
            .filter(table=table, seat=data["seat"], started_at=data["at"])
            .first,
            as_posted=lambda session: {
                "seat": session.seat,
                "at": iso(session.started_at),
                "card_number": session.patron.card_number if session.patron_id else None,
                "description": session.description,
            },
            create=lambda: session_sit(
                table=table,
                seat=data["seat"],
                at=data["at"],
                patron=data.get("card_number"),
                description=data.get("description", ""),
                actor=actor_for(request),
            ),
            answer=session_data,
        )


def _event_post(request, code: str, kind: str, service):
    table = table_for(request, code)
    data = validated(SeatEventInputSerializer, request)
    _seat_checked(table, data)
    return recorded_once(
        what=f"The {kind} at {table.code} seat {data['seat']} at {data['at'].isoformat()}",
        serializer_class=SeatEventInputSerializer,
        values=data,
        recorded=SessionEvent.objects.select_related("session")
        .filter(session__table=table, session__seat=data["seat"], kind=kind, at=data["at"])
        .first,
        as_posted=lambda event: {"seat": event.session.seat, "at": iso(event.at)},
        create=lambda: service(session=_seated(table, data["seat"]), at=data["at"], actor=actor_for(request)),
        answer=event_data,
    )


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class PauseView(_SeatView):
    @extend_schema(
        request=SeatEventInputSerializer,
        responses={201: SessionEventSerializer, 200: SessionEventSerializer},
        summary="The player at a seat takes a break and keeps the seat (201; 200 for a replay)",
    )
    @idempotent
    def post(self, request, code: str):
        return _event_post(request, code, SessionEventKind.PAUSE, session_pause)


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class ResumeView(_SeatView):
    @extend_schema(
        request=SeatEventInputSerializer,
        responses={201: SessionEventSerializer, 200: SessionEventSerializer},
        summary="The player at a seat is back from a break (201; 200 for a replay)",
    )
    @idempotent
    def post(self, request, code: str):
        return _event_post(request, code, SessionEventKind.RESUME, session_resume)


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class StandView(_SeatView):
    @extend_schema(
        request=StandInputSerializer,
        responses={201: SessionEventSerializer, 200: SessionEventSerializer},
        summary="The player at a seat stands up, with the chips walked if known (201; 200 for a replay)",
    )
    @idempotent
    def post(self, request, code: str):
        table = table_for(request, code)
        data = validated(StandInputSerializer, request, currency=table.currency)
        _seat_checked(table, data)

        def as_posted(event):
            walk = _walk_at_stand(event)
            return {
                "seat": event.session.seat,
                "at": iso(event.at),
                "chips_walked": money(walk.amount_minor, walk.currency) if walk else None,
                "how": walk.how if walk else WalkKind.COUNTED,
            }

        return recorded_once(
            what=f"The stand-up at {table.code} seat {data['seat']} at {data['at'].isoformat()}",
            serializer_class=StandInputSerializer,
            values=data,
            recorded=SessionEvent.objects.select_related("session")
            .filter(session__table=table, session__seat=data["seat"], kind=SessionEventKind.STAND, at=data["at"])
            .first,
            as_posted=as_posted,
            create=lambda: session_stand(
                session=_seated(table, data["seat"]),
                at=data["at"],
                chips_walked=data.get("chips_walked"),
                how=data.get("how", WalkKind.COUNTED),
                actor=actor_for(request),
            ),
            answer=event_data,
            context={"currency": table.currency},
        )


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class IdentifyView(_SeatView):
    @extend_schema(
        request=IdentifyInputSerializer,
        responses={201: IdentificationSerializer, 200: IdentificationSerializer},
        summary="The unrated player seated at a seat is a patron (201; 200 for a replay; 409 if identified)",
    )
    @idempotent
    def post(self, request, code: str):
        table = table_for(request, code)
        data = validated(IdentifyInputSerializer, request)
        _seat_checked(table, data)
        session = _seated(table, data["seat"])
        return recorded_once(
            what=f"The identification of session {session.pk} ({table.code} seat {data['seat']})",
            serializer_class=IdentifyInputSerializer,
            values=data,
            recorded=SessionIdentification.objects.select_related("session", "patron").filter(session=session).first,
            as_posted=lambda identification: {
                "seat": identification.session.seat,
                "card_number": identification.patron.card_number,
                "reason": identification.reason,
            },
            create=lambda: session_identify(
                session=session, patron=data["card_number"], reason=data["reason"], actor=actor_for(request)
            ),
            answer=identification_data,
        )


def _money_post(request, code: str, *, model, serializer_class, kind_field: str, service):
    table = table_for(request, code)
    data = validated(serializer_class, request, currency=table.currency)
    _seat_checked(table, data)
    return recorded_once(
        what=f"The {model._meta.verbose_name} at {table.code} seat {data['seat']} at {data['at'].isoformat()}",
        serializer_class=serializer_class,
        values=data,
        recorded=model.objects.select_related("session")
        .filter(session__table=table, session__seat=data["seat"], at=data["at"], reverses__isnull=True)
        .order_by("pk")
        .first,
        as_posted=lambda row: {
            "seat": row.session.seat,
            kind_field: getattr(row, kind_field),
            "amount": money(row.amount_minor, row.currency),
            "at": iso(row.at),
        },
        create=lambda: service(
            session=_seated(table, data["seat"]),
            amount=data["amount"],
            currency=table.currency,
            at=data["at"],
            actor=actor_for(request),
            **{kind_field: data[kind_field]},
        ),
        answer=money_data,
        context={"currency": table.currency},
    )


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class BuyInView(_SeatView):
    @extend_schema(
        request=BuyInInputSerializer,
        responses={201: SeatMoneySerializer, 200: SeatMoneySerializer},
        summary="Cash, chips or a marker brought to a seat, in the table's currency (201; 200 for a replay)",
    )
    @idempotent
    def post(self, request, code: str):
        return _money_post(
            request, code, model=BuyIn, serializer_class=BuyInInputSerializer, kind_field="kind", service=buy_in_record
        )


@post_kind(PostKind.FACT)
@extend_schema(tags=["players"])
class WalkView(_SeatView):
    @extend_schema(
        request=WalkInputSerializer,
        responses={201: SeatMoneySerializer, 200: SeatMoneySerializer},
        summary="Chips a player took away from a seat, counted or estimated (201; 200 for a replay)",
    )
    @idempotent
    def post(self, request, code: str):
        return _money_post(
            request,
            code,
            model=ChipsWalked,
            serializer_class=WalkInputSerializer,
            kind_field="how",
            service=walk_record,
        )


@extend_schema(tags=["players"])
class SeatedView(APIView):
    read_permissions = ("players.view_seatsession",)
    device_access = DEVICE_READ

    @extend_schema(responses={200: SeatSessionSerializer(many=True)}, summary="Who sits at the table now, seat by seat")
    def get(self, request, code: str):
        table = table_for(request, code)
        seated = selectors.seated_now(table)
        return Response([session_data(seated[seat]) for seat in sorted(seated)])


def patron_or_404(card_number: str) -> Patron:
    patron = selectors.patron_by_card(card_number)
    if patron is None:
        raise Http404(gettext("There is no patron with card {card}.").format(card=repr(card_number)))
    return patron


@extend_schema(tags=["players"])
class PatronLookupView(APIView):
    read_permissions = ("players.view_patron",)

    @extend_schema(
        responses={200: PatronLookupSerializer},
        summary="A patron by card number (name and nationality only with the permission to see them)",
        description="Every lookup is recorded as a look at the patron (who, when, whether personal data was shown).",
    )
    def get(self, request, card_number: str):
        patron = patron_or_404(card_number)
        personal = request.user.has_perm(PATRON_PERSONAL)
        patron_look_record(patron=patron, user=request.user, where="api patron lookup", personal=personal)
        current = selectors.patron_current(patron)
        seated = (
            selectors.sessions_of_patron(patron)
            .filter(pk__in=selectors.open_sessions().values("pk"))
            .select_related("table")
            .order_by("started_at")
        )
        return Response(
            {
                "card_number": patron.card_number,
                "name": current.name if personal else None,
                "nationality": current.nationality if personal else None,
                "tier": current.tier.code,
                "status": current.status,
                "excluded": selectors.patron_excluded_at(patron, timezone.now()) is not None,
                "seated": [f"{session.table.code}/{session.seat}" for session in seated],
            }
        )


@extend_schema(tags=["players"])
class PatronSessionsView(APIView):
    read_permissions = ("players.view_seatsession",)

    @extend_schema(
        responses={200: SessionHistorySerializer(many=True)},
        summary=f"A patron's sessions, newest first (the latest {SESSIONS_LISTED})",
    )
    def get(self, request, card_number: str):
        patron = patron_or_404(card_number)
        sessions = (
            selectors.sessions_of_patron(patron)
            .select_related("table", "patron")
            .order_by("-started_at")[:SESSIONS_LISTED]
        )
        answer = []
        for session in sessions:
            ended = selectors.session_ended_at(session)
            answer.append({**session_data(session), "state": selectors.session_state(session), "ended_at": iso(ended)})
        return Response(answer)
