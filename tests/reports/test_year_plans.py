"""A year of reports on PostgreSQL, plan by plan: no query of the reports (their rows and their
estimates, table accounting's included) runs a node once per shoe or per coup.

Past ~250 days `shoes_in_range` used to run `pk IN (coups in range)` as a SubPlan once per shoe over
a Materialize of every coup of the year (5,130 loops over 390k rows: 92-145 s). Here a smaller year,
generated in SQL, with `work_mem` at its minimum so that the hashed plans of a small year are
refused to the planner as they are to a large one, and every statement the reports run is
EXPLAIN ANALYZEd: a node repeated more than LOOPS times must be a probe of an index (what a nested
loop join on an index does), never a SubPlan, a Materialize or a scan. (On the code before, the
shoe query ran `Materialize (SubPlan)` 730 times here.)
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pit.reports.catalog import REPORTS
from pit.reports.definitions import ReportFilters, report_lines
from tests.reports.generated_year import FIRST_DAY, YearSize, generate_year

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

SIZE = YearSize(tables=2, days=365, shoes_per_day=1, coups_per_shoe=20, seats=2)  # 730 shoes
LOOPS = 50  # far fewer than the shoes (730) or the coups (14,600); parallel workers loop a node 2-3 times
# A parameterised probe of an index, and Memoize, the cache in front of one (its misses probe).
INDEX_PROBES = {"Index Scan", "Index Only Scan", "Bitmap Index Scan", "Memoize"}
DECLARE = re.compile(r"^DECLARE\s+\S+\s+NO SCROLL CURSOR\s+WITH(?:OUT)? HOLD FOR\s+", re.IGNORECASE)


def _nodes(plan, parent=None):
    yield plan, parent
    for child in plan.get("Plans", ()):
        yield from _nodes(child, plan)


PARTITION = re.compile(r"_(\d{4}_\d{2}|default)$")


def _probe(node) -> bool:
    """An index probe; on PostgreSQL's month partitions (pit.core.partitions) also the Append of a
    probe of every partition, where an empty partition (a month made ahead) is scanned for nothing."""
    kind = node["Node Type"]
    if kind in INDEX_PROBES:
        return True
    if kind == "Seq Scan":
        return bool(PARTITION.search(node.get("Relation Name", ""))) and node.get("Actual Rows", 1) == 0
    return kind == "Append" and all(_probe(child) for child in node.get("Plans", ()))


def looping_nodes(sql: str) -> list[str]:
    """The nodes of the statement's executed plan that ran more than LOOPS times and are not an
    index probe (or are one inside a SubPlan), described for the failure message."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
        (document,) = cursor.fetchone()
    found = []
    for node, _ in _nodes(document[0]["Plan"]):
        loops = node.get("Actual Loops", 0)
        kind = node["Node Type"]
        subplan = node.get("Parent Relationship") == "SubPlan"
        if loops > LOOPS and (subplan or not _probe(node)):
            found.append(f"{kind}{' (SubPlan)' if subplan else ''} on {node.get('Relation Name', '-')} x {loops}")
    return found


@pytest.fixture
def year(db):
    counts = generate_year(SIZE)
    assert (counts["shoes"], counts["coups"], counts["wagers"]) == (730, 14_600, 29_200)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL work_mem = '64kB'")  # the test's transaction only
    return ReportFilters(FIRST_DAY, SIZE.last_day)


def _statements(filters: ReportFilters) -> list[str]:
    """Every SELECT the reports run for the range (rows and estimates), once per distinct text."""
    with CaptureQueriesContext(connection) as queries:
        for report in REPORTS.values():
            report.estimate(filters)
            for _ in report_lines(report, filters):
                pass
    statements = {}
    for query in queries.captured_queries:
        sql = DECLARE.sub("", query["sql"].strip())
        if sql.split(None, 1)[0].upper() in {"SELECT", "WITH"}:
            statements.setdefault(sql, None)
    return list(statements)


def test_no_report_query_runs_a_node_once_per_shoe_over_a_year(year):
    statements = _statements(year)
    assert len(statements) > 10
    assert any("shoes_coup" in sql and "UNION" in sql for sql in statements)  # shoes_in_range was run
    refused = {sql: nodes for sql in statements if (nodes := looping_nodes(sql))}
    assert refused == {}


def test_the_year_reports_what_the_rows_hold(year):
    """The plans are checked on the real reports: a year of shoes is all there (730), each once."""
    lines = list(report_lines(REPORTS["commission"], year))
    shoes = {(line.values["table"], line.values["shoe"]) for line in lines if line.is_detail}
    assert len(shoes) == 730
    total = next(line for line in lines if line.kind == "total")
    with connection.cursor() as cursor:
        cursor.execute("SELECT sum(amount_minor) FROM ledger_commissionentry WHERE kind = 'accrued'")
        (accrued,) = cursor.fetchone()
    assert total.values["accrued"] * 100 == accrued
