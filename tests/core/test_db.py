"""pit.core.db: each construct that differs by database answers the same on PostgreSQL and SQLite."""

import psycopg
import pytest
from django.db import connection, transaction
from django.db.models import BigIntegerField, Value

from pit.core.db import advisory_xact_lock, bytewise, sum_of_squares
from pit.shoes.models import Coup
from pit.tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db


def test_sum_of_squares_is_the_exact_sum_of_the_squares():
    shoe = factories.shoe(factories.table("SQ1"))
    for number in range(1, 8):
        factories.coup(shoe, number, ["KH", "5D"], ["9S", "QC"])
    assert Coup.objects.aggregate(squares=sum_of_squares("number"))["squares"] == 1 + 4 + 9 + 16 + 25 + 36 + 49


@pytest.mark.postgres
def test_sum_of_squares_holds_squares_past_bigint_on_postgresql():
    shoe = factories.shoe(factories.table("SQ2"))
    factories.coup(shoe, 1, ["KH", "5D"], ["9S", "QC"])
    factories.coup(shoe, 2, ["KH", "5D"], ["9S", "QC"])
    amount = 3_037_000_500  # its square is past 2**63 - 1
    squares = Coup.objects.annotate(amount=Value(amount, BigIntegerField())).aggregate(
        squares=sum_of_squares("amount")
    )["squares"]
    assert squares == 18_446_744_074_000_500_000  # 2 x 3,037,000,500²


def test_bytewise_orders_codes_as_python_compares_them():
    codes = ["bb1", "BB1", "B-2", "b_1", "Ba", "B1", "a9"]
    for code in codes:
        factories.table(code, open_=False)
    ordered = list(Table.objects.filter(code__in=codes).order_by(bytewise("code")).values_list("code", flat=True))
    assert ordered == sorted(codes) == ["B-2", "B1", "BB1", "Ba", "a9", "b_1", "bb1"]


def test_advisory_lock_is_one_statement_on_postgresql_and_none_on_sqlite(django_assert_num_queries):
    with transaction.atomic(), django_assert_num_queries(2 if connection.vendor == "postgresql" else 0):
        advisory_xact_lock("pit.tests:lock")
        advisory_xact_lock((1, 2), shared=True)


@pytest.fixture
def other_session():
    db = connection.settings_dict
    session = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    )
    yield session
    session.close()


def _try(session, sql: str, params: list) -> bool:
    return session.execute(sql, params).fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_advisory_locks_hold_until_the_transaction_ends(other_session):
    text_exclusive = "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))"
    pair_shared = "SELECT pg_try_advisory_lock_shared(%s, %s)"
    pair_exclusive = "SELECT pg_try_advisory_lock(%s, %s)"
    with transaction.atomic():
        advisory_xact_lock("pit.tests:lock")
        advisory_xact_lock((130999, 7), shared=True)
        assert _try(other_session, text_exclusive, ["pit.tests:lock"]) is False
        assert _try(other_session, pair_shared, [130999, 7]) is True  # shared beside shared
        other_session.execute("SELECT pg_advisory_unlock_shared(%s, %s)", [130999, 7])
        assert _try(other_session, pair_exclusive, [130999, 7]) is False
    assert _try(other_session, text_exclusive, ["pit.tests:lock"]) is True
    assert _try(other_session, pair_exclusive, [130999, 7]) is True
    other_session.execute("SELECT pg_advisory_unlock_all()")
