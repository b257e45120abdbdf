"""The day's cash check on PostgreSQL: the aggregation and every pattern's arithmetic over the day's
rows in a few statements, so that only what can be a finding reaches Python. The ORM twin is
pit.cash.patterns (SQLite runs it); both build their findings with the same functions of that
module, and tests/cash/test_persistence.py runs both on the same hand-built rows and compares the
findings and their evidence. Design: docs/design/cash.md ("How the check runs").

Amounts in the reporting currency are `amount_minor x rate x 10^-exponent` as PostgreSQL's exact
numeric, as pit.cash.patterns computes them as Decimal."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from pit.cash import patterns
from pit.cash.models import CashRules, CashTransaction, ExchangeRate
from pit.cash.patterns import Found, SessionFigures
from pit.core.db import is_postgresql
from pit.core.gaming_day import current_gaming_day, gaming_day_for
from pit.core.money import _EXPONENTS, exponent
from pit.core.rows import AnyOf, statement_form, values_rows
from pit.players.models import BuyIn, ChipsWalked, SeatSession, SessionEvent, SessionIdentification
from pit.players.selectors import spans_from_events
from pit.shoes.models import Coup, CoupCorrection, Shoe, Wager, WagerResult
from pit.tables.models import Table

WORK_MEM = "64MB"


def findings_of_day(*, day: dt.date, rules: CashRules) -> list[Found]:
    """The day's worksheets and patterns, as pit.cash.patterns.findings_of_day finds them."""
    if not is_postgresql():
        return patterns.findings_of_day(day=day, rules=rules)
    rates = patterns.Rates(rules.reporting_currency)
    with transaction.atomic():
        with connection.cursor() as cursor:  # the day's groups held in memory, not spilled to disk
            cursor.execute(f"SET LOCAL work_mem = '{WORK_MEM}'")
        people, by_patron, at_table, redeemed = _day_cash(day, rules)
        found = [patterns.threshold_found(day, *person) for person in people]
        found += [
            patterns.structuring_found(day, patron_id, direction, threshold, ids, total, rules)
            for patron_id, direction, threshold, ids, total in by_patron
        ]
        found += patterns.at_table_found(day, at_table, rules)
        found += _sessions(day, rules, rates)
        found += _cash_out_for_other(day, redeemed, rules, rates)
    return found


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _scale(column: str, *, float_: bool = False) -> str:
    """The factor from minor units of the currency in `column` to its units (ISO 4217 exponents),
    as exact numeric or, with `float_`, as a float. Most rows are in a currency of two places: one
    hashed IN test sends them to the ELSE, where a CASE of every odd code would compare each code."""
    odd = sorted((code, places) for code, places in _EXPONENTS.items() if places != 2)
    cast = "::float8" if float_ else ""
    whens = " ".join(f"WHEN '{code}' THEN {Decimal(1).scaleb(-places)}{cast}" for code, places in odd)
    codes = ", ".join(f"'{code}'" for code, _ in odd)
    return f"(CASE WHEN {column} IN ({codes}) THEN (CASE {column} {whens} END) ELSE 0.01{cast} END)"


def _rows(sql: str, params: Any) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


