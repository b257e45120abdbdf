"""The commission ledger detail as CSV lines written by PostgreSQL itself (COPY ... TO STDOUT).

The database formats every cell (money as decimal text from the integer minor units, times in the
report's time zone in whole seconds, formula-like text made inert as `csv_safe_text` does), adds
the subtotals with GROUPING SETS and streams the lines; Python only frames them (`renderers`). The
lines are byte for byte those of the Python renderer, which SQLite keeps (tests compare both).

Reads only; on the replica inside `replica_reads()` like every report.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import NamedTuple

from django.conf import settings
from django.db import connections, router
from django.db.models import F
from django.utils import timezone

from pit.core.db import is_postgresql
from pit.core.money import minor_unit
from pit.core.replica import replica_reads
from pit.ledger.models import CommissionEntry
from pit.shoes.models import Coup, Wager
from pit.tables.models import Table

from .definitions import ReportFilters
from .renderers import FORMULA_TRIGGERS
from .selectors import DAYS, shoes_in_range

# csv_safe_text's triggers (renderers.FORMULA_TRIGGERS) as code points: a first character's ascii().
_TRIGGERS = ", ".join(str(ord(trigger)) for trigger in FORMULA_TRIGGERS)


def _text(expression: str) -> str:
    """A text cell as csv_safe_text writes it; an empty one is NULL, which COPY writes as nothing
    (it would quote an empty string: "")."""
    risky = f"ascii({expression}) IN ({_TRIGGERS})"
    return f"CASE WHEN {risky} THEN '''' || {expression} ELSE nullif({expression}, '') END"


def _minor_unit(currency: str, currencies: Iterable[str]) -> tuple[str, list]:
    """Each currency's minor unit (pit.core.money.minor_unit: 0.01, 1 for yen) as a SQL numeric whose
    scale is the currency's places: minor units times it are `from_minor`'s text."""
    params: list = []
    for code in sorted(currencies):
        params += [code, minor_unit(code)]
    cases = " ".join("WHEN %s THEN %s::numeric" for _ in range(len(params) // 2))
    return (f"CASE {currency} {cases} ELSE 0.01 END" if params else "0.01"), params


def _shoes(filters: ReportFilters, time_zone: str, currencies: Iterable[str]) -> tuple[str, list]:
    """`shoes_in_range` with each shoe's gaming day (its last coup's, from the key `report_day` reads; a
    shoe without coups takes the gaming day of its closing or shuffle moment, as `gaming_day_for`) and
    its currency's minor unit, once a shoe."""
    shoes = (
        shoes_in_range(filters)
        .order_by()
        .values(
            "pk",
            "sequence",
            "last_coup",
            "closed_at",
            "shuffled_at",
            code=F("table__code"),
            money=F("table__currency"),
        )
    )
    shoes_sql, shoes_params = shoes.query.sql_with_params()
    unit, unit_params = _minor_unit("s.money", currencies)
    sql = f"""
        SELECT s.pk, s.sequence, s.code, s.money, {unit} AS unit,
               coalesce(DATE '0001-01-01' + (s.last_coup %% {DAYS} - 1)::integer,
                        (coalesce(s.closed_at, s.shuffled_at) AT TIME ZONE %s
                         - interval '1 hour' * %s)::date) AS gaming_day
        FROM ({shoes_sql}) s
    """  # noqa: S608 - built from fixed fragments, values as parameters
    return sql, [*unit_params, time_zone, settings.PIT_GAMING_DAY_START_HOUR, *shoes_params]


# One row per ledger entry of the shoes in range, raw values (`commission_detail_rows` reads the
# same). Table codes and currencies compare byte by byte (collation "C"), as Python compares them.
_DETAIL = """
    SELECT shoe.gaming_day, shoe.code COLLATE "C" AS table_code, shoe.sequence AS shoe, e.seat,
           shoe.money COLLATE "C" AS currency, e.id AS entry, e.kind, e.collection_reason AS reason,
           e.reverses_id AS reverses, c.number AS coup, w.bet, w.amount_minor AS stake, e.amount_minor AS amount,
           e.recorded_at, e.note, shoe.unit
    FROM {entry} e
    JOIN shoe ON shoe.pk = e.shoe_id
    LEFT JOIN {wager} w ON w.id = e.wager_id
    LEFT JOIN {coup} c ON c.id = w.coup_id
"""
# The subtotal per shoe and per table and the total per currency, in the columns of _DETAIL. What a
# line sums is NULL from the level down (a shoe subtotal has no seat, a total no table), and NULL
# sorts after every value: ordered as the detail rows, each comes right after the rows it closes.
_SUBTOTALS = """
    SELECT shoe.gaming_day, shoe.code, shoe.sequence, NULL, shoe.money, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
           sum(per_shoe.amount), NULL, NULL, shoe.unit
    FROM (SELECT shoe_id, sum(amount_minor) AS amount FROM {entry} WHERE shoe_id IN (SELECT pk FROM shoe)
          GROUP BY shoe_id) per_shoe
    JOIN shoe ON shoe.pk = per_shoe.shoe_id
    GROUP BY GROUPING SETS ((shoe.money, shoe.unit, shoe.code, shoe.sequence, shoe.gaming_day),
                            (shoe.money, shoe.unit, shoe.code), (shoe.money, shoe.unit))
"""
_ORDER = "ORDER BY table_code, shoe, seat, entry, currency"
_TABLES = {"entry": CommissionEntry._meta.db_table, "wager": Wager._meta.db_table, "coup": Coup._meta.db_table}


