"""Writes of the pit's internal controls: decks received, issued, returned, cancelled, destroyed and
counted; key access lists, issues and returns; shift handovers and their acceptance.

Each records a fact as it happened, with who and when. What must not happen physically is refused
(a deck destroyed twice, a key drawn while it is out); what happens against the rule but happened
(a deck issued a second time, a key drawn by someone not on its list) is recorded and found at
once (pit.controls.checks), so the record keeps what the floor did.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.errors import Conflict
from pit.core.gaming_day import gaming_day_for

from . import checks
from .handover import handover_snapshot
from .models import (
    Deck,
    DeckEvent,
    DeckEventKind,
    DeckIssue,
    HandoverAcceptance,
    KeyAccessList,
    KeyIssue,
    KeyReturn,
    SensitiveKey,
    ShiftHandover,
    StorageCount,
    StoragePlace,
)
from .selectors import deck_location, key_max_out, key_out
from .shifts import shift_change_near


def _two_people(first, second, *, field: str) -> None:
    if first is None or second is None:
        raise ValidationError({field: gettext("Two people sign this record.")})
    if first.pk == second.pk:
        raise ValidationError({field: gettext("Two different people sign this record, not one person twice.")})


def _moment(value: dt.datetime | None) -> dt.datetime:
    return value or timezone.now()


# ---------------------------------------------------------------------------------------- cards


@transaction.atomic
def decks_receive(
    *,
    serials: Iterable[str],
    storage: StoragePlace,
    received_by,
    second_signer,
    received_at: dt.datetime | None = None,
    lot: str = "",
    actor: Actor = SYSTEM,
) -> list[Deck]:
    """Decks received into a storage place, signed by two people. A serial received before is refused."""
    _two_people(received_by, second_signer, field="second_signer")
    wanted = [serial.strip() for serial in serials]
    if not wanted or any(not serial for serial in wanted):
        raise ValidationError({"serials": gettext("Give the serial of every deck received.")})
    if len(set(wanted)) != len(wanted):
        raise ValidationError({"serials": gettext("A serial is given twice.")})
    known = sorted(Deck.objects.filter(serial__in=wanted).values_list("serial", flat=True))
    if known:
        raise ValidationError({"serials": gettext("Received before: %(serials)s.") % {"serials": ", ".join(known)}})
    at = _moment(received_at)
    return Deck.objects.bulk_create(
        Deck(
            serial=serial,
            lot=lot.strip(),
            storage=storage,
            received_at=at,
            received_by=received_by,
            second_signer=second_signer,
            **actor.recorded_fields(),
        )
        for serial in wanted
    )


@transaction.atomic
def decks_issue(
    *,
    decks: Iterable[Deck],
    shoe,
    issued_by,
    taken_by,
    issued_at: dt.datetime | None = None,
    actor: Actor = SYSTEM,
) -> list[DeckIssue]:
    """Decks issued from storage to the shoe's table for the shoe. A deck cancelled, destroyed or at
    a table is refused; a deck issued before (and back in storage) is issued as it was and is a
    `deck_issued_twice` finding at once."""
    _two_people(issued_by, taken_by, field="taken_by")
    at = _moment(issued_at)
    locked = list(Deck.objects.select_for_update().filter(pk__in=[deck.pk for deck in decks]).order_by("serial"))
    if not locked:
        raise ValidationError({"decks": gettext("Give the decks issued.")})
    for deck in locked:
        where = deck_location(deck, at)
        if where.kind != "storage":
            raise ValidationError(
                {
                    "decks": gettext("Deck %(serial)s is not in storage (%(where)s).")
                    % {"serial": deck.serial, "where": where}
                }
            )
    issues = DeckIssue.objects.bulk_create(
        DeckIssue(
            deck=deck,
            shoe=shoe,
            table=shoe.table,
            issued_at=at,
            issued_by=issued_by,
            taken_by=taken_by,
            **actor.recorded_fields(),
        )
        for deck in locked
    )
    for issue in issues:
        checks.deck_issue_check(issue)
    return issues


@transaction.atomic
def deck_return(
    *, deck: Deck, storage: StoragePlace, by, at: dt.datetime | None = None, actor: Actor = SYSTEM
) -> DeckEvent:
    """A deck back from its table into storage (to be cancelled and destroyed, or kept unopened)."""
    deck = Deck.objects.select_for_update().get(pk=deck.pk)
    moment = _moment(at)
    where = deck_location(deck, moment)
    if where.kind != "table":
        raise ValidationError(
            {
                "deck": gettext("Deck %(serial)s is not at a table (%(where)s).")
                % {"serial": deck.serial, "where": where}
            }
        )
    return DeckEvent.objects.create(
        deck=deck, kind=DeckEventKind.RETURNED, at=moment, storage=storage, by=by, **actor.recorded_fields()
    )


def _witnessed(kind: str, *, deck: Deck, by, witness, at, note: str, actor: Actor) -> DeckEvent:
    _two_people(by, witness, field="witness")
    deck = Deck.objects.select_for_update().get(pk=deck.pk)
    moment = _moment(at)
    where = deck_location(deck, moment)
    if where.kind != "storage" or (kind == DeckEventKind.CANCELLED and where.cancelled):
        raise ValidationError(
            {
                "deck": gettext("Deck %(serial)s cannot be %(kind)s: %(where)s.")
                % {"serial": deck.serial, "kind": kind, "where": where}
            }
        )
    try:
        with transaction.atomic():
            return DeckEvent.objects.create(
                deck=deck,
                kind=kind,
                at=moment,
                storage=StoragePlace.objects.get(code=where.place),
                by=by,
                witness=witness,
                note=note.strip(),
                **actor.recorded_fields(),
            )
    except IntegrityError:
        raise Conflict(
            gettext("Deck {deck} is {kind} already.").format(deck=deck.serial, kind=kind), deck=deck.serial
        ) from None


@transaction.atomic
def deck_cancel(
    *, deck: Deck, by, witness, at: dt.datetime | None = None, note: str = "", actor: Actor = SYSTEM
) -> DeckEvent:
    """A deck in storage marked unusable (drilled or clipped) before a witness."""
    return _witnessed(DeckEventKind.CANCELLED, deck=deck, by=by, witness=witness, at=at, note=note, actor=actor)


@transaction.atomic
def deck_destroy(
    *, deck: Deck, by, witness, at: dt.datetime | None = None, note: str = "", actor: Actor = SYSTEM
) -> DeckEvent:
    """A deck in storage destroyed before a witness."""
    return _witnessed(DeckEventKind.DESTROYED, deck=deck, by=by, witness=witness, at=at, note=note, actor=actor)


@transaction.atomic
def storage_count_record(
    *, storage: StoragePlace, decks: int, counted_by, witness, counted_at: dt.datetime | None = None, actor=SYSTEM
) -> StorageCount:
    """The decks counted in a storage place (the daily reconciliation compares it with the book)."""
    _two_people(counted_by, witness, field="witness")
    if decks < 0:
        raise ValidationError({"decks": gettext("A count is not negative.")})
    return StorageCount.objects.create(
        storage=storage,
        decks=decks,
        counted_by=counted_by,
        witness=witness,
        counted_at=_moment(counted_at),
        **actor.recorded_fields(),
    )


# ---------------------------------------------------------------------------------------- keys


@transaction.atomic
def key_access_set(
    *, key: SensitiveKey, holders: Iterable, effective_from: dt.datetime | None = None, set_by=None, actor=SYSTEM
) -> KeyAccessList:
    """A new version of a key's access list, in force from `effective_from` (now)."""
    key = SensitiveKey.objects.select_for_update().get(pk=key.pk)
    ids = sorted({holder.pk for holder in holders})
    last = key.access_lists.order_by("-version").first()
    moment = _moment(effective_from)
    if last is not None and moment < last.effective_from:
        raise ValidationError({"effective_from": gettext("A new list takes effect after the one before it.")})
    return KeyAccessList.objects.create(
        key=key,
        version=(last.version + 1) if last else 1,
        effective_from=moment,
        holders=ids,
        set_by=set_by,
        **actor.recorded_fields(),
    )


