"""Writes: patrons and their versions, exclusions and their lifts, seat sessions (sit, pause,
resume, stand, identify), buy-ins and chips walked, and their reversals. Every row is a fact.

One seat holds one session at a time: every write to a table's sessions locks the table's row
first (PostgreSQL: SELECT ... FOR UPDATE; SQLite: the write lock every transaction takes at BEGIN),
so two sit-downs at one seat are one after the other and the second sees the first. A sit-down or
an identification of a patron also locks the patron's row, so two sit-downs of one card at two
tables see each other (`patron_at_two_tables`)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.derived import derived_follow
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_for
from pit.core.money import MoneyError, to_minor
from pit.players import selectors
from pit.players.models import (
    BuyIn,
    BuyInKind,
    ChipsWalked,
    Exclusion,
    ExclusionKind,
    Patron,
    PatronLook,
    PatronStatus,
    PatronVersion,
    SeatSession,
    SessionEvent,
    SessionEventKind,
    SessionIdentification,
    Tier,
    WalkKind,
)
from pit.tables.models import Table

EXCLUDED = "excluded_patron_seated"
TWO_TABLES = "patron_at_two_tables"
FOUND_BY = "players"
CARD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,31}")
NATIONALITY = re.compile(r"[A-Z]{2}")
FUTURE = dt.timedelta(minutes=5)
MAX_TEXT = 200


# ------------------------------------------------------------------------------------------- checks
def _moment(value, field: str) -> dt.datetime:
    if not isinstance(value, dt.datetime):
        raise ValidationError({field: gettext("Give a date and time.")})
    if timezone.is_naive(value):
        raise ValidationError({field: gettext("Give the time with its UTC offset, e.g. 2026-03-01T14:00:00+01:00.")})
    if value > timezone.now() + FUTURE:
        raise ValidationError({field: gettext("%(moment)s is in the future.") % {"moment": value.isoformat()}})
    return value


def _text(value, field: str, *, required: bool) -> str:
    text = (value or "").strip()
    if required and not text:
        raise ValidationError({field: gettext("Say why: it is kept with the record.")})
    if len(text) > MAX_TEXT:
        raise ValidationError({field: gettext("Keep it to %(most)d characters.") % {"most": MAX_TEXT}})
    return text


def _amount_minor(amount, currency: str, table: Table, *, field: str, positive: bool) -> int:
    if currency != table.currency:
        raise ValidationError(
            {
                "currency": gettext("Table %(table)s plays in %(currency)s, not %(given)s.")
                % {"table": table.code, "currency": table.currency, "given": currency}
            }
        )
    if not isinstance(amount, Decimal):
        raise ValidationError({field: gettext("Give the amount as a decimal number in the currency's units.")})
    try:
        minor = to_minor(amount, currency)
    except MoneyError as error:
        raise ValidationError({field: str(error)}) from None
    if minor < 0 or (positive and minor == 0):
        raise ValidationError({field: gettext("Give an amount above zero.") if positive else gettext("No negatives.")})
    return minor


def _one_of(values) -> str:
    return gettext("Give one of: %(values)s.") % {"values": ", ".join(values)}


def _details(*, name: str, tier, nationality: str, status: str) -> dict:
    errors = {}
    name = (name or "").strip()
    if not name:
        errors["name"] = gettext("Give the patron's name.")
    elif len(name) > 120:
        errors["name"] = gettext("Keep the name to 120 characters.")
    if not isinstance(tier, Tier):
        errors["tier"] = gettext("Give one of the tiers.")
    nationality = (nationality or "").strip().upper()
    if not NATIONALITY.fullmatch(nationality):
        errors["nationality"] = gettext("Give the ISO 3166-1 two-letter country code, e.g. MO, CN, HK.")
    if status not in PatronStatus.values:
        errors["status"] = _one_of(PatronStatus.values)
    if errors:
        raise ValidationError(errors)
    return {"name": name, "tier": tier, "nationality": nationality, "status": status}


def _table_locked(table_id: int) -> Table:
    return Table.objects.select_for_update().get(pk=table_id)


def _patron_locked(patron: Patron) -> Patron:
    return Patron.objects.select_for_update().get(pk=patron.pk)


def _session_locked(session: SeatSession) -> SeatSession:
    table = _table_locked(session.table_id)
    session = SeatSession.objects.select_related("patron").get(pk=session.pk)
    session.table = table
    return session


def _last_event(session: SeatSession) -> SessionEvent | None:
    return SessionEvent.objects.filter(session=session).order_by("-at", "-id").first()


# ------------------------------------------------------------------------------------------ patrons
@transaction.atomic
def patron_enrol(
    *, card_number: str, name: str, tier: Tier, nationality: str, status: str = PatronStatus.ACTIVE, actor=SYSTEM
) -> Patron:
    """A new patron with the card number, and the first version of the patron's details."""
    card_number = (card_number or "").strip()
    if not CARD.fullmatch(card_number):
        raise ValidationError(
            {"card_number": gettext("A card number is 1 to 32 ASCII letters, digits or -, e.g. 100234.")}
        )
    details = _details(name=name, tier=tier, nationality=nationality, status=status)
    if Patron.objects.filter(card_number=card_number).exists():
        raise Conflict(gettext("Card %(card)s is enrolled already.") % {"card": card_number}, card_number=card_number)
    patron = Patron.objects.create(card_number=card_number, **actor.recorded_fields())
    PatronVersion.objects.create(patron=patron, reason="", **details, **actor.recorded_fields())
    return patron