@statement_form
def _day_cash_sql() -> str:
    # Names from the models' metadata and the exponents' table only; every value is a parameter.
    cash = _table(CashTransaction)
    amount = f"(c.amount_minor * c.rate::numeric * {_scale('c.currency')})"
    signed = f"(CASE WHEN c.reverses_id IS NULL THEN {amount} ELSE -{amount} END)"
    # The same as a float, to choose the persons worth converting exactly: a float sum is within a
    # billionth of the sum of the amounts' sizes, so a bound that wide never leaves out a person.
    float_ = f"(c.amount_minor * c.rate::float8 * {_scale('c.currency', float_=True)})"
    under = f"""(CASE
        WHEN %(ctr)s > 0 AND {amount} BETWEEN %(ctr)s * %(band)s AND %(ctr)s THEN 'ctr'
        WHEN %(mtl)s > 0 AND {amount} BETWEEN %(mtl)s * %(band)s AND %(mtl)s THEN 'mtl'
    END)"""
    # Neither a reversal nor reversed.
    reversed_not = f"c.id NOT IN (SELECT r.reverses_id FROM {cash} r WHERE r.reverses_id IS NOT NULL)"  # noqa: S608
    stands = f"c.reverses_id IS NULL AND {reversed_not}"
    redeems = f"c.kind = 'chip_redemption' AND {stands}"
    # A float's bounds around every band, a little wide: only rows inside can be just under a
    # threshold, and only they are converted exactly (most of a day's cash is far under every band).
    near = f"{float_} BETWEEN %(low)s AND %(high)s"
    totals = f"""
        COALESCE(sum({signed}) FILTER (WHERE c.direction = 'in'), 0) AS cash_in,
        COALESCE(sum({signed}) FILTER (WHERE c.direction = 'out'), 0) AS cash_out"""
    # Each row's amount as a float computed once (OFFSET 0 keeps the planner from copying the
    # expression into every sum), then the patrons worth converting exactly: over the CTR threshold
    # in or out, or with standing redemptions at the pattern floor. One pass over the day for both.
    day_rows = f"""
        SELECT c.patron_id, c.direction, c.kind, c.reverses_id IS NULL AS forward, c.id, {float_} AS f
        FROM {cash} c WHERE c.gaming_day = %(day)s AND c.patron_id IS NOT NULL OFFSET 0"""  # noqa: S608
    return f"""
        SELECT 'day', g.patron_id, ''::text, NULL::bigint, ''::text, ''::text, NULL::timestamptz,
               x.cash_in, x.cash_out, x.ids, x.redeemed, x.redeemed_ids
        FROM (
            SELECT c.patron_id
            FROM ({day_rows}) c
            GROUP BY c.patron_id
            HAVING sum(CASE WHEN c.forward THEN c.f ELSE -c.f END) FILTER (WHERE c.direction = 'in')
                   > %(ctr_f)s - 1e-9 * (sum(c.f) FILTER (WHERE c.direction = 'in') + %(ctr_f)s)
                OR sum(CASE WHEN c.forward THEN c.f ELSE -c.f END) FILTER (WHERE c.direction = 'out')
                   > %(ctr_f)s - 1e-9 * (sum(c.f) FILTER (WHERE c.direction = 'out') + %(ctr_f)s)
                OR sum(c.f) FILTER (WHERE c.kind = 'chip_redemption' AND c.forward AND {reversed_not})
                   >= %(floor_f)s - 1e-9 * (sum(c.f) FILTER (WHERE c.kind = 'chip_redemption') + %(floor_f)s)
        ) g
        CROSS JOIN LATERAL (
            SELECT {totals}, array_agg(c.id) AS ids,
                   sum({amount}) FILTER (WHERE {redeems}) AS redeemed,
                   array_agg(c.id) FILTER (WHERE {redeems}) AS redeemed_ids
            FROM {cash} c WHERE c.gaming_day = %(day)s AND c.patron_id = g.patron_id
        ) x
        UNION ALL
        SELECT 'person', NULL::bigint, g.description::text, NULL::bigint, ''::text, ''::text, NULL::timestamptz,
               g.cash_in, g.cash_out, g.ids, NULL::numeric, NULL::bigint[]
        FROM (
            SELECT c.description, {totals}, array_agg(c.id) AS ids
            FROM {cash} c WHERE c.gaming_day = %(day)s AND c.patron_id IS NULL GROUP BY c.description
        ) g
        WHERE g.cash_in > %(ctr)s OR g.cash_out > %(ctr)s
        UNION ALL
        SELECT 'patron', u.patron_id, ''::text, NULL::bigint, u.direction::text, u.under, NULL::timestamptz,
               sum(u.amount), NULL::numeric, array_agg(u.id), NULL::numeric, NULL::bigint[]
        FROM (
            SELECT c.id, c.patron_id, c.direction, c.gaming_day, {amount} AS amount, {under} AS under
            FROM {cash} c
            WHERE c.gaming_day BETWEEN %(first)s AND %(day)s AND c.patron_id IS NOT NULL AND {near}
              AND {stands}
        ) u
        WHERE u.under IS NOT NULL
        GROUP BY u.patron_id, u.direction, u.under
        HAVING count(*) >= %(count)s AND bool_or(u.gaming_day = %(day)s) AND sum(u.amount) >= %(sar)s
        UNION ALL
        SELECT 'table', u.patron_id, u.description::text, u.table_id, 'in', u.under, u.at,
               u.amount, NULL::numeric, ARRAY[u.id], NULL::numeric, NULL::bigint[]
        FROM (
            SELECT c.id, c.patron_id, c.description, c.table_id, c.at, {amount} AS amount, {under} AS under
            FROM {cash} c
            WHERE c.gaming_day = %(day)s AND c.table_id IS NOT NULL AND c.direction = 'in' AND {near}
              AND {stands}
        ) u
        WHERE u.under = 'ctr'
    """  # noqa: S608