@transaction.atomic
def key_issue(
    *,
    key: SensitiveKey,
    table,
    issued_to,
    issued_by,
    purpose: str,
    issued_at: dt.datetime | None = None,
    actor: Actor = SYSTEM,
) -> KeyIssue:
    """A key drawn for a table, due back after its time. A key out is refused; a person not on its
    access list gets it as it happened, and it is a `key_issued_unlisted` finding at once."""
    _two_people(issued_by, issued_to, field="issued_to")
    if not (purpose or "").strip():
        raise ValidationError({"purpose": gettext("Say what the key is drawn for.")})
    key = SensitiveKey.objects.select_for_update().get(pk=key.pk)
    moment = _moment(issued_at)
    out = key_out(key, moment)
    if out is not None:
        raise Conflict(
            gettext("Key {key} is out since {since} ({person}).").format(
                key=key.code, since=f"{out.issued_at:%Y-%m-%d %H:%M}", person=out.issued_to
            ),
            key=key.code,
        )
    issue = KeyIssue.objects.create(
        key=key,
        table=table,
        issued_to=issued_to,
        issued_by=issued_by,
        issued_at=moment,
        due_at=moment + dt.timedelta(minutes=key_max_out(key)),
        purpose=purpose.strip(),
        **actor.recorded_fields(),
    )
    checks.key_issue_check(issue)
    return issue


