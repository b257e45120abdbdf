"""The commission ledger detail as CSV lines written by PostgreSQL itself (COPY ... TO STDOUT).

The database formats every cell (money as decimal text from the integer minor units, times in the
report's time zone in whole seconds, formula-like text made inert as `csv_safe_text` does), adds
the subtotals with GROUPING SETS and streams the lines; Python only frames them (`renderers`). The
lines are byte for byte those of the Python renderer, which SQLite keeps (tests compare both).

Reads only; on the replica inside `replica_reads()` like every report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from django.conf import settings
from django.db import connections, router
from django.db.models import F
from django.utils import timezone

from pit.core.money import exponent
from pit.core.replica import replica_reads
from pit.ledger.models import CommissionEntry
from pit.shoes.models import Coup, Wager
from pit.tables.models import Table

from .definitions import ReportFilters
from .selectors import shoes_in_range

# csv_safe_text's triggers (renderers.FORMULA_TRIGGERS), as SQL string literals.
_TRIGGERS = "'=', '+', '-', '@', E'\\t', E'\\r'"


def _text(expression: str) -> str:
    """A text cell as csv_safe_text writes it; an empty one is NULL, which COPY writes as nothing
    (it would quote an empty string: "")."""
    risky = f"left({expression}, 1) IN ({_TRIGGERS})"
    return f"CASE WHEN {risky} THEN '''' || {expression} ELSE nullif({expression}, '') END"


def _places(currency: str, alias: str) -> tuple[str, list]:
    """The minor-unit exponent of each table's currency (pit.core.money.exponent) as a SQL expression."""
    params: list = []
    for code in Table.objects.using(alias).order_by().values_list("currency", flat=True).distinct():
        params += [code, exponent(code)]
    cases = " ".join("WHEN %s THEN %s" for _ in range(len(params) // 2))
    return (f"CASE {currency} {cases} ELSE 2 END" if params else "2"), params


def commission_detail_sql(filters: ReportFilters, time_zone: str) -> tuple[str, list]:
    """The report's own SELECT: one row per ledger entry of the shoes in range, raw values, in the
    report's order (table code byte by byte, shoe, seat, entry). What `commission_detail_rows`
    reads; the formatted query below groups it."""
    shoes = (
        shoes_in_range(filters)
        .order_by()
        .values(
            "pk", "sequence", "report_day", "closed_at", "shuffled_at",
            code=F("table__code"), money=F("table__currency"),
        )
    )
    shoes_sql, shoes_params = shoes.query.sql_with_params()
    entry, wager, coup = CommissionEntry._meta.db_table, Wager._meta.db_table, Coup._meta.db_table
    # A shoe without coups takes the gaming day of its closing (or shuffle) moment: gaming_day_for.
    sql = f"""
        WITH shoe AS ({shoes_sql})
        SELECT coalesce(shoe.report_day,
                        (coalesce(shoe.closed_at, shoe.shuffled_at) AT TIME ZONE %s
                         - interval '1 hour' * %s)::date) AS gaming_day,
               shoe.code AS table_code, shoe.sequence AS shoe, e.seat, shoe.money AS currency, e.id AS entry,
               e.kind, e.collection_reason AS reason, e.reverses_id AS reverses, c.number AS coup, w.bet,
               w.amount_minor AS stake, e.amount_minor AS amount, e.recorded_at, e.note
        FROM {entry} e
        JOIN shoe ON shoe.pk = e.shoe_id
        LEFT JOIN {wager} w ON w.id = e.wager_id
        LEFT JOIN {coup} c ON c.id = w.coup_id
    """  # noqa: S608 - table names from the models, values as parameters
    params = [*shoes_params, time_zone, settings.PIT_GAMING_DAY_START_HOUR]
    return sql, params


DETAIL_ORDER = 'ORDER BY shoe.code COLLATE "C", shoe.sequence, e.seat, e.id'


def _money(expression: str) -> str:
    """Integer minor units as the decimal text of `from_minor`: 12550 USD -> 125.50, 127 JPY -> 127."""
    return f"round(({expression})::numeric / 10::numeric ^ d.places, d.places)"


def commission_detail_csv_sql(filters: ReportFilters, time_zone: str, alias: str = "default") -> tuple[str, list]:
    """The CSV lines after the header, as `renderers.csv_chunks` writes them: "detail" lines, a
    subtotal per shoe and per table where its rows end, a total per currency at the end (by code).
    COPY (this) TO STDOUT (FORMAT csv) writes them; the session's TimeZone must be `time_zone`."""
    detail, detail_params = commission_detail_sql(filters, time_zone)
    places, params = _places("raw.currency", alias)
    detail_columns = "d.seat, d.entry, d.kind, d.reason, d.reverses, d.coup, d.bet, d.stake, d.recorded_at, d.note"
    sql = f"""
        SELECT CASE WHEN grouping(d.entry) = 0 THEN 'detail'
                    WHEN grouping(d.shoe) = 0 THEN 'shoe subtotal'
                    WHEN grouping(d.table_code) = 0 THEN 'table subtotal'
                    ELSE 'total' END,
               to_char(d.gaming_day, 'YYYY-MM-DD'), {_text("d.table_code")}, d.shoe, d.seat,
               {_text("d.currency")}, d.entry, {_text("d.kind")}, {_text("d.reason")}, d.reverses, d.coup,
               {_text("d.bet")}, {_money("d.stake")}, {_money("sum(d.amount)")},
               to_char(d.recorded_at, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM'), {_text("d.note")}
        FROM (SELECT raw.*, {places} AS places FROM ({detail}) raw) d
        GROUP BY GROUPING SETS (
            (d.table_code, d.currency, d.places, d.shoe, d.gaming_day, {detail_columns}),
            (d.table_code, d.currency, d.places, d.shoe, d.gaming_day),
            (d.table_code, d.currency, d.places),
            (d.currency, d.places)
        )
        ORDER BY grouping(d.table_code), d.table_code COLLATE "C", grouping(d.shoe), d.shoe,
                 grouping(d.entry), d.seat, d.entry, d.currency COLLATE "C"
    """  # noqa: S608 - built from fixed fragments, values as parameters
    return sql, params + detail_params


class CopyLines(NamedTuple):
    """CSV lines from COPY, each "\\n"-ended (one line per message, a note's own newlines inside)."""

    lines: Iterator[memoryview]
    # True when the COPY has a connection of its own: the caller may use its connection meanwhile
    # (an export's progress). False inside a transaction, whose rows only its own connection sees.
    own_connection: bool


def report_time_zone() -> str | None:
    """The name PostgreSQL knows the report's time zone by, or None (a fixed offset has none)."""
    return getattr(timezone.get_current_timezone(), "key", None)


def commission_detail_csv_lines(filters: ReportFilters) -> CopyLines | None:
    """The report's CSV lines from PostgreSQL, or None where the database cannot write them (SQLite)."""
    with replica_reads():
        alias = router.db_for_read(CommissionEntry) or "default"
    zone = report_time_zone()
    if connections[alias].vendor != "postgresql" or zone is None:
        return None
    sql, params = commission_detail_csv_sql(filters, zone, alias)
    shared = connections[alias].in_atomic_block
    return CopyLines(_copy_out(alias, f"COPY ({sql}) TO STDOUT (FORMAT csv)", params, zone, shared), not shared)


@contextmanager
def _raw_connection(alias: str, shared: bool):
    if shared:
        wrapper = connections[alias]
        wrapper.ensure_connection()
        yield wrapper.connection
        return
    wrapper = connections.create_connection(alias)
    try:
        wrapper.ensure_connection()
        yield wrapper.connection
    finally:
        wrapper.close()


def _copy_out(alias: str, statement: str, params: list, zone: str, shared: bool) -> Iterator[memoryview]:
    with _raw_connection(alias, shared) as raw, raw.cursor() as cursor:
        cursor.execute("SELECT current_setting('TimeZone')")
        (previous,) = cursor.fetchone()
        # Inside the caller's transaction the setting is put back below, or rolled back with it.
        cursor.execute("SELECT set_config('TimeZone', %s, false)", [zone])
        with cursor.copy(statement, params) as copy:
            yield from copy
        if shared:
            cursor.execute("SELECT set_config('TimeZone', %s, false)", [previous])
