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
    in_range = f"SELECT session_id FROM {ratings} WHERE gaming_day BETWEEN %(first)s AND %(last)s"  # noqa: S608
    return (
        "SELECT r.gaming_day, r.currency, p.card_number, "  # noqa: S608
        f"(SELECT t.name FROM {_table(PatronVersion)} v JOIN {_table(Tier)} t ON t.id = v.tier_id "
        "WHERE v.patron_id = r.patron_id ORDER BY v.recorded_at DESC, v.id DESC LIMIT 1), "
        "count(*), count(*) FILTER (WHERE r.estimated), sum(r.seconds_played), sum(r.coups_played), "
        "sum(r.handle_minor), sum(r.theo_minor), sum(r.standard_theo_minor), sum(r.won_minor), "
        "sum(b.amount), sum(c.amount) "
        f"FROM {ratings} r JOIN {_table(Patron)} p ON p.id = r.patron_id "
        + (f"JOIN {_table(Table)} tt ON tt.id = r.table_id " if tables or game else "")
        + "LEFT JOIN (SELECT session_id, sum(CASE WHEN reverses_id IS NULL THEN amount_minor ELSE -amount_minor END) "  # noqa: S608
        f"AS amount FROM {buy_ins} WHERE session_id IN ({in_range}) GROUP BY session_id) b "
        "ON b.session_id = r.session_id "
        f"LEFT JOIN (SELECT session_id, patron_id, sum(amount_minor) AS amount FROM {comps} "
        f"WHERE kind IN (%(earned)s, %(adjusted)s) AND session_id IN ({in_range}) GROUP BY session_id, patron_id) c "
        "ON c.session_id = r.session_id AND c.patron_id = r.patron_id "
        "WHERE r.gaming_day BETWEEN %(first)s AND %(last)s AND r.patron_id IS NOT NULL "
        + ("AND tt.code = ANY(%(tables)s) " if tables else "")
        + ("AND tt.game = %(game)s " if game else "")
        + "GROUP BY r.gaming_day, r.currency, r.patron_id, p.card_number ORDER BY 1, 2, 3"
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