@transaction.atomic
def key_return(
    *, issue: KeyIssue, returned_by, received_by, returned_at: dt.datetime | None = None, actor: Actor = SYSTEM
) -> KeyReturn:
    """A key back in its box, received by a second person."""
    _two_people(returned_by, received_by, field="received_by")
    issue = KeyIssue.objects.select_for_update().get(pk=issue.pk)
    moment = _moment(returned_at)
    if moment < issue.issued_at:
        raise ValidationError({"returned_at": gettext("A key comes back after it was drawn.")})
    if KeyReturn.objects.filter(issue=issue).exists():
        raise Conflict(gettext("{issue} is returned already.").format(issue=issue), key=issue.key.code)
    return KeyReturn.objects.create(
        issue=issue, returned_at=moment, returned_by=returned_by, received_by=received_by, **actor.recorded_fields()
    )


# ---------------------------------------------------------------------------------------- handover


@transaction.atomic
def shift_handover_record(
    *, handed_by, note: str = "", at: dt.datetime | None = None, actor: Actor = SYSTEM
) -> ShiftHandover:
    """The outgoing pit boss's handover at the shift change nearest `at` (now): every section of
    the registry as it stands, and a note."""
    moment = _moment(at)
    change = shift_change_near(moment)
    if change is None:
        raise ValidationError({"at": gettext("No shift change is near: a handover is recorded around one.")})
    if ShiftHandover.objects.filter(shift_change_at=change, handed_by=handed_by).exists():
        raise Conflict(
            gettext("{person} has handed over the shift change at {change} already.").format(
                person=handed_by, change=f"{change:%Y-%m-%d %H:%M}"
            )
        )
    return ShiftHandover.objects.create(
        shift_change_at=change,
        gaming_day=gaming_day_for(change),
        handed_by=handed_by,
        handed_at=moment,
        sections=handover_snapshot(moment),
        note=(note or "").strip(),
        **actor.recorded_fields(),
    )


@transaction.atomic
def shift_handover_accept(
    *, handover: ShiftHandover, accepted_by, note: str = "", at: dt.datetime | None = None, actor: Actor = SYSTEM
) -> HandoverAcceptance:
    """The incoming pit boss accepts a handover: someone other than who handed it over, once."""
    handover = ShiftHandover.objects.select_for_update().get(pk=handover.pk)
    if accepted_by is None or accepted_by.pk == handover.handed_by_id:
        raise ValidationError({"accepted_by": gettext("The next pit boss accepts a handover, not who handed it over.")})
    if HandoverAcceptance.objects.filter(handover=handover).exists():
        raise Conflict(gettext("The {handover} is accepted already.").format(handover=handover))
    moment = _moment(at)
    if moment < handover.handed_at:
        raise ValidationError({"at": gettext("A handover is accepted after it was handed over.")})
    return HandoverAcceptance.objects.create(
        handover=handover,
        accepted_by=accepted_by,
        accepted_at=moment,
        note=(note or "").strip(),
        **actor.recorded_fields(),
    )