@transaction.atomic
def patron_version_record(
    *, patron: Patron, name: str, tier: Tier, nationality: str, status: str, reason: str, actor=SYSTEM
) -> PatronVersion:
    """The patron's details from now on (the earlier versions stay as they were)."""
    details = _details(name=name, tier=tier, nationality=nationality, status=status)
    reason = _text(reason, "reason", required=True)
    patron = _patron_locked(patron)
    current = selectors.patron_current(patron)
    if current is not None and all(getattr(current, key) == value for key, value in details.items()):
        raise ValidationError({"__all__": gettext("Nothing changed: the patron's details are these already.")})
    return PatronVersion.objects.create(patron=patron, reason=reason, **details, **actor.recorded_fields())


@transaction.atomic
def patron_look_record(*, patron: Patron, user, where: str, personal: bool) -> PatronLook:
    """A member of staff looked at the patron (a page, an API lookup): the audit event of the look."""
    return PatronLook.objects.create(patron=patron, looked_by=user, where=where[:60], personal_shown=personal)


# --------------------------------------------------------------------------------------- exclusions
@transaction.atomic
def exclusion_record(
    *,
    patron: Patron,
    kind: str,
    starts_at: dt.datetime,
    ends_at: dt.datetime | None,
    reason: str,
    actor: Actor = SYSTEM,
) -> Exclusion:
    """The patron may not play from `starts_at` until `ends_at` (None: for life). A patron seated
    now, in the exclusion's time, is an `excluded_patron_seated` alarm at once."""
    if kind not in ExclusionKind.values:
        raise ValidationError({"kind": _one_of(ExclusionKind.values)})
    if not isinstance(starts_at, dt.datetime) or timezone.is_naive(starts_at):
        raise ValidationError({"starts_at": gettext("Give the time with its UTC offset.")})
    if ends_at is not None and (not isinstance(ends_at, dt.datetime) or timezone.is_naive(ends_at)):
        raise ValidationError({"ends_at": gettext("Give the time with its UTC offset.")})
    if ends_at is not None and ends_at <= starts_at:
        raise ValidationError({"ends_at": gettext("The exclusion ends after it starts.")})
    reason = _text(reason, "reason", required=True)
    patron = _patron_locked(patron)
    exclusion = Exclusion.objects.create(
        patron=patron, kind=kind, starts_at=starts_at, ends_at=ends_at, reason=reason, **actor.recorded_fields()
    )
    for session in selectors.sessions_of_patron(patron).filter(pk__in=selectors.open_sessions().values("pk")):
        _excluded_check(session, patron)
    return exclusion


