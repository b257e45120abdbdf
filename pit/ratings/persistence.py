"""Hand-written statements of the rating refresh: what is new at a table-day since its marks, its
sessions with their events, the coups and standing wagers of the sessions it rates, and the marks
written back. One text for PostgreSQL and SQLite: values go in as the ORM adapts them and come back
as the ORM reads them (`_moment`). Design: docs/design/ratings.md."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, cast

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from pit.core.gaming_day import gaming_day_bounds
from pit.core.rows import statement_form, statements_run
from pit.players.models import SeatSession, SessionEvent, SessionIdentification
from pit.shoes.models import Coup, CoupCorrection, Shoe, Wager
from pit.tables.models import Table

from .models import AverageBetEstimate, CoupEdges, RatedTableDay, SessionRating

# What a refresh finds newer than the table-day's marks (`new_facts`): the kind, the row's id and
# the coup's moment (a coup, a correction) or the session (an event, an identification, an estimate).
COUP, CORRECTION, EVENT, IDENTIFICATION, ESTIMATE = "coup", "correction", "event", "identification", "estimate"
MARKS = {
    COUP: "coup_mark",
    CORRECTION: "correction_mark",
    EVENT: "event_mark",
    IDENTIFICATION: "identification_mark",
    ESTIMATE: "estimate_mark",
}


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _at(value: dt.datetime) -> Any:
    return connection.ops.adapt_datetimefield_value(value)


def _day(value: dt.date) -> Any:
    return connection.ops.adapt_datefield_value(value)


def _moment(value: Any) -> dt.datetime | None:
    """A moment read by hand as the ORM gives it: aware, in UTC (SQLite keeps naive UTC text)."""
    if value is None or isinstance(value, dt.datetime) and timezone.is_aware(value):
        return value
    moment = parse_datetime(value) if isinstance(value, str) else value
    assert moment is not None, f"not a moment: {value!r}"
    return timezone.make_aware(moment, dt.UTC) if timezone.is_naive(moment) else moment


def _begin(table_id: int, day: dt.date) -> tuple[str, list[Any]] | None:
    """The refresh's transaction takes the table-day's lock (refreshes of one table-day run one after
    the other, as pit.core.db.advisory_xact_lock locks) and commits without waiting for the WAL to
    reach the disk: what it writes is derived, and a crash that loses the commit loses its marks with
    its ratings, so the owed refresh runs again and writes them anew. On SQLite, nothing (its
    IMMEDIATE transactions already run one writer at a time)."""
    if connection.vendor != "postgresql":
        return None
    return (
        "SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(hashtextextended(%s, 0))",
        [f"pit.ratings:{table_id}:{day}"],
    )


@statement_form
def _new_corrections_text() -> str:
    marks = f"(SELECT correction_mark FROM {_table(RatedTableDay)} WHERE table_id = %s AND gaming_day = %s)"  # noqa: S608
    return (
        f"SELECT k.id, c.dealt_at FROM {_table(CoupCorrection)} k JOIN {_table(Coup)} c ON c.id = k.coup_id "  # noqa: S608
        f"JOIN {_table(Shoe)} s ON s.id = c.shoe_id "
        f"WHERE s.table_id = %s AND c.gaming_day = %s AND k.id > COALESCE({marks}, 0)"
    )


@statement_form
def _sessions_text() -> str:
    # One join (the events); the rest are subqueries of one table each: the join a planner orders
    # is small, and planning costs more than running it here.
    estimates, events, identification = _table(AverageBetEstimate), _table(SessionEvent), _table(SessionIdentification)
    table, marks = _table(Table), _table(RatedTableDay)

    def mark(column: str) -> str:
        return f"(SELECT {column} FROM {marks} WHERE table_id = ss.table_id AND gaming_day = %s)"  # noqa: S608

    return (
        "SELECT ss.id, ss.seat, ss.started_at, ss.gaming_day, "  # noqa: S608
        f"COALESCE(ss.patron_id, (SELECT si.patron_id FROM {identification} si WHERE si.session_id = ss.id)), "
        f"EXISTS (SELECT 1 FROM {_table(SessionRating)} r WHERE r.session_id = ss.id), "
        f"(SELECT t.currency FROM {table} t WHERE t.id = ss.table_id), "
        f"(SELECT t.paytable_id FROM {table} t WHERE t.id = ss.table_id), "
        f"(SELECT a.average_bet_minor FROM {estimates} a WHERE a.session_id = ss.id "
        "ORDER BY a.recorded_at DESC, a.id DESC LIMIT 1), "
        f"(SELECT max(a.id) FROM {estimates} a WHERE a.session_id = ss.id), "
        f"(SELECT si.id FROM {identification} si WHERE si.session_id = ss.id), "
        f"{mark('event_mark')}, {mark('identification_mark')}, {mark('estimate_mark')}, e.id, e.kind, e.at "
        f"FROM {_table(SeatSession)} ss LEFT JOIN {events} e ON e.session_id = ss.id "
        "WHERE ss.table_id = %s AND ss.started_at < %s "
        f"AND NOT EXISTS (SELECT 1 FROM {events} x WHERE x.session_id = ss.id AND x.kind = 'stand' AND x.at < %s) "
        "ORDER BY ss.id, e.at, e.id"
    )


@statement_form
def _standing_text() -> str:
    ratings = _table(SessionRating)
    return (
        "SELECT r.session_id, r.coup_mark, r.as_of, r.table_coups, r.wagers, r.coups_played, "  # noqa: S608
        "r.largest_bet_minor, r.handle_by_bet, r.won_minor, r.commission_owed_minor, r.commission_deducted_minor, "
        f"r.theo_numerator, r.theo_denominator FROM {ratings} r WHERE NOT r.final AND r.session_id IN "
        f"(SELECT ss.id FROM {_table(SeatSession)} ss WHERE ss.table_id = %s AND ss.gaming_day = %s)"
    )


@statement_form
def _new_coups_text() -> str:
    correction, marks = _table(CoupCorrection), _table(RatedTableDay)
    mark = f"(SELECT coup_mark FROM {marks} WHERE table_id = %s AND gaming_day = %s)"  # noqa: S608
    return (
        "SELECT c.id, c.dealt_at, c.gaming_day, c.paytable_id, s.decks, k.id, k.kind, "  # noqa: S608
        "e.edges, c.player_cards, c.banker_cards, w.seat, w.bet, w.amount_minor, w.result, w.payout_minor, "
        "w.commission_minor, w.correction_id "
        f"FROM {_table(Coup)} c JOIN {_table(Shoe)} s ON s.id = c.shoe_id "
        f"LEFT JOIN {correction} k ON k.coup_id = c.id "
        f"AND k.sequence = (SELECT max(l.sequence) FROM {correction} l WHERE l.coup_id = c.id) "
        f"LEFT JOIN {_table(CoupEdges)} e ON e.coup_id = c.id "
        f"LEFT JOIN {_table(Wager)} w ON w.coup_id = c.id AND w.gaming_day = %s "
        f"WHERE s.table_id = %s AND c.gaming_day = %s AND c.id > COALESCE({mark}, 0) ORDER BY c.dealt_at, c.id"
    )


def table_day_read(
    table_id: int, day: dt.date, *, lock: bool = True
) -> tuple[list[dict[str, Any]], dict[str, int], list[tuple[str, int, dt.datetime]], dict[str, Any]]:
    """What a refresh of the table-day reads first, in one round trip on PostgreSQL (after its lock,
    `lock`): the table's sessions that overlap the gaming day (sat down before its end, not stood up
    before its start), each with its events in order, whose it is (the patron, or the one identified
    later), whether it is rated yet, its latest estimate, its table's currency and paytable and the
    highest id of its events, identification and estimates (`facts`); the table-day's marks of those
    (0 before its first refresh); its coups and corrections newer than the marks (all of them before
    its first refresh), as (COUP or CORRECTION, id, the coup's dealt_at); and what a rating carried
    forward needs (`new`): "ratings", the stored sums of the table-day's ratings not final yet (by
    session: coup mark, as_of, table coups, wagers, coups played, largest bet, handle by bet as JSON
    text, won, commission owed and deducted, theo numerator and denominator as text), "coups", those
    new coups as `play_read` gives them, in the order dealt, and "wagers", every version of the
    wagers on them at every seat (as `play_read`'s), read with them in one statement."""
    start, end = gaming_day_bounds(day)
    gaming_day = _day(day)
    table_day = [table_id, gaming_day]
    statements = [
        _begin(table_id, day) if lock else None,
        (_sessions_text(), [gaming_day] * 3 + [table_id, _at(end), _at(start)]),
        (_new_corrections_text(), table_day * 2),
        (_standing_text(), table_day),
        (_new_coups_text(), [gaming_day, *table_day, *table_day]),
    ]
    *_locked, rows, corrections, standing, played = statements_run(statements)
    sessions: dict[int, dict[str, Any]] = {}
    marks = dict.fromkeys((EVENT, IDENTIFICATION, ESTIMATE), 0)
    for row in rows:
        pk, seat, started, gaming_day, patron_id, rated, currency, paytable_id, estimate, estimate_id = row[:10]
        identification_id, event_mark, identification_mark, estimate_mark, event_id, kind, at = row[10:]
        session = sessions.get(pk)
        if session is None:
            session = sessions[pk] = {
                "id": pk,
                "seat": seat,
                "started_at": _moment(started),
                "gaming_day": gaming_day if isinstance(gaming_day, dt.date) else dt.date.fromisoformat(gaming_day),
                "patron_id": patron_id,
                "rated": bool(rated),
                "currency": currency,
                "paytable_id": paytable_id,
                "estimate": estimate,
                "events": [],
                "facts": {EVENT: 0, IDENTIFICATION: identification_id or 0, ESTIMATE: estimate_id or 0},
            }
            marks = {EVENT: event_mark or 0, IDENTIFICATION: identification_mark or 0, ESTIMATE: estimate_mark or 0}
        if kind is not None:
            session["events"].append((kind, _moment(at)))
            session["facts"][EVENT] = max(session["facts"][EVENT], event_id)
    coups: dict[int, tuple[Any, ...]] = {}
    wagers = []
    for pk, at, *rest in played:
        if pk not in coups:
            coups[pk] = (pk, _moment(at), *rest[:8])
        if rest[8] is not None:  # a wager: (coup, seat, bet, amount, result, payout, commission, version)
            wagers.append((pk, *rest[8:]))
    play = [(COUP, pk, cast(dt.datetime, row[1])) for pk, row in coups.items()]
    play += [(CORRECTION, pk, cast(dt.datetime, _moment(at))) for pk, at in corrections]
    new = {
        "ratings": {row[0]: (row[1], _moment(row[2]), *row[3:]) for row in standing},
        "coups": list(coups.values()),
        "wagers": wagers,
    }
    return list(sessions.values()), marks, play, new


@statement_form
def _coups_text(bounded: bool) -> str:
    correction = _table(CoupCorrection)
    return (
        "SELECT c.id, c.dealt_at, c.gaming_day, c.paytable_id, s.decks, k.id, k.kind, "  # noqa: S608
        "e.edges, c.player_cards, c.banker_cards "
        f"FROM {_table(Coup)} c JOIN {_table(Shoe)} s ON s.id = c.shoe_id "
        f"LEFT JOIN {correction} k ON k.coup_id = c.id "
        f"AND k.sequence = (SELECT max(l.sequence) FROM {correction} l WHERE l.coup_id = c.id) "
        f"LEFT JOIN {_table(CoupEdges)} e ON e.coup_id = c.id "
        "WHERE s.table_id = %s AND c.gaming_day BETWEEN %s AND %s AND c.dealt_at >= %s "
        + ("AND c.dealt_at < %s " if bounded else "")
        + "ORDER BY c.dealt_at, c.id"
    )


def _window(table_id: int, days: tuple[dt.date, dt.date], start: dt.datetime, end: dt.datetime | None) -> list[Any]:
    return [table_id, _day(days[0]), _day(days[1]), _at(start)] + ([_at(end)] if end is not None else [])


def play_read(
    table_id: int, seats: list[int], days: tuple[dt.date, dt.date], start: dt.datetime, end: dt.datetime | None
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The table's coups of the gaming days `days` (first, last) dealt in [start, end) (no end: up to
    now), in the order dealt: (id, dealt_at, gaming day, paytable, the shoe's decks, its latest
    correction's id and kind or None, its stored edges as JSON text or None, player cards, banker
    cards as JSON text); and every version of the wagers at `seats` on those coups: (coup, seat,
    bet, amount, result, payout, commission in minor units, the correction that wrote it or None).
    One round trip on PostgreSQL."""
    window = _window(table_id, days, start, end)
    coups, wagers = statements_run(
        [
            (_coups_text(end is not None), window),
            (_wagers_text(connection.vendor, end is not None), [_ids_value(seats), *days_params(days), *window]),
        ]
    )
    return [(pk, _moment(at), *rest) for pk, at, *rest in coups], wagers


def days_params(days: tuple[dt.date, dt.date]) -> list[Any]:
    return [_day(days[0]), _day(days[1])]


def _ids(column: str) -> str:
    """`column` is one of the ids of one parameter (`_ids_value`): an array on PostgreSQL (as
    pit.core.rows.AnyOf), a JSON array on SQLite; one text however many ids."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s::bigint[])"
    return f"{column} IN (SELECT value FROM json_each(%s))"  # noqa: S608


def _ids_value(ids: list[int]) -> str:
    text = ",".join(map(str, ids))
    return "{" + text + "}" if connection.vendor == "postgresql" else "[" + text + "]"


@statement_form
def _wagers_text(vendor: str, bounded: bool) -> str:
    return (
        "SELECT w.coup_id, w.seat, w.bet, w.amount_minor, w.result, w.payout_minor, w.commission_minor, "  # noqa: S608
        f"w.correction_id FROM {_table(Wager)} w WHERE {_ids('w.seat')} AND w.gaming_day BETWEEN %s AND %s "
        f"AND w.coup_id IN (SELECT c.id FROM {_table(Coup)} c WHERE c.shoe_id IN "
        f"(SELECT s.id FROM {_table(Shoe)} s WHERE s.table_id = %s) "
        "AND c.gaming_day BETWEEN %s AND %s AND c.dealt_at >= %s " + ("AND c.dealt_at < %s" if bounded else "") + ")"
    )


@statement_form
def _marks_text() -> str:
    table, columns = _table(RatedTableDay), list(MARKS.values())

    def greatest(column: str) -> str:
        new, old = f"excluded.{column}", f"{table}.{column}"
        return f"{column} = CASE WHEN {new} > {old} THEN {new} ELSE {old} END"

    return (
        f"INSERT INTO {table} (table_id, gaming_day, {', '.join(columns)}) VALUES (%s, %s, %s, %s, %s, %s, %s) "  # noqa: S608
        f"ON CONFLICT (table_id, gaming_day) DO UPDATE SET {', '.join(greatest(column) for column in columns)}"
    )


def refresh_write(table_id: int, day: dt.date, ratings: list[SessionRating], marks: dict[str, int] | None) -> None:
    """The ratings written whole, each over its session's earlier one (one statement, whose one
    parameter is the rows as JSON: no placeholder per value to bind; `refreshed_at` is now), and the
    table-day's marks moved up to `marks` (kind -> highest id read; a mark never moves back, the row
    inserted at the first refresh). One round trip on PostgreSQL."""
    statements: list[tuple[str, list[Any]] | None] = []
    if ratings:
        statements.append(_ratings_statement(ratings))
    if marks is not None:
        statements.append((_marks_text(), [table_id, _day(day), *(marks.get(kind, 0) for kind in MARKS)]))
    if statements:
        statements_run(statements)


@statement_form
def _ratings_text(vendor: str) -> tuple[str, list[tuple[str, str]]]:
    fields = list(SessionRating._meta.concrete_fields)
    columns = [cast(str, field.column) for field in fields]
    quoted = [connection.ops.quote_name(column) for column in columns]
    table = _table(SessionRating)
    if vendor == "postgresql":
        source = f"SELECT {', '.join(quoted)} FROM json_populate_recordset(NULL::{table}, %s)"  # noqa: S608
    else:  # WHERE true: SQLite's parser reads ON CONFLICT after a SELECT only so
        values = ", ".join(f"json_extract(value, '$.{column}')" for column in columns)
        source = f"SELECT {values} FROM json_each(%s) WHERE true"  # noqa: S608
    pk = connection.ops.quote_name(cast(str, SessionRating._meta.pk.column))
    updates = ", ".join(f"{column} = excluded.{column}" for column in quoted if column != pk)
    text = f"INSERT INTO {table} ({', '.join(quoted)}) {source} ON CONFLICT ({pk}) DO UPDATE SET {updates}"  # noqa: S608
    kinds = [(field.attname, field.get_internal_type()) for field in fields]
    return text, [(column, kind) for column, (_attname, kind) in zip(columns, kinds, strict=True)]


def _json_value(value: Any, kind: str) -> Any:
    if value is None or kind == "JSONField":
        return value
    if kind == "DateTimeField":
        return (
            connection.ops.adapt_datetimefield_value(value) if connection.vendor != "postgresql" else value.isoformat()
        )
    if kind in ("DateField", "DecimalField"):
        return str(value)
    return value


_CONVERTED = ("DateTimeField", "DateField", "DecimalField")  # what JSON holds as text (`_json_value`)


def _ratings_statement(ratings: list[SessionRating]) -> tuple[str, list[Any]]:
    text, columns = _ratings_text(connection.vendor)
    now = timezone.now()
    for rating in ratings:
        rating.refreshed_at = now
    fields = [
        (column, field.attname, kind)
        for field, (column, kind) in zip(SessionRating._meta.concrete_fields, columns, strict=True)
    ]
    plain = [(column, attname) for column, attname, kind in fields if kind not in _CONVERTED]
    converted = [(column, attname, kind) for column, attname, kind in fields if kind in _CONVERTED]
    rows = []
    for rating in ratings:
        values = rating.__dict__  # every concrete field's value, by attname (a rating built whole)
        row = {column: values[attname] for column, attname in plain}
        for column, attname, kind in converted:
            row[column] = _json_value(values[attname], kind)
        rows.append(row)
    return text, [json.dumps(rows)]