def _day_cash(day: dt.date, rules: CashRules):
    """One statement over the transactions of the day (and of the days structuring looks back on):
    the persons over the CTR threshold, each patron's groups of transactions just under a threshold
    that make structuring, the day's buy-ins just under the CTR threshold at each table (oldest
    first: the window is walked in Python, as the twin walks it), and the patrons whose standing
    redemptions reach the pattern floor."""
    limits = [limit for limit in (rules.ctr_threshold, rules.mtl_threshold) if limit > 0]
    low = min((limit * rules.structuring_band for limit in limits), default=Decimal(1))
    high = max(limits, default=Decimal(0))
    params = {
        "low": float(low) * (1 - 1e-9),
        "high": float(high) * (1 + 1e-9),
        "first": day - dt.timedelta(days=rules.structuring_days - 1),
        "day": day,
        "ctr": rules.ctr_threshold,
        "ctr_f": float(rules.ctr_threshold),
        "floor_f": float(rules.pattern_floor),
        "mtl": rules.mtl_threshold,
        "band": rules.structuring_band,
        "count": rules.structuring_count,
        "sar": rules.sar_threshold,
    }
    people, by_patron, redeemed = [], [], []
    table_rows = []
    for (
        branch,
        patron_id,
        text,
        table_id,
        direction,
        under,
        at,
        first,
        second,
        ids,
        redeemed_total,
        redeemed_ids,
    ) in _rows(_day_cash_sql(), params):
        if branch == "day":  # a patron's day: over the CTR threshold, or redeeming at the pattern floor, or both
            if first > rules.ctr_threshold or second > rules.ctr_threshold:
                people.append((patron_id, text, first, second, ids))
            if redeemed_total is not None and redeemed_total >= rules.pattern_floor:
                redeemed.append((patron_id, redeemed_total, redeemed_ids))
        elif branch == "person":
            people.append((patron_id, text, first, second, ids))
        elif branch == "patron":
            by_patron.append((patron_id, direction, under, ids, first))
        else:
            table_rows.append(
                ({"id": ids[0], "at": at, "patron_id": patron_id, "description": text, "table_id": table_id}, first)
            )
    by_patron.sort(key=lambda group: group[:3])
    table_rows.sort(key=lambda item: (item[0]["at"], item[0]["id"]))
    at_table: dict[int, list[tuple[dict, Decimal]]] = defaultdict(list)
    for row, amount in table_rows:
        at_table[row["table_id"]].append((row, amount))
    redeemed.sort()
    return people, by_patron, dict(sorted(at_table.items())), redeemed