@transaction.atomic
def exclusion_lift(*, exclusion: Exclusion, at: dt.datetime, reason: str, actor: Actor = SYSTEM) -> Exclusion:
    """End an exclusion early from `at` on, by a record that says so (the exclusion is not edited)."""
    reason = _text(reason, "reason", required=True)
    if not isinstance(at, dt.datetime) or timezone.is_naive(at):
        raise ValidationError({"at": gettext("Give the time with its UTC offset.")})
    _patron_locked(exclusion.patron)
    exclusion = Exclusion.objects.get(pk=exclusion.pk)
    if exclusion.lifts_id is not None:
        raise ValidationError({"exclusion": gettext("This record lifts an exclusion; it is not one to lift.")})
    if Exclusion.objects.filter(lifts=exclusion).exists():
        raise Conflict(gettext("That exclusion was lifted already."), exclusion_id=exclusion.pk)
    if at < exclusion.starts_at or (exclusion.ends_at is not None and at >= exclusion.ends_at):
        raise ValidationError({"at": gettext("A lift falls inside the exclusion it ends.")})
    return Exclusion.objects.create(
        patron=exclusion.patron,
        kind=exclusion.kind,
        starts_at=at,
        ends_at=None,
        reason=reason,
        lifts=exclusion,
        **actor.recorded_fields(),
    )


# ---------------------------------------------------------------------------------------- sessions
@day_write(writes=("players.SeatSession",), day_of="the gaming day of the sit-down")
@transaction.atomic
def session_sit(
    *,
    table: Table,
    seat: int,
    at: dt.datetime,
    patron: Patron | None = None,
    description: str = "",
    actor: Actor = SYSTEM,
) -> SeatSession:
    """A player sits down at `table`'s `seat` at `at`: a patron (their card), or an unrated player
    described. Refused (a Conflict naming the seat) while another session holds the seat."""
    at = _moment(at, "at")
    description = _text(description, "description", required=patron is None)
    table = _table_locked(table.pk)
    if seat not in table.seats:
        raise ValidationError(
            {"seat": gettext("%(seat)s is not a seat at table %(table)s.") % {"seat": seat, "table": table.code}}
        )
    if patron is not None:
        patron = _patron_locked(patron)
        current = selectors.patron_current(patron)
        if current is not None and current.status != PatronStatus.ACTIVE:
            raise ValidationError(
                {
                    "card_number": gettext("Card %(card)s is %(status)s: seat the player unrated.")
                    % {"card": patron.card_number, "status": current.get_status_display().lower()}
                }
            )
    holding = _seat_holder(table, seat, at)
    if holding is not None:
        raise Conflict(
            gettext("Seat %(seat)s at table %(table)s is held by session %(session)s (since %(since)s).")
            % {"seat": seat, "table": table.code, "session": holding.pk, "since": holding.started_at.isoformat()},
            errors={"seat": [gettext("Seat %(seat)s is taken.") % {"seat": seat}]},
            session_id=holding.pk,
        )
    days_ensure_open([gaming_day_for(at)])
    session = SeatSession.objects.create(
        table=table,
        seat=seat,
        patron=patron,
        description=description,
        started_at=at,
        gaming_day=gaming_day_for(at),
        **actor.recorded_fields(),
    )
    # The ratings read who sits where (pit.core.derived): the table-day's are owed their re-run.
    derived_follow(("players.SeatSession",), table_days=[(table.pk, session.gaming_day)])
    if patron is not None:
        _excluded_check(session, patron)
        _two_tables_check(session, patron)
    return session


def _seat_holder(table: Table, seat: int, at: dt.datetime) -> SeatSession | None:
    """A session of the seat that a new one from `at` would overlap: one not stood by `at`, or one
    that sat down after `at` (a sit-down is never slipped in before a recorded one)."""
    for session in SeatSession.objects.filter(table=table, seat=seat).order_by("-started_at"):
        ended = selectors.session_ended_at(session)
        if session.started_at >= at or ended is None or ended > at:
            return session
        break  # the seat's latest session stood by `at`: the earlier ones stood before it
    return None


