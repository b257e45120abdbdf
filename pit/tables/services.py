"""Writes to tables: creating them, their limits, and opening and closing them."""

import datetime as dt
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.errors import Conflict
from pit.core.jurisdictions import jurisdiction
from pit.core.money import MoneyError, to_minor
from pit.tables.models import (
    Game,
    LimitChange,
    Table,
    TableEvent,
    TableEventKind,
    TableLimit,
    TableLimitVersion,
    TableStatus,
)
from pit.tables.selectors import players_seated

# Seat numbers players avoid: 4 everywhere, 13 where the layout goes that far (domain.md).
UNLUCKY_SEATS = frozenset({4, 13})
SEAT_COUNTS = {Game.BIG: 14, Game.MIDI: 9, Game.MINI: 7}


def default_seat_layout(game: str) -> list[int]:
    """`count` seats numbered from 1, skipping the unlucky numbers."""
    count, number = SEAT_COUNTS[Game(game)], 0
    seats: list[int] = []
    while len(seats) < count:
        number += 1
        if number not in UNLUCKY_SEATS:
            seats.append(number)
    return seats


def _checked_seats(seats) -> list[int]:
    if not isinstance(seats, list | tuple) or not seats:
        raise ValidationError(
            {"seats": gettext("Give the seat numbers as a non-empty list, e.g. [1, 2, 3, 5, 6, 7, 8].")}
        )
    if any(not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= 99 for seat in seats):
        raise ValidationError({"seats": gettext("Seat numbers are whole numbers from 1 to 99.")})
    if len(set(seats)) != len(seats):
        raise ValidationError({"seats": gettext("A seat number appears twice.")})
    return sorted(seats)


@transaction.atomic
def table_create(
    *,
    code: str,
    name: str,
    game: str,
    paytable,
    seats: list[int] | None = None,
    squeeze: bool = False,
    currency: str | None = None,
    limits: dict[str, tuple[Decimal, Decimal]] | None = None,
) -> Table:
    if game not in Game.values:
        raise ValidationError(
            {
                "game": gettext("{game!r} is not a game; choose one of {names}.").format(
                    game=game, names=", ".join(Game.values)
                )
            }
        )
    table = Table(
        code=code,
        name=name,
        game=game,
        paytable=paytable,
        squeeze=squeeze,
        seats=_checked_seats(seats if seats is not None else default_seat_layout(game)),
    )
    if currency:
        table.currency = currency
    table.full_clean()
    table.save()
    if limits:
        table_limits_set(table=table, limits=limits)
    return table


def _tightens(old: dict[str, tuple[int, int]], new: dict[str, tuple[int, int]]) -> bool:
    """Whether a bet's minimum rises or its maximum falls (a bet new to the table tightens nothing)."""
    return any(
        bet in old and (minimum > old[bet][0] or maximum < old[bet][1]) for bet, (minimum, maximum) in new.items()
    )


@transaction.atomic
def table_limits_set(
    *, table: Table, limits: dict[str, tuple[Decimal, Decimal]], effective_from=None, user=None, now=None
) -> list[TableLimit]:
    """Set the table's limits: per bet type, (minimum, maximum) in the table's currency, announced now
    and in force from `effective_from` (default: now, or after the notice below). The set is kept as
    a new version (`TableLimitVersion`), so coups dealt before it are still judged by the limits of
    their time, and the announcement as a `LimitChange`.

    A change that raises a minimum or lowers a maximum while players are seated (a wager at the
    table within the jurisdiction's continuous-play gap) takes effect only after the jurisdiction's
    notice (`pit.core.jurisdictions`): by default then; an `effective_from` before it is refused.
    Until it takes effect the limits in force (`TableLimit`) stay; `table_limits_apply_due` (beat,
    every minute) puts them in force when their time comes."""
    rules = jurisdiction()
    now = now or timezone.now()
    table_limits_apply_due(table=table, now=now)
    bets = set(table.paytable.rules.get("bets", {}))
    rows = []
    for bet, (minimum, maximum) in sorted(limits.items()):
        if bet not in bets:
            raise ValidationError(
                {
                    "limits": gettext("{bet!r} is not a bet of the paytable {table_paytable}.").format(
                        bet=bet, table_paytable=table.paytable
                    )
                }
            )
        try:
            row = TableLimit(
                table=table,
                bet=bet,
                minimum_minor=to_minor(Decimal(minimum), table.currency),
                maximum_minor=to_minor(Decimal(maximum), table.currency),
            )
        except MoneyError as exc:
            raise ValidationError({"limits": f"{bet}: {exc}"}) from exc
        if row.minimum_minor <= 0 or row.maximum_minor < row.minimum_minor:
            raise ValidationError(
                {"limits": gettext("{bet}: the minimum must be positive and at most the maximum.").format(bet=bet)}
            )
        rows.append(row)
    old = {limit.bet: (limit.minimum_minor, limit.maximum_minor) for limit in table.limits.all()}
    tightens = _tightens(old, {row.bet: (row.minimum_minor, row.maximum_minor) for row in rows})
    seated = players_seated(table=table, at=now, gap_minutes=rules.continuous_play_minutes)
    notice = rules.limit_notice_minutes if tightens and seated else 0
    earliest = now + dt.timedelta(minutes=notice)
    if effective_from is None:
        effective_from = earliest
    elif effective_from < earliest and notice:
        raise ValidationError(
            {
                "effective_from": gettext(
                    "Players are seated and the change tightens the limits: it takes effect %(minutes)s "
                    "minutes after it is announced (%(rule)s), at %(earliest)s at the earliest."
                )
                % {"minutes": notice, "rule": rules.limit_notice_rule, "earliest": f"{earliest:%Y-%m-%d %H:%M}"}
            }
        )
    TableLimitVersion.objects.bulk_create(
        TableLimitVersion(
            table=table,
            bet=row.bet,
            minimum_minor=row.minimum_minor,
            maximum_minor=row.maximum_minor,
            effective_from=effective_from,
            set_by=user,
        )
        for row in rows
    )
    LimitChange.objects.create(
        table=table,
        announced_at=now,
        effective_from=effective_from,
        tightens=tightens,
        players_seated=seated,
        notice_minutes=notice,
        grandfathering=rules.grandfathering,
        jurisdiction=rules.code,
        rule=(rules.limit_notice_rule if notice else "no notice needed")[:300],
        set_by=user,
        recorded_by_user=user,
    )
    if effective_from <= now:
        _limits_replace(table, rows)
    return rows