@statement_form
def _sessions_sql() -> str:
    cash = _table(CashTransaction)
    rate = (
        f"SELECT r.rate FROM {_table(ExchangeRate)} r WHERE r.day <= %(day)s AND r.currency = n.currency "  # noqa: S608
        "AND r.reporting_currency = %(reporting)s ORDER BY r.day DESC LIMIT 1"
    )

    def own(session: str, currency: str) -> str:
        # The rate of the session's latest cash in of `currency`, as pit.cash.patterns.Rates reads it:
        # none in the reporting currency itself (its rate is 1), so most sessions read no row here.
        return (
            f"SELECT c.rate FROM {cash} c WHERE {currency} <> %(reporting)s AND c.session_id = {session} "  # noqa: S608
            f"AND c.currency = {currency} AND c.direction = 'in' AND c.reporting_currency = %(reporting)s "
            "ORDER BY c.at DESC, c.id DESC LIMIT 1"
        )

    # The day's sessions by their buy-ins first; only those at the pattern floor are asked whether
    # they are finished (most of a day's sessions are far under it).
    return f"""
        WITH n AS (
            SELECT b.session_id AS id,
                   sum(CASE WHEN b.reverses_id IS NULL THEN b.amount_minor ELSE -b.amount_minor END) AS chips_in,
                   CASE WHEN min(b.currency) = max(b.currency) THEN min(b.currency) ELSE (
                       SELECT l.currency FROM {_table(BuyIn)} l WHERE l.session_id = b.session_id
                       ORDER BY l.at DESC, l.id DESC LIMIT 1
                   ) END AS currency  -- of its latest buy-in
            FROM {_table(BuyIn)} b JOIN {_table(SeatSession)} d ON d.id = b.session_id
            WHERE d.gaming_day = %(day)s
            GROUP BY b.session_id
        ), noted AS MATERIALIZED (
            SELECT n.id, n.chips_in FROM n
            WHERE n.chips_in * (COALESCE(
                ({own("n.id", "n.currency")}), CASE WHEN n.currency = %(reporting)s THEN '1' ELSE ({rate}) END
            ))::numeric * {_scale("n.currency")} >= %(floor)s
            AND EXISTS (SELECT 1 FROM {_table(SessionEvent)} e WHERE e.session_id = n.id AND e.kind = 'stand')
        )
        SELECT s.id, s.table_id, s.seat, s.started_at, s.gaming_day, s.patron_id, s.description,
               tb.currency, n.chips_in,
               COALESCE((SELECT sum(CASE WHEN w.reverses_id IS NULL THEN w.amount_minor ELSE -w.amount_minor END)
                         FROM {_table(ChipsWalked)} w WHERE w.session_id = s.id), 0),
               (SELECT i.patron_id FROM {_table(SessionIdentification)} i WHERE i.session_id = s.id),
               ({own("s.id", "tb.currency")}), COALESCE(cash.ids, '{{}}'), COALESCE(cash.amount, 0)
        FROM noted n
        JOIN {_table(SeatSession)} s ON s.id = n.id
        JOIN {_table(Table)} tb ON tb.id = s.table_id
        LEFT JOIN LATERAL (
            SELECT array_agg(c.id) AS ids,
                   sum(CASE WHEN c.reverses_id IS NULL THEN 1 ELSE -1 END
                       * c.amount_minor * c.rate::numeric * {_scale("c.currency")}) AS amount
            FROM {cash} c WHERE c.session_id = s.id AND c.direction = 'in'
        ) cash ON true
    """  # noqa: S608


@statement_form
def _wagers_sql() -> str:
    later = (
        f"SELECT 1 FROM {_table(CoupCorrection)} k WHERE k.coup_id = w.coup_id AND k.sequence > "  # noqa: S608
        f"COALESCE((SELECT x.sequence FROM {_table(CoupCorrection)} x WHERE x.id = w.correction_id), 0)"
    )
    return f"""
        SELECT sp.session_id, w.id, w.amount_minor, w.result, w.payout_minor, w.commission_minor
        FROM unnest(%(sessions)s::bigint[], %(tables)s::bigint[], %(seats)s::int[], %(starts)s::timestamptz[],
                    %(ends)s::timestamptz[]) AS sp(session_id, table_id, seat, start_at, end_at)
        JOIN {_table(Shoe)} sh ON sh.table_id = sp.table_id
        JOIN {_table(Coup)} c ON c.shoe_id = sh.id AND c.dealt_at >= sp.start_at
            AND (sp.end_at IS NULL OR c.dealt_at < sp.end_at) AND c.gaming_day BETWEEN %(first)s AND %(last)s
        JOIN {_table(Wager)} w ON w.coup_id = c.id AND w.seat = sp.seat AND w.gaming_day BETWEEN %(first)s AND %(last)s
        WHERE NOT EXISTS ({later})
    """  # noqa: S608


def _net_minor(result: str, amount: int, payout: int, commission: int) -> int:
    """pit.cash.patterns._net_minor of a wager read as plain values."""
    if result == WagerResult.WIN:
        return payout - commission
    if result == WagerResult.LOSE:
        return -amount
    return -commission