def _event(session: SeatSession, kind: str, at: dt.datetime, actor: Actor) -> SessionEvent:
    at = _moment(at, "at")
    if at < session.started_at:
        raise ValidationError(
            {"at": gettext("The session sat down later, at %(start)s.") % {"start": session.started_at.isoformat()}}
        )
    last = _last_event(session)
    state = last.kind if last else None
    if last is not None and last.kind == SessionEventKind.STAND:
        raise Conflict(
            gettext("Session %(session)s stood up at %(at)s: nothing comes after.")
            % {"session": session.pk, "at": last.at.isoformat()},
            session_id=session.pk,
        )
    if last is not None and at < last.at:
        raise ValidationError(
            {"at": gettext("The session's last event was at %(at)s, after that.") % {"at": last.at.isoformat()}}
        )
    if kind == SessionEventKind.PAUSE and state == SessionEventKind.PAUSE:
        raise ValidationError({"at": gettext("The player is on a break already.")})
    if kind == SessionEventKind.RESUME and state != SessionEventKind.PAUSE:
        raise ValidationError({"at": gettext("The player is not on a break: nothing to resume.")})
    days = sorted({session.gaming_day, gaming_day_for(at)})
    days_ensure_open(days)
    event = SessionEvent.objects.create(session=session, kind=kind, at=at, **actor.recorded_fields())
    derived_follow(("players.SessionEvent",), table_days=[(session.table_id, day) for day in days])
    return event


@day_write(writes=("players.SessionEvent",), day_of="the gaming day of the break")
@transaction.atomic
def session_pause(*, session: SeatSession, at: dt.datetime, actor: Actor = SYSTEM) -> SessionEvent:
    """The player takes a break and keeps the seat."""
    return _event(_session_locked(session), SessionEventKind.PAUSE, at, actor)


@day_write(writes=("players.SessionEvent",), day_of="the gaming day of the return")
@transaction.atomic
def session_resume(*, session: SeatSession, at: dt.datetime, actor: Actor = SYSTEM) -> SessionEvent:
    """The player is back from a break."""
    return _event(_session_locked(session), SessionEventKind.RESUME, at, actor)


@day_write(writes=("players.SessionEvent", "players.ChipsWalked"), day_of="the gaming day of the stand-up")
@transaction.atomic
def session_stand(
    *,
    session: SeatSession,
    at: dt.datetime,
    chips_walked: Decimal | None = None,
    how: str = WalkKind.COUNTED,
    actor: Actor = SYSTEM,
) -> SessionEvent:
    """The session ends at `at` (from a break too); with the chips the player took away, if known."""
    session = _session_locked(session)
    minor = None
    if chips_walked is not None:
        if how not in WalkKind.values:
            raise ValidationError({"how": _one_of(WalkKind.values)})
        minor = _amount_minor(chips_walked, session.table.currency, session.table, field="chips_walked", positive=False)
    event = _event(session, SessionEventKind.STAND, at, actor)
    if minor is not None:
        ChipsWalked.objects.create(
            session=session,
            how=how,
            currency=session.table.currency,
            amount_minor=minor,
            at=event.at,
            **actor.recorded_fields(),
        )
    patron = selectors.session_patron(session)
    if patron is not None:
        _two_tables_check(session, patron)
    return event


