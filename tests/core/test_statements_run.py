"""pit.core.rows.statements_run: each statement's rows in the order sent, also inside an audit
context (every request and task has one; on PostgreSQL pghistory puts a statement of its own in
front of each and moves the cursor past the results)."""

import pytest
from django.db import connection

from pit.accounts.audit import audit_context
from pit.core.rows import statements_run

pytestmark = pytest.mark.django_db

STATEMENTS = [("SELECT 1", []), None, ("SELECT %s, %s", [2, "two"]), ("SELECT 3 WHERE 1 = %s", [0])]
EXPECTED = [[(1,)], [(2, "two")], []]


def test_the_rows_come_back_in_the_order_sent():
    assert statements_run(STATEMENTS) == EXPECTED


def test_the_rows_come_back_in_the_order_sent_inside_an_audit_context():
    with audit_context(actor="system", task="test"):
        assert statements_run(STATEMENTS) == EXPECTED
    if connection.vendor == "postgresql":
        with audit_context(actor="system", task="test"), connection.cursor() as cursor:
            cursor.execute("SELECT 1; SELECT 2")
            assert cursor.fetchall() == [(2,)], "pghistory no longer moves past the results: the test asks nothing"