def _wagers(noted: list[tuple]) -> dict[int, list[tuple[int, int, int]]]:
    """The standing wagers of the sessions `noted` as (id, stake, the player's result), in one
    statement: each session's played spans (from its events, as pit.players.selectors reads them)
    joined to the coups its table dealt in them at its seat."""
    events: dict[int, list] = {row[0]: [] for row in noted}
    rows = SessionEvent.objects.filter(AnyOf(F("session_id"), list(events))).order_by("session_id", "at", "id")
    for session_id, kind, at in values_rows(rows.values_list("session_id", "kind", "at")):
        events[session_id].append((kind, at))
    spans: dict[str, list] = {"sessions": [], "tables": [], "seats": [], "starts": [], "ends": []}
    for session_id, table_id, seat, started_at, *_ in noted:
        for start, end in spans_from_events(started_at, events[session_id]):
            spans["sessions"].append(session_id)
            spans["tables"].append(table_id)
            spans["seats"].append(seat)
            spans["starts"].append(start)
            spans["ends"].append(end)
    found: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    if not spans["sessions"]:
        return found
    # The gaming days the spans reach, from the earliest start to the latest end (or today, for a
    # span still open): they bound the scan of the coups and wagers.
    first = gaming_day_for(min(spans["starts"]))
    ended = [end for end in spans["ends"] if end is not None]
    lasts = [gaming_day_for(max(ended))] if ended else []
    if len(ended) < len(spans["ends"]):
        lasts.append(max(current_gaming_day(), first))
    last = max(lasts)
    for session_id, pk, amount, result, payout, commission in _rows(
        _wagers_sql(), {**spans, "first": first, "last": last}
    ):
        found[session_id].append((pk, amount, _net_minor(result, amount, payout, commission)))
    return found


def _sessions(day: dt.date, rules: CashRules, rates: patterns.Rates) -> list[Found]:
    """Minimal gaming and chip walking: the day's finished sessions whose buy-ins reach the pattern
    floor (chosen in the statement, as pit.cash.patterns._of_note chooses them), with their walks,
    identification and cash in; their wagers in one more statement."""
    noted = _rows(_sessions_sql(), {"day": day, "reporting": rules.reporting_currency, "floor": rules.pattern_floor})
    wagers = _wagers(noted)
    found = []
    for (
        session_id,
        table_id,
        _seat,
        _started_at,
        gaming_day,
        patron_id,
        description,
        currency,
        chips_in,
        walked,
        identified,
        own_rate,
        ids,
        cash_in,
    ) in sorted(noted):
        rate = Decimal(own_rate).scaleb(-exponent(currency)) if own_rate is not None else rates.of(gaming_day, currency)
        if rate is None:
            continue
        found += patterns.session_found(
            SessionFigures(
                session_id=session_id,
                table_id=table_id,
                currency=currency,
                rate=rate,
                chips_in=int(chips_in),
                wagers=wagers[session_id],
                walked=int(walked),
                patron_id=patron_id or identified,
                description=description,
                transactions=list(ids),
                cash_in=cash_in,
            ),
            rules,
        )
    return found


@statement_form
def _owners_sql() -> str:
    return f"""
        SELECT COALESCE(s.patron_id, i.patron_id), s.id, s.gaming_day, tb.currency,
               COALESCE((SELECT sum(CASE WHEN w.reverses_id IS NULL THEN w.amount_minor ELSE -w.amount_minor END)
                         FROM {_table(ChipsWalked)} w WHERE w.session_id = s.id), 0)
        FROM {_table(SeatSession)} s
        JOIN {_table(Table)} tb ON tb.id = s.table_id
        LEFT JOIN {_table(SessionIdentification)} i ON i.session_id = s.id
        WHERE s.gaming_day BETWEEN %(first)s AND %(day)s
          AND COALESCE(s.patron_id, i.patron_id) IN (SELECT unnest(%(patrons)s::bigint[]))
    """  # noqa: S608


def _cash_out_for_other(
    day: dt.date, redeemed: list[tuple[int, Decimal, list[int]]], rules: CashRules, rates: patterns.Rates
) -> list[Found]:
    """The redeeming patrons (their standing redemptions at the pattern floor or more) against the
    chips walked from their sessions of the day and the day before, each converted at its day's rate."""
    if not redeemed:
        return []
    sessions: dict[int, list[int]] = defaultdict(list)
    walked: dict[int, Decimal] = defaultdict(Decimal)
    params = {"first": day - dt.timedelta(days=1), "day": day, "patrons": [patron_id for patron_id, *_ in redeemed]}
    for owner, session_id, gaming_day, currency, minor in _rows(_owners_sql(), params):
        sessions[owner].append(session_id)
        walked[owner] += int(minor) * (rates.of(gaming_day, currency) or Decimal(0))
    found = []
    for patron_id, total, ids in redeemed:
        cash_out = patterns.cash_out_found(day, patron_id, ids, total, sessions[patron_id], walked[patron_id], rules)
        if cash_out is not None:
            found.append(cash_out)
    return found