@day_write(writes=("players.SessionIdentification",), day_of="the gaming day of the session")
@transaction.atomic
def session_identify(
    *, session: SeatSession, patron: Patron, reason: str, actor: Actor = SYSTEM
) -> SessionIdentification:
    """An unrated session was `patron`'s: recorded with who said so and why."""
    reason = _text(reason, "reason", required=True)
    session = _session_locked(session)
    patron = _patron_locked(patron)
    if session.patron_id is not None:
        raise Conflict(
            gettext("Session %(session)s is rated already (card %(card)s).")
            % {"session": session.pk, "card": session.patron.card_number if session.patron else ""},
            session_id=session.pk,
        )
    existing = SessionIdentification.objects.filter(session=session).select_related("patron").first()
    if existing is not None:
        raise Conflict(
            gettext("Session %(session)s was identified already as card %(card)s.")
            % {"session": session.pk, "card": existing.patron.card_number},
            errors={"card_number": [gettext("Identified as %(card)s.") % {"card": existing.patron.card_number}]},
            session_id=session.pk,
        )
    days_ensure_open([session.gaming_day])
    identification = SessionIdentification.objects.create(
        session=session, patron=patron, reason=reason, **actor.recorded_fields()
    )
    derived_follow(("players.SessionIdentification",), table_days=[(session.table_id, session.gaming_day)])
    _excluded_check(session, patron)
    _two_tables_check(session, patron)
    return identification


# -------------------------------------------------------------------------------- money at the seat
def _inside(session: SeatSession, at: dt.datetime) -> dt.datetime:
    at = _moment(at, "at")
    ended = selectors.session_ended_at(session)
    if at < session.started_at or (ended is not None and at > ended):
        raise ValidationError(
            {
                "at": gettext("Session %(session)s runs from %(start)s to %(end)s.")
                % {
                    "session": session.pk,
                    "start": session.started_at.isoformat(),
                    "end": ended.isoformat() if ended else gettext("now"),
                }
            }
        )
    return at


@day_write(writes=("players.BuyIn",), day_of="the gaming day of the buy-in")
@transaction.atomic
def buy_in_record(
    *, session: SeatSession, kind: str, amount: Decimal, currency: str, at: dt.datetime, actor: Actor = SYSTEM
) -> BuyIn:
    """Cash, chips or a marker the player brought to the seat, in the table's currency."""
    session = _session_locked(session)
    if kind not in BuyInKind.values:
        raise ValidationError({"kind": _one_of(BuyInKind.values)})
    minor = _amount_minor(amount, currency, session.table, field="amount", positive=True)
    at = _inside(session, at)
    days_ensure_open([gaming_day_for(at)])
    return BuyIn.objects.create(
        session=session, kind=kind, currency=currency, amount_minor=minor, at=at, **actor.recorded_fields()
    )


@day_write(writes=("players.ChipsWalked",), day_of="the gaming day the chips left the seat")
@transaction.atomic
def walk_record(
    *, session: SeatSession, how: str, amount: Decimal, currency: str, at: dt.datetime, actor: Actor = SYSTEM
) -> ChipsWalked:
    """Chips the player took away from the seat (leaving for a break, or at stand-up)."""
    session = _session_locked(session)
    if how not in WalkKind.values:
        raise ValidationError({"how": _one_of(WalkKind.values)})
    minor = _amount_minor(amount, currency, session.table, field="amount", positive=False)
    at = _inside(session, at)
    days_ensure_open([gaming_day_for(at)])
    return ChipsWalked.objects.create(
        session=session, how=how, currency=currency, amount_minor=minor, at=at, **actor.recorded_fields()
    )


def _reverse(model, row, reason: str, actor: Actor, extra: dict):
    reason = _text(reason, "reason", required=True)
    _session_locked(row.session)
    row = model.objects.select_related("session").get(pk=row.pk)
    if row.reverses_id is not None:
        raise ValidationError({"reverses": gettext("A reversal is not reversed; record the amount again.")})
    if model.objects.filter(reverses=row).exists():
        raise Conflict(gettext("That record was reversed already."), reversed_id=row.pk)
    days_ensure_open([gaming_day_for(row.at)])
    return model.objects.create(
        session=row.session,
        currency=row.currency,
        amount_minor=row.amount_minor,
        at=row.at,
        reverses=row,
        reason=reason,
        **extra,
        **actor.recorded_fields(),
    )


@day_write(writes=("players.BuyIn",), day_of="the gaming day of the buy-in reversed")
@transaction.atomic
def buy_in_reverse(*, buy_in: BuyIn, reason: str, actor: Actor = SYSTEM) -> BuyIn:
    """A mistaken buy-in reversed: a record of the same amount that names it, with the reason."""
    return _reverse(BuyIn, buy_in, reason, actor, {"kind": buy_in.kind})


