"""The commission ledger refuses UPDATE and DELETE in the database, whatever the client."""

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from pit.ledger.models import CommissionEntry
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db

TABLE = CommissionEntry._meta.db_table


@pytest.fixture
def entry():
    shoe = factories.shoe()
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    return CommissionEntry.objects.get()


def assert_unchanged(entry):
    assert list(CommissionEntry.objects.values_list("pk", "amount_minor", "note")) == [(entry.pk, 500, "")]


def refused_by_the_database():
    """Both backends report the trigger's refusal as an integrity error naming the ledger."""
    return pytest.raises(IntegrityError, match="append-only")


def test_orm_update_is_refused(entry):
    with refused_by_the_database(), transaction.atomic():
        CommissionEntry.objects.filter(pk=entry.pk).update(amount_minor=1)
    assert_unchanged(entry)


def test_orm_save_of_an_existing_entry_is_refused(entry):
    entry.note = "edited"
    with refused_by_the_database(), transaction.atomic():
        entry.save()
    assert_unchanged(entry)


def test_orm_delete_is_refused(entry):
    with refused_by_the_database(), transaction.atomic():
        CommissionEntry.objects.filter(pk=entry.pk).delete()
    with refused_by_the_database(), transaction.atomic():
        entry.delete()
    assert_unchanged(entry)


def test_raw_sql_update_and_delete_are_refused(entry):
    for sql in (
        f"UPDATE {TABLE} SET amount_minor = 0 WHERE id = %s",
        f"UPDATE {TABLE} SET note = 'x' WHERE id = %s",
        f"DELETE FROM {TABLE} WHERE id = %s",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql, [entry.pk])
    assert_unchanged(entry)


def test_insert_is_still_allowed(entry):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {TABLE}")
        assert cursor.fetchone() == (1,)
    CommissionEntry.objects.create(
        shoe_id=entry.shoe_id,
        seat=1,
        kind="collected",
        collection_reason="player_left",
        currency="USD",
        amount_minor=-500,
    )
    assert CommissionEntry.objects.count() == 2


@pytest.mark.postgres
def test_postgres_trigger_refuses_with_an_integrity_sqlstate(entry):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [TABLE]
        )
        assert (f"{TABLE}_append_only",) in cursor.fetchall()
    for sql in (f"UPDATE {TABLE} SET amount_minor = 0 WHERE id = %s", f"DELETE FROM {TABLE} WHERE id = %s"):
        with pytest.raises(IntegrityError) as caught, transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [entry.pk])
        assert caught.value.__cause__.sqlstate == "23000"
        assert "refused on ledger_commissionentry" in str(caught.value)
    assert_unchanged(entry)


def test_sqlite_triggers_exist():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only; the PostgreSQL variant is marked postgres")
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [TABLE])
        assert sorted(row[0] for row in cursor.fetchall()) == [f"{TABLE}_no_delete", f"{TABLE}_no_update"]
