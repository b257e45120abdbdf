"""Hand-written statements of the reports, each beside the ORM code that does the same on SQLite
(its twin); tests/reports/test_persistence.py holds each pair to the same rows on PostgreSQL."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import connection

from pit.core.rows import statement_form
from pit.players.models import BuyIn, Patron, PatronVersion, Tier
from pit.ratings.models import CompEntry, CompKind, SessionRating
from pit.tables.models import Table


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@statement_form
def _patron_day_text(tables: bool, game: bool) -> str:
    ratings, buy_ins, comps = _table(SessionRating), _table(BuyIn), _table(CompEntry)
    tier = _table(PatronVersion), _table(Tier)
    summed = "seconds_played, coups_played, handle_minor, theo_minor, standard_theo_minor, won_minor"
    nothing = "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"  # session, estimated and the six summed
    # The range's rated sessions of patrons (r), their buy-ins and their patrons' comps joined to them
    # as rows of their own, and all of them grouped once by day, currency and patron (whole numbers
    # and a date: no pre-grouping per session, no text to group by); the card number and the tier
    # (its latest version) joined to the groups, which alone are sorted by card number.
    return (
        "WITH r AS MATERIALIZED (SELECT r.session_id, r.patron_id, r.gaming_day, r.currency, r.estimated, "  # noqa: S608
        + ", ".join(f"r.{column}" for column in summed.split(", "))
        + f" FROM {ratings} r "
        + (f"JOIN {_table(Table)} tt ON tt.id = r.table_id " if tables or game else "")
        + "WHERE r.gaming_day BETWEEN %(first)s AND %(last)s AND r.patron_id IS NOT NULL "
        + ("AND tt.code = ANY(%(tables)s) " if tables else "")
        + ("AND tt.game = %(game)s " if game else "")
        + "), g AS (SELECT gaming_day, currency, patron_id, count(session_id) AS sessions, "  # noqa: S608
        "count(*) FILTER (WHERE estimated) AS estimated, sum(seconds_played) AS seconds, sum(coups_played) AS coups, "
        "sum(handle_minor) AS handle, sum(theo_minor) AS theo, sum(standard_theo_minor) AS standard, "
        "sum(won_minor) AS won, sum(buy_in) AS buy_ins, sum(comp) AS comps FROM ("
        f"SELECT gaming_day, currency, patron_id, session_id, estimated, {summed}, "
        "NULL::bigint AS buy_in, NULL::bigint AS comp FROM r "
        f"UNION ALL SELECT r.gaming_day, r.currency, r.patron_id, {nothing}, "
        "CASE WHEN b.reverses_id IS NULL THEN b.amount_minor ELSE -b.amount_minor END, NULL "
        f"FROM {buy_ins} b JOIN r ON r.session_id = b.session_id "
        f"UNION ALL SELECT r.gaming_day, r.currency, r.patron_id, {nothing}, NULL, c.amount_minor "
        f"FROM {comps} c JOIN r ON r.session_id = c.session_id AND r.patron_id = c.patron_id "
        "WHERE c.kind IN (%(earned)s, %(adjusted)s)) x GROUP BY gaming_day, currency, patron_id) "
        "SELECT g.gaming_day, g.currency, p.card_number, tv.name, g.sessions, g.estimated, g.seconds, g.coups, "
        "g.handle, g.theo, g.standard, g.won, g.buy_ins, g.comps FROM g "
        f"LEFT JOIN (SELECT DISTINCT ON (v.patron_id) v.patron_id, t.name FROM {tier[0]} v "
        f"JOIN {tier[1]} t ON t.id = v.tier_id WHERE v.patron_id IN (SELECT patron_id FROM g) "
        "ORDER BY v.patron_id, v.recorded_at DESC, v.id DESC) tv ON tv.patron_id = g.patron_id "
        f"JOIN {_table(Patron)} p ON p.id = g.patron_id ORDER BY 1, 2, 3"
    )


def patron_day_sums(first: dt.date, last: dt.date, tables: tuple[str, ...], game: str) -> list[tuple[Any, ...]] | None:
    """Per gaming day, currency and patron (card number) of the rated sessions in the range: (day,
    currency, card number, the patron's tier as it stands, sessions, estimated sessions, seconds,
    coups, handle, theo, standard theo, won, buy-ins less reversals, comps the patron earned on them).
    One statement on PostgreSQL; None elsewhere (its twin is the ORM query of
    pit.reports.ratings.patron_day_rows)."""
    if connection.vendor != "postgresql":
        return None
    params: dict[str, Any] = {
        "first": first,
        "last": last,
        "tables": list(tables),
        "game": game,
        "earned": CompKind.EARNED.value,
        "adjusted": CompKind.ADJUSTED.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(_patron_day_text(bool(tables), bool(game)), params)
        return cursor.fetchall()
