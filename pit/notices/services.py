"""Writes of the pit's notices: telling surveillance (and surveillance's acknowledgement), the
notices owed to the regulator (and their filing), and the findings when either is late.

`notices_gather` (beat, every minute: task `notices.gather`) is how the pit's events reach them:
live alarms, large fills and tables opened or closed outside the pit's hours become notifications;
discrepancies over a jurisdiction's threshold become regulator notices; a notification not
acknowledged in time and a notice near or past its deadline become findings. Design:
docs/design/notices.md."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit import game
from pit.accounting.models import CountKind, InventoryCount, Slip, SlipKind, SlipStep
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.actors import SYSTEM, Actor
from pit.core.gaming_day import gaming_day_for
from pit.core.jurisdictions import INVENTORY_DISCREPANCY, SLIP_DISCREPANCY, jurisdiction
from pit.core.money import format_money, to_minor
from pit.protection.selectors import ALARM_CODES, alarms_unreviewed
from pit.tables.models import TableEvent

from .models import (
    NotificationKind,
    RegulatorNotice,
    RegulatorNoticeFiling,
    SurveillanceAcknowledgement,
    SurveillanceNotification,
)

SURVEILLANCE_CHECK = "surveillance_notices"
REGULATOR_CHECK = "regulator_notices"
# The alarms that reach surveillance: every live alarm but the regulator's deadlines (the pit's own).
SURVEILLANCE_ALARMS = tuple(code for code in ALARM_CODES if not code.startswith("regulator_"))
LOOKBACK = dt.timedelta(days=3)  # how far back the gather looks for events not yet notified


# ---------------------------------------------------------------------------------------- surveillance
def surveillance_notify(
    *, kind: str, table, message: str, source: str, actor: Actor = SYSTEM, at=None, violation=None
) -> SurveillanceNotification:
    """Tell surveillance, once per `source`: to be acknowledged within the jurisdiction's time. A
    repeat of a source answers the notification already made."""
    if kind not in NotificationKind.values:
        raise ValidationError(
            {"kind": gettext("Kind must be one of %(kinds)s.") % {"kinds": ", ".join(NotificationKind.values)}}
        )
    if not (message or "").strip():
        raise ValidationError({"message": gettext("Say what surveillance is told.")})
    existing = SurveillanceNotification.objects.filter(source=source).first()
    if existing is not None:
        return existing
    at = at or timezone.now()
    due_by = at + dt.timedelta(minutes=jurisdiction().surveillance_ack_minutes)
    try:
        with transaction.atomic():
            return SurveillanceNotification.objects.create(
                kind=kind,
                table=table,
                message=message.strip(),
                source=source[:80],
                violation=violation,
                notified_at=at,
                due_by=due_by,
                **actor.recorded_fields(),
            )
    except IntegrityError:  # made meanwhile by a concurrent gather: the unique source held
        return SurveillanceNotification.objects.get(source=source[:80])


def drop_notify(
    *, table, gaming_day: dt.date, shift: int = 1, actor: Actor = SYSTEM, at=None
) -> SurveillanceNotification:
    """The drop of a table is about to begin (the boxes come off the table): surveillance watches."""
    return surveillance_notify(
        kind=NotificationKind.DROP,
        table=table,
        message=gettext("The drop of %(table)s for %(day)s shift %(shift)s is about to begin.")
        % {"table": table.code, "day": gaming_day, "shift": shift},
        source=f"drop:{table.pk}:{gaming_day}:{shift}",
        actor=actor,
        at=at,
    )


def decks_leaving_notify(
    *, table, decks: int, reference: str, actor: Actor = SYSTEM, at=None
) -> SurveillanceNotification:
    """Decks leave storage for a table (`reference`: the issue's own, once): surveillance watches them
    go. Card control calls it when it issues decks."""
    return surveillance_notify(
        kind=NotificationKind.DECKS,
        table=table,
        message=gettext("%(decks)s decks leave storage for %(table)s (%(reference)s).")
        % {"decks": decks, "table": table.code, "reference": reference},
        source=f"decks:{reference}",
        actor=actor,
        at=at,
    )


@transaction.atomic
def surveillance_acknowledge(
    *, notification: SurveillanceNotification, user, note: str = "", at=None
) -> SurveillanceAcknowledgement:
    """Surveillance saw it: once (a second acknowledgement answers the first)."""
    if user is None:
        raise ValidationError({"acknowledged_by": gettext("A person of surveillance acknowledges.")})
    notification = SurveillanceNotification.objects.select_for_update().get(pk=notification.pk)
    existing = SurveillanceAcknowledgement.objects.filter(notification=notification).first()
    if existing is not None:
        return existing
    return SurveillanceAcknowledgement.objects.create(
        notification=notification,
        acknowledged_by=user,
        acknowledged_at=at or timezone.now(),
        note=(note or "").strip()[:300],
        recorded_by_user=user,
    )


def pit_hours() -> tuple[dt.time, dt.time] | None:
    """PIT_PIT_HOURS as (opens, closes), or None when the pit is open around the clock."""
    text = (settings.PIT_PIT_HOURS or "").strip()
    if not text:
        return None
    try:
        start, end = (dt.time.fromisoformat(part.strip()) for part in text.split("-"))
    except ValueError:
        raise ValidationError({"PIT_PIT_HOURS": gettext("{text} is not HH:MM-HH:MM").format(text=repr(text))}) from None
    return start, end


def outside_hours(moment: dt.datetime, hours: tuple[dt.time, dt.time]) -> bool:
    start, end = hours
    clock = timezone.localtime(moment).time()
    inside = start <= clock < end if start <= end else (clock >= start or clock < end)
    return not inside


def _gather_surveillance(now: dt.datetime) -> int:
    made = 0
    notified = set(
        SurveillanceNotification.objects.filter(notified_at__gte=now - LOOKBACK * 2).values_list("source", flat=True)
    )
    for alarm in alarms_unreviewed(since=now - LOOKBACK).filter(code__in=SURVEILLANCE_ALARMS):
        source = f"alarm:{alarm.pk}"
        if source in notified:
            continue
        surveillance_notify(
            kind=NotificationKind.ALARM,
            table=alarm.table,
            message=f"{alarm.code}: {alarm.message}",
            source=source,
            violation=alarm,
            at=now,
        )
        made += 1
    for slip in Slip.objects.filter(kind=SlipKind.FILL, recorded_at__gte=now - LOOKBACK).select_related("table"):
        source = f"fill:{slip.pk}"
        if source in notified or to_minor(jurisdiction().large_fill, slip.currency) > slip.total_minor:
            continue
        surveillance_notify(
            kind=NotificationKind.LARGE_FILL,
            table=slip.table,
            message=gettext("A fill of %(amount)s to %(table)s (slip %(number)s).")
            % {
                "amount": format_money(slip.total_minor, slip.currency),
                "table": slip.table.code,
                "number": slip.number,
            },
            source=source,
            at=now,
        )
        made += 1
    hours = pit_hours()
    if hours is not None:
        for event in TableEvent.objects.filter(at__gte=now - LOOKBACK).select_related("table"):
            source = f"table_event:{event.pk}"
            if source in notified or not outside_hours(event.at, hours):
                continue
            surveillance_notify(
                kind=NotificationKind.OFF_SCHEDULE,
                table=event.table,
                message=gettext("%(table)s %(kind)s at %(at)s, outside the pit's hours (%(hours)s).")
                % {
                    "table": event.table.code,
                    "kind": event.kind,
                    "at": f"{timezone.localtime(event.at):%H:%M}",
                    "hours": settings.PIT_PIT_HOURS,
                },
                source=source,
                at=now,
            )
            made += 1
    return made


def surveillance_late_check(*, now: dt.datetime) -> int:
    """Record `surveillance_unacknowledged` for each notification not acknowledged by its time (or
    acknowledged after it). Returns how many are late."""
    late = 0
    pending = SurveillanceNotification.objects.filter(due_by__lt=now, notified_at__gte=now - LOOKBACK * 2)
    for notification in pending.select_related("table", "acknowledgement"):
        acknowledgement = getattr(notification, "acknowledgement", None)
        if acknowledgement is not None and acknowledgement.acknowledged_at <= notification.due_by:
            continue
        late += 1
        when = (
            gettext("acknowledged only at %(at)s")
            % {"at": f"{timezone.localtime(acknowledgement.acknowledged_at):%Y-%m-%d %H:%M}"}
            if acknowledgement is not None
            else gettext("not acknowledged")
        )
        violation_record(
            finding=game.violation(
                "surveillance_unacknowledged",
                gettext("%(notification)s was %(when)s; surveillance acknowledges by %(due)s.")
                % {
                    "notification": notification,
                    "when": when,
                    "due": f"{timezone.localtime(notification.due_by):%H:%M}",
                },
            ),
            fingerprint=f"surveillance_late:{notification.pk}",
            table=notification.table,
            gaming_day=gaming_day_for(notification.notified_at),
            found_by=SURVEILLANCE_CHECK,
        )
    return late


# ---------------------------------------------------------------------------------------- the regulator
def _discrepancies(source: str, since: dt.datetime):
    """(record key, table, gaming day, discrepancy in minor units, currency, words, when found) of one kind."""
    if source == INVENTORY_DISCREPANCY:
        openers = InventoryCount.objects.filter(kind=CountKind.OPENER, recorded_at__gte=since).select_related("table")
        for opener in openers:
            closer = (
                InventoryCount.objects.filter(table=opener.table, kind=CountKind.CLOSER)
                .filter(gaming_day__lt=opener.gaming_day)
                .order_by("-gaming_day", "-shift")
                .first()
            ) or (
                InventoryCount.objects.filter(
                    table=opener.table, kind=CountKind.CLOSER, gaming_day=opener.gaming_day, shift__lt=opener.shift
                )
                .order_by("-shift")
                .first()
            )
            if closer is None:
                continue
            yield (
                f"inventory:{opener.pk}",
                opener.table,
                opener.gaming_day,
                abs(opener.total_minor - closer.total_minor),
                opener.currency,
                gettext(
                    "The opener of %(table)s for %(day)s (%(opener)s) differs from the previous closer (%(closer)s)."
                )
                % {
                    "table": opener.table.code,
                    "day": opener.gaming_day,
                    "opener": format_money(opener.total_minor, opener.currency),
                    "closer": format_money(closer.total_minor, closer.currency),
                },
                opener.recorded_at,
            )
    elif source == SLIP_DISCREPANCY:
        for step in SlipStep.objects.filter(recorded_at__gte=since).select_related("slip__table"):
            slip = step.slip
            yield (
                f"slip:{step.pk}",
                slip.table,
                slip.gaming_day,
                abs(step.total_minor - slip.total_minor),
                slip.currency,
                gettext("%(slip)s was %(step)s with %(counted)s against %(requested)s requested.")
                % {
                    "slip": slip,
                    "step": step.step,
                    "counted": format_money(step.total_minor, slip.currency),
                    "requested": format_money(slip.total_minor, slip.currency),
                },
                step.recorded_at,
            )


def _gather_regulator(now: dt.datetime) -> int:
    rules = jurisdiction()
    made = 0
    for rule in rules.regulator_rules:
        for key, table, day, amount, currency, words, found_at in _discrepancies(rule.source, now - LOOKBACK):
            if amount <= to_minor(rule.threshold, currency):
                continue
            source = f"{rule.code}:{key}"
            if RegulatorNotice.objects.filter(source=source).exists():
                continue
            try:
                with transaction.atomic():
                    RegulatorNotice.objects.create(
                        rule_code=rule.code,
                        jurisdiction=rules.code,
                        rule=rule.rule[:300],
                        table=table,
                        gaming_day=day,
                        message=words,
                        amount_minor=amount,
                        currency=currency,
                        source=source,
                        found_at=found_at,
                        due_at=found_at + dt.timedelta(hours=rule.deadline_hours),
                    )
            except IntegrityError:  # made meanwhile by a concurrent gather
                continue
            made += 1
    return made


def regulator_deadlines_check(*, now: dt.datetime) -> int:
    """Alarm each notice not filed: `regulator_notice_due` within the jurisdiction's warning hours of
    its deadline, `regulator_notice_overdue` past it (or filed after it). A filed notice's `due`
    alarm is cleared; an overdue one stands. Returns the alarms holding."""
    warn = dt.timedelta(hours=jurisdiction().regulator_warn_hours)
    due_found: set[str] = set()
    holding = 0
    # A week past its deadline a notice's alarm is long recorded (and stays until reviewed): not read again.
    recent = RegulatorNotice.objects.filter(due_at__lte=now + warn, due_at__gte=now - dt.timedelta(days=7))
    for notice in recent.select_related("table", "filing"):
        filing = getattr(notice, "filing", None)
        filed_late = filing is not None and filing.filed_at > notice.due_at
        deadline = f"{timezone.localtime(notice.due_at):%Y-%m-%d %H:%M}"
        if filing is None and notice.due_at > now:
            code, text = (
                "regulator_notice_due",
                gettext("Not filed yet; report by %(deadline)s (%(rule)s): %(message)s"),
            )
        elif (filing is None and notice.due_at <= now) or filed_late:
            code, text = "regulator_notice_overdue", gettext("Not filed by %(deadline)s (%(rule)s): %(message)s")
        else:
            continue
        fingerprint = f"{code}:{notice.pk}"
        violation_record(
            finding=game.violation(code, text % {"deadline": deadline, "rule": notice.rule, "message": notice.message}),
            fingerprint=fingerprint,
            table=notice.table,
            gaming_day=notice.gaming_day,
            found_by=REGULATOR_CHECK,
        )
        if code == "regulator_notice_due":
            due_found.add(fingerprint)
        holding += 1
    violations_clear_missing(
        scope=RuleViolation.objects.filter(code="regulator_notice_due"),
        found_by=REGULATOR_CHECK,
        fingerprints_found=due_found,
    )
    return holding


@transaction.atomic
def regulator_notice_file(
    *, notice: RegulatorNotice, reference: str, user, filed_at=None, note: str = ""
) -> RegulatorNoticeFiling:
    """Record that a notice was filed with the regulator, with its reference: once (a repeat with the
    same reference answers the filing; another reference is refused)."""
    reference = (reference or "").strip()
    if not reference:
        raise ValidationError({"reference": gettext("The filing's reference is required.")})
    if user is None:
        raise ValidationError({"filed_by": gettext("A person files the notice.")})
    notice = RegulatorNotice.objects.select_for_update().get(pk=notice.pk)
    existing = RegulatorNoticeFiling.objects.filter(notice=notice).first()
    if existing is not None:
        if existing.reference != reference:
            raise ValidationError(
                {"reference": gettext("Already filed as %(reference)s.") % {"reference": existing.reference}}
            )
        return existing
    filing = RegulatorNoticeFiling.objects.create(
        notice=notice,
        reference=reference[:100],
        filed_at=filed_at or timezone.now(),
        filed_by=user,
        note=(note or "").strip()[:300],
        recorded_by_user=user,
    )
    regulator_deadlines_check(now=timezone.now())
    return filing


def notices_gather(*, now: dt.datetime | None = None) -> dict[str, int]:
    """What the pit owes surveillance and the regulator, made and checked (safe to run twice)."""
    now = now or timezone.now()
    return {
        "notifications": _gather_surveillance(now),
        "late": surveillance_late_check(now=now),
        "regulator_notices": _gather_regulator(now),
        "regulator_alarms": regulator_deadlines_check(now=now),
    }