@day_write(writes=("players.ChipsWalked",), day_of="the gaming day of the chips walked reversed")
@transaction.atomic
def walk_reverse(*, walk: ChipsWalked, reason: str, actor: Actor = SYSTEM) -> ChipsWalked:
    """Mistaken chips walked reversed, as a buy-in is."""
    return _reverse(ChipsWalked, walk, reason, actor, {"how": walk.how})


# -------------------------------------------------------------------------------------------- alarms
def _who(patron: Patron) -> str:
    return gettext("card %(card)s") % {"card": patron.card_number}


def _excluded_check(session: SeatSession, patron: Patron) -> RuleViolation | None:
    """`excluded_patron_seated` if the patron is excluded at any moment of the session so far
    (from its sit-down to its stand-up or now)."""
    ended = selectors.session_ended_at(session) or timezone.now()
    moments = [
        session.started_at,
        *Exclusion.objects.filter(
            patron=patron, lifts__isnull=True, starts_at__gt=session.started_at, starts_at__lte=ended
        ).values_list("starts_at", flat=True),
    ]
    for moment in moments:
        exclusion = selectors.patron_excluded_at(patron, moment)
        if exclusion is None:
            continue
        until = exclusion.ends_at.isoformat() if exclusion.ends_at else "life"
        finding = game.violation(
            EXCLUDED,
            f"Excluded patron seated: {_who(patron)} sat at table {session.table.code} seat {session.seat} "
            f"(session {session.pk}) and is under a {exclusion.get_kind_display().lower()} from "
            f"{exclusion.starts_at.isoformat()} until {until}. Remove the patron from the table.",
        )
        return violation_record(
            finding=finding,
            fingerprint=f"{EXCLUDED}:session{session.pk}:exclusion{exclusion.pk}",
            table=session.table,
            gaming_day=session.gaming_day,
            found_by=FOUND_BY,
            seat=session.seat,
        )
    return None


def _span(session: SeatSession) -> tuple[dt.datetime, dt.datetime | None]:
    return session.started_at, selectors.session_ended_at(session)


def _overlap(one, other) -> bool:
    (start_a, end_a), (start_b, end_b) = one, other
    return (end_b is None or start_a < end_b) and (end_a is None or start_b < end_a)


def _two_tables_check(session: SeatSession, patron: Patron) -> list[RuleViolation]:
    """`patron_at_two_tables` for each session of the patron at another table that overlaps this
    one in time (a lent card, or a wrong swipe). A pair that no longer overlaps once a session
    stood (the floor swiped the new table before standing the old one) is cleared."""
    mine = _span(session)
    found, fingerprints = [], set()
    others = selectors.sessions_of_patron(patron).exclude(table_id=session.table_id).select_related("table")
    for other in others:
        if not _overlap(mine, _span(other)):
            continue
        low, high = sorted((session, other), key=lambda row: row.pk)
        fingerprint = f"{TWO_TABLES}:session{low.pk}:session{high.pk}"
        finding = game.violation(
            TWO_TABLES,
            f"{_who(patron).capitalize()} is seated at two tables at once: {other.table.code} seat {other.seat} "
            f"since {other.started_at.isoformat()} (session {other.pk}) and {session.table.code} seat "
            f"{session.seat} since {session.started_at.isoformat()} (session {session.pk}). A lent card or "
            "a wrong swipe: see who sits where.",
        )
        found.append(
            violation_record(
                finding=finding,
                fingerprint=fingerprint,
                table=high.table,
                gaming_day=high.gaming_day,
                found_by=FOUND_BY,
                seat=high.seat,
            )
        )
        fingerprints.add(fingerprint)
    mentions = RuleViolation.objects.filter(code=TWO_TABLES).filter(fingerprint__regex=rf":session{session.pk}(:|$)")
    violations_clear_missing(scope=mentions, found_by=FOUND_BY, fingerprints_found=fingerprints)
    return found