def commission_detail_sql(filters: ReportFilters, time_zone: str, currencies: Iterable[str]) -> tuple[str, list]:
    """The report's own SELECT: one row per ledger entry of the shoes in range, raw values, in the
    report's order (table code byte by byte, shoe, seat, entry). COPY of it is what the export is
    measured against (tests/benchmarks/bench_reports.py)."""
    shoes, params = _shoes(filters, time_zone, currencies)
    columns = "gaming_day, table_code, shoe, seat, currency, entry, kind, reason, reverses, coup, bet, stake, amount, "
    sql = f"""
        WITH shoe AS MATERIALIZED ({shoes})
        SELECT {columns} recorded_at, note FROM ({_DETAIL.format(**_TABLES)}) detail {_ORDER}
    """  # noqa: S608 - built from fixed fragments, values as parameters
    return sql, params


def _money(expression: str) -> str:
    """Integer minor units as the decimal text of `from_minor`: 12550 USD -> 125.50, 127 JPY -> 127."""
    return f"({expression})::numeric * line.unit"


def commission_detail_csv_sql(filters: ReportFilters, time_zone: str, currencies: Iterable[str]) -> tuple[str, list]:
    """The CSV lines after the header, as `renderers.csv_chunks` writes them: "detail" lines, a
    subtotal per shoe and per table where its rows end, a total per currency at the end (by code).
    COPY (this) TO STDOUT (FORMAT csv) writes them; the session's TimeZone must be `time_zone`.
    Sorted on the raw values, formatted after (the subquery's order is kept)."""
    shoes, params = _shoes(filters, time_zone, currencies)
    sql = f"""
        WITH shoe AS MATERIALIZED ({shoes})
        SELECT CASE WHEN line.entry IS NOT NULL THEN 'detail' WHEN line.shoe IS NOT NULL THEN 'shoe subtotal'
                    WHEN line.table_code IS NOT NULL THEN 'table subtotal' ELSE 'total' END,
               to_char(line.gaming_day, 'YYYY-MM-DD'), {_text("line.table_code")}, line.shoe, line.seat,
               {_text("line.currency")}, line.entry, {_text("line.kind")}, {_text("line.reason")}, line.reverses,
               line.coup, {_text("line.bet")}, {_money("line.stake")}, {_money("line.amount")},
               to_char(line.recorded_at, 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM'), {_text("line.note")}
        FROM ({_DETAIL.format(**_TABLES)} UNION ALL {_SUBTOTALS.format(**_TABLES)} {_ORDER}) line
    """  # noqa: S608 - built from fixed fragments, values as parameters
    return sql, params


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
    if not is_postgresql(alias) or zone is None:
        return None
    shared = connections[alias].in_atomic_block
    return CopyLines(_copy_out(alias, filters, zone, shared), not shared)


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


def _copy_out(alias: str, filters: ReportFilters, zone: str, shared: bool) -> Iterator[memoryview]:
    with _raw_connection(alias, shared) as raw, raw.cursor() as cursor:
        tables = Table._meta.db_table
        cursor.execute(f"SELECT current_setting('TimeZone'), array(SELECT DISTINCT currency FROM {tables})")  # noqa: S608
        previous, currencies = cursor.fetchone()
        # The report's zone for to_char. On the caller's connection only for its transaction (put
        # back below; a COPY abandoned half-way leaves it to the transaction's end, never beyond).
        cursor.execute("SELECT set_config('TimeZone', %s, %s)", [zone, shared])
        sql, params = commission_detail_csv_sql(filters, zone, currencies)
        with cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)", params) as copy:
            yield from copy
        if shared:
            cursor.execute("SELECT set_config('TimeZone', %s, true)", [previous])