def _limits_replace(table: Table, rows: list[TableLimit]) -> None:
    table.limits.all().delete()
    for row in rows:  # one by one (a handful): on SQLite too each is an audit event, which bulk_create is not
        row.pk = None
        row.save()


def table_limits_apply_due(*, table: Table | None = None, now=None) -> int:
    """Put in force the limit versions whose time has come (announced with notice, in force from a
    moment now past) where the limits in force differ from them. Returns the tables changed."""
    now = now or timezone.now()
    pending = LimitChange.objects.filter(effective_from__lte=now, effective_from__gt=F("announced_at"))
    if table is not None:
        pending = pending.filter(table=table)
    changed = 0
    with transaction.atomic():
        for table_id in sorted(set(pending.values_list("table_id", flat=True))):
            latest = (
                TableLimitVersion.objects.filter(table_id=table_id, effective_from__lte=now)
                .order_by("-effective_from")
                .values_list("effective_from", flat=True)
                .first()
            )
            if latest is None:
                continue
            versions = TableLimitVersion.objects.filter(table_id=table_id, effective_from=latest)
            wanted = {version.bet: (version.minimum_minor, version.maximum_minor) for version in versions}
            held = Table.objects.select_for_update().get(pk=table_id)
            current = {limit.bet: (limit.minimum_minor, limit.maximum_minor) for limit in held.limits.all()}
            if wanted == current:
                continue
            _limits_replace(
                held,
                [
                    TableLimit(table=held, bet=bet, minimum_minor=low, maximum_minor=high)
                    for bet, (low, high) in wanted.items()
                ],
            )
            changed += 1
    return changed


def _table_set_status(*, table: Table, status: str, kind: str, actor: Actor, at) -> Table:
    table = Table.objects.select_for_update().get(pk=table.pk)
    if table.status != status:
        table.status = status
        table.save(update_fields=["status"])
        TableEvent.objects.create(table=table, kind=kind, at=at or timezone.now(), **actor.recorded_fields())
    return table


@transaction.atomic
def table_open(*, table: Table, actor: Actor = SYSTEM, at=None) -> Table:
    """Open the table (a no-op if it is open already)."""
    return _table_set_status(table=table, status=TableStatus.OPEN, kind=TableEventKind.OPENED, actor=actor, at=at)


@transaction.atomic
def table_close(*, table: Table, actor: Actor = SYSTEM, at=None) -> Table:
    """Close the table (a no-op if it is closed already). Refused (Conflict naming the shoe) while a
    shoe is still dealing there: the shoe is closed first, at the shuffle, with its box count."""
    table = Table.objects.select_for_update().get(pk=table.pk)  # a shoe cannot start while we look
    dealing = table.shoes.filter(status="dealing").order_by("sequence").first()  # shoes sit above tables
    if dealing is not None and table.status != TableStatus.CLOSED:
        raise Conflict(
            gettext(
                "Table {table_code} cannot close while shoe {dealing_sequence} (id "
                "{dealing_pk}) is still dealing; close the shoe with its commission "
                "box count first."
            ).format(table_code=table.code, dealing_sequence=dealing.sequence, dealing_pk=dealing.pk),
            shoe_id=dealing.pk,
            sequence=dealing.sequence,
        )
    return _table_set_status(table=table, status=TableStatus.CLOSED, kind=TableEventKind.CLOSED, actor=actor, at=at)
