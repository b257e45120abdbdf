"""Facts of record are insert-only (pit.core.immutable): every fact table refuses UPDATE (but for
the columns services change), DELETE and TRUNCATE in the database, and on SQLite REPLACE and
UPSERT; the ORM refuses first; on PostgreSQL the runtime role lacks the privileges besides. The
services' own later changes (a shoe's close and counters, a violation's review and clearing, a
reconciliation's explanation) still work, as the runtime role too."""

from contextlib import contextmanager
from decimal import Decimal
from io import StringIO

import pghistory.models
import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.utils import timezone

from pit.compliance.models import RuleViolation, ViolationStatus
from pit.compliance.services import violation_acknowledge, violation_record, violations_clear_missing
from pit.core.actors import Actor
from pit.core.immutable import Fact, ImmutableRecordError, protected_tables, runtime_privileges_sql, unprotect_sql
from pit.ledger.models import Reconciliation, ReconciliationStatus
from pit.ledger.services import commission_collect, reconciliation_explain, shoe_reconcile
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import shoe_close
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db

# model -> (a column no one may change, a value to try): what a tamperer would rewrite.
TAMPER = {
    "shoes.Shoe": ("decks", 7),
    "shoes.Coup": ("winner", "player"),
    "shoes.Wager": ("payout_minor", 99_999),
    "ledger.CommissionEntry": ("amount_minor", 1),
    "ledger.BoxCount": ("counted_minor", 99_999),
    "ledger.Reconciliation": ("counted_minor", 99_999),
    "ledger.ReconciliationSeat": ("counted_minor", 99_999),
    "compliance.RuleViolation": ("code", "nothing_to_see"),
    "ledger.ReconciliationAuditEvent": ("pgh_label", "tampered"),
    "compliance.RuleViolationAuditEvent": ("pgh_label", "tampered"),
    "tables.TableAuditEvent": ("pgh_label", "tampered"),
    "paytables.PaytableConfigurationAuditEvent": ("pgh_label", "tampered"),
    "accounts.UserAuditEvent": ("pgh_label", "tampered"),
}
# The only columns that change after insert, table by table.
UPDATABLE = {
    "shoes_shoe": ("status", "closed_at", "close_recorded_at", "cards_seen", "cards_dealt", "coups_recorded"),
    "ledger_reconciliation": ("status", "explanation", "explained_by_id", "explained_at"),
    "compliance_ruleviolation": (
        "cleared_at",
        "status",
        "status_note",
        "status_changed_by_id",
        "status_changed_at",
        "message",
    ),
}
# Tables with a unique key besides the primary key: a REPLACE over it would delete the old row.
UNIQUE_KEYED = {
    "shoes.Shoe",
    "shoes.Coup",
    "shoes.Wager",
    "ledger.BoxCount",
    "ledger.Reconciliation",
    "ledger.ReconciliationSeat",
    "compliance.RuleViolation",
}
LABELS = sorted(TAMPER)


@pytest.fixture
def record(django_user_model):
    """A shoe played, collected, closed with a variance and reconciled: a row in every fact table."""
    django_user_model.objects.create_user("pitboss", password="x")
    shoe = factories.shoe()
    factories.coup(
        shoe,
        1,
        *hands.BANKER_NATURAL,
        wagers=[
            factories.wager(1, "banker", "100"),
            factories.wager(2, "banker", "100"),
        ],
    )
    commission_collect(shoe=shoe, seat=2)
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("4.00"))])
    shoe_reconcile(shoe_id=shoe.pk)
    return shoe


def model_of(label):
    return apps.get_model(label)


def first_row(label):
    return model_of(label).objects.order_by("pk").first()


def snapshot(label):
    return list(model_of(label).objects.order_by("pk").values())


@contextmanager
def refused_by_the_database(table, column=None):
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        yield
    message = str(caught.value)
    assert "refused" in message and table in message, message
    if column is not None:
        assert f"{table}.{column}" in message, message


def tamper_column(label):
    field, value = TAMPER[label]
    return model_of(label)._meta.get_field(field).column, value


def test_every_fact_table_is_protected_with_exactly_its_updatable_columns():
    expected = {model_of(label)._meta.db_table: UPDATABLE.get(model_of(label)._meta.db_table, ()) for label in LABELS}
    protected = protected_tables(connection)
    assert {table: protected.get(table) for table in expected} == expected


def test_every_fact_model_and_audit_event_model_is_protected():
    """A new Fact model, or a new audit event model, fails here until a migration protects it
    (also after Django rebuilt its table on SQLite, which drops the triggers)."""
    protected = protected_tables(connection)
    for model in apps.get_models():
        if issubclass(model, Fact):
            columns = tuple(model._meta.get_field(name).column for name in model.fact_updatable)
            assert protected.get(model._meta.db_table) == columns, model._meta.label
        elif issubclass(model, pghistory.models.Event):
            assert protected.get(model._meta.db_table) == (), model._meta.label


def test_the_printed_protection_sql_protects_a_table_as_its_model_says():
    """`manage.py fact_protection_sql --replace` (what a new fact table's migration freezes): run on
    the database, the table is protected with its model's updatable columns, the others as before."""
    before = protected_tables(connection)
    with connection.cursor() as cursor:
        for statement in unprotect_sql(connection.vendor, table="shoes_shoe"):
            cursor.execute(statement)
    assert "shoes_shoe" not in protected_tables(connection)
    out = StringIO()
    call_command("fact_protection_sql", "shoes.Shoe", "--replace", vendor=connection.vendor, stdout=out)
    with connection.cursor() as cursor:
        for statement in connection.ops.prepare_sql_script(out.getvalue()):
            cursor.execute(statement)
    assert protected_tables(connection) == before
    assert before["shoes_shoe"] == UPDATABLE["shoes_shoe"]


def test_sqlite_update_triggers_cover_every_column_added_since():
    """SQLite's UPDATE trigger lists the immutable columns when it is made: a column added to a
    table with updatable columns later needs its triggers made again (PostgreSQL's covers it by itself)."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        for table, updatable in UPDATABLE.items():
            cursor.execute("SELECT sql FROM sqlite_master WHERE name = %s", [f"{table}__immutable_update"])
            (sql,) = cursor.fetchone()
            columns = [column.name for column in connection.introspection.get_table_description(cursor, table)]
            assert sorted(column for column in columns if f'NEW."{column}"' not in sql) == sorted(updatable), table


@pytest.mark.parametrize("label", LABELS)
def test_the_orm_refuses_update_save_and_delete(record, label):
    model, row, before = model_of(label), first_row(label), snapshot(label)
    field, value = TAMPER[label]
    table = model._meta.db_table
    guarded = issubclass(model, Fact)
    refusal = pytest.raises(ImmutableRecordError) if guarded else refused_by_the_database(table)
    with refusal, transaction.atomic():
        model.objects.filter(pk=row.pk).update(**{field: value})
    with pytest.raises(IntegrityError), transaction.atomic():  # ImmutableRecordError is one
        model.objects.filter(pk=row.pk).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        row.delete()
    setattr(row, field, value)
    with pytest.raises(IntegrityError), transaction.atomic():
        row.save()
    # Past the ORM's own guard, the database refuses.
    column = field if model._meta.db_table in UPDATABLE else None
    with refused_by_the_database(table, column and model._meta.get_field(field).column):
        models.QuerySet.update(model.objects.filter(pk=row.pk), **{field: value})
    with refused_by_the_database(table):
        model.objects.filter(pk=row.pk)._raw_delete(connection.alias)
    assert snapshot(label) == before


@pytest.mark.parametrize("label", LABELS)
def test_sql_update_and_delete_are_refused(record, label):
    table, before, pk = model_of(label)._meta.db_table, snapshot(label), first_row(label).pk
    column, value = tamper_column(label)
    with refused_by_the_database(table, column if table in UPDATABLE else None), connection.cursor() as cursor:
        cursor.execute(
            f'UPDATE "{table}" SET "{column}" = %s WHERE "{model_of(label)._meta.pk.column}" = %s', [value, pk]
        )
    with refused_by_the_database(table), connection.cursor() as cursor:
        cursor.execute(f'DELETE FROM "{table}"')
    assert snapshot(label) == before


@pytest.mark.postgres
@pytest.mark.parametrize("label", LABELS)
def test_postgres_truncate_is_refused_even_for_the_owner(record, label):
    table, before = model_of(label)._meta.db_table, snapshot(label)
    # CASCADE: with the tables that refer to it (the first trigger to fire names its own table).
    refused = pytest.raises(IntegrityError, match="TRUNCATE refused on")
    with refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # a TRUNCATE waits for no deferred check
        cursor.execute(f'TRUNCATE "{table}" CASCADE')
    assert snapshot(label) == before


@pytest.mark.postgres
def test_postgres_truncating_shoes_cascade_cannot_empty_the_ledger(record):
    with pytest.raises(IntegrityError, match="TRUNCATE refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("TRUNCATE shoes_shoe CASCADE")
    assert model_of("ledger.CommissionEntry").objects.count() == 4


def test_sqlite_connections_fire_delete_triggers_under_replace():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA recursive_triggers")
        assert cursor.fetchone() == (1,)


@pytest.mark.parametrize("label", LABELS)
def test_sqlite_replace_and_upsert_are_refused(record, label):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only; PostgreSQL has no REPLACE, and its ON CONFLICT DO UPDATE is an UPDATE")
    model, before = model_of(label), snapshot(label)
    table, pk = model._meta.db_table, model._meta.pk.column
    others = ", ".join(f'"{field.column}"' for field in model._meta.concrete_fields if not field.primary_key)
    row_id = first_row(label).pk
    column, value = tamper_column(label)
    for verb in ("INSERT OR REPLACE", "REPLACE"):
        # The same primary key: refused whatever the connection's pragmas.
        with refused_by_the_database(table), connection.cursor() as cursor:
            cursor.execute(f'{verb} INTO "{table}" SELECT * FROM "{table}" WHERE "{pk}" = %s', [row_id])
    if label in UNIQUE_KEYED:
        # A new row over another unique key: REPLACE would delete the old one; the DELETE trigger fires.
        with refused_by_the_database(table), connection.cursor() as cursor:
            cursor.execute(
                f'INSERT OR REPLACE INTO "{table}" ({others}) SELECT {others} FROM "{table}" WHERE "{pk}" = %s',
                [row_id],
            )
        with refused_by_the_database(table), connection.cursor() as cursor:
            cursor.execute(
                f'INSERT INTO "{table}" ({others}) SELECT {others} FROM "{table}" WHERE "{pk}" = %s '
                f'ON CONFLICT DO UPDATE SET "{column}" = %s',
                [row_id, value],
            )
    assert snapshot(label) == before


# ---------------------------------------------------------------------------- what may change


def review_and_clear(shoe, user):
    """Every later change the services make to a fact, in the order a shoe's life makes them."""
    reconciliation = Reconciliation.objects.get(shoe=shoe)
    reconciliation_explain(reconciliation=reconciliation, user=user, note="a chip found under the box")
    violation = RuleViolation.objects.get(code="box_variance")
    violation_acknowledge(violation=violation, user=user, note="recounted")
    assert (
        violations_clear_missing(
            scope=RuleViolation.objects.filter(pk=violation.pk), found_by=violation.found_by, fingerprints_found=set()
        )
        == 1
    )
    violation_record(
        finding=_finding(violation),
        fingerprint=violation.fingerprint,
        table=violation.table,
        gaming_day=violation.gaming_day,
        found_by=violation.found_by,
    )


def _finding(violation):
    from pit import game

    return game.Violation(code=violation.code, message=violation.message, severity=violation.severity)


def assert_reviewed(shoe, user):
    shoe.refresh_from_db()
    assert (shoe.status, shoe.cards_dealt, shoe.coups_recorded) == (ShoeStatus.CLOSED, 4, 1)
    reconciliation = Reconciliation.objects.get(shoe=shoe)
    assert (reconciliation.status, reconciliation.explanation, reconciliation.explained_by) == (
        ReconciliationStatus.EXPLAINED,
        "a chip found under the box",
        user,
    )
    assert list(RuleViolation.objects.values_list("code", "status", "status_note", "cleared_at")) == [
        ("box_variance", ViolationStatus.ACKNOWLEDGED, "recounted", None),
    ]


def test_the_services_still_make_their_permitted_changes(record, django_user_model):
    user = django_user_model.objects.get(username="pitboss")
    review_and_clear(record, user)
    assert_reviewed(record, user)


def test_the_orm_updates_permitted_fields(record):
    now = timezone.now()
    assert RuleViolation.objects.update(cleared_at=now) == 1
    assert Shoe.objects.filter(pk=record.pk).update(closed_at=now) == 1
    assert RuleViolation.objects.get().cleared_at == now


# ---------------------------------------------------------------------------- PostgreSQL roles


@pytest.fixture
def runtime_role():
    """A runtime role for this test database, granted as `manage.py migrate` grants it. Created in
    the test's transaction, so it is gone afterwards."""
    role = f"{connection.settings_dict['NAME']}_runtime"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
        for statement in runtime_privileges_sql(connection, role):
            cursor.execute(statement)
    return role


@contextmanager
def as_role(role):
    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{role}"')
        try:
            yield
        finally:
            cursor.execute("RESET ROLE")


@contextmanager
def denied(match="permission denied"):
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        yield


@pytest.mark.postgres
@pytest.mark.parametrize("label", LABELS)
def test_postgres_runtime_role_may_not_update_delete_truncate_or_alter(record, runtime_role, label):
    model, before, row_id = model_of(label), snapshot(label), first_row(label).pk
    table, pk = model._meta.db_table, model._meta.pk.column
    column, value = tamper_column(label)
    with as_role(runtime_role):
        with denied(), connection.cursor() as cursor:
            cursor.execute(f'UPDATE "{table}" SET "{column}" = %s WHERE "{pk}" = %s', [value, row_id])
        with denied(), connection.cursor() as cursor:
            cursor.execute(f'DELETE FROM "{table}" WHERE "{pk}" = %s', [row_id])
        with denied(), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f'TRUNCATE "{table}" CASCADE')
        with denied("must be owner"), connection.cursor() as cursor:
            cursor.execute(f'ALTER TABLE "{table}" DISABLE TRIGGER ALL')
        with denied("must be owner"), connection.cursor() as cursor:
            cursor.execute(f'DROP TRIGGER pit_immutable_update ON "{table}"')

        # The ORM as the runtime role: refused before a statement, and past its guard by the database.
        def orm_refusal():  # audit event models have no ORM guard: the privileges refuse
            return pytest.raises(ImmutableRecordError) if issubclass(model, Fact) else denied()

        with orm_refusal(), transaction.atomic():
            model.objects.filter(pk=row_id).update(**{TAMPER[label][0]: value})
        with orm_refusal(), transaction.atomic():
            model.objects.filter(pk=row_id).delete()
        with denied():
            models.QuerySet.update(model.objects.filter(pk=row_id), **{TAMPER[label][0]: value})
        with denied():
            model.objects.filter(pk=row_id)._raw_delete(connection.alias)
    assert snapshot(label) == before


@pytest.mark.postgres
def test_postgres_runtime_role_cannot_switch_triggers_off(runtime_role):
    with as_role(runtime_role), denied(), connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")


@pytest.mark.postgres
def test_postgres_runtime_role_privileges(runtime_role):
    statements = runtime_privileges_sql(connection, runtime_role)
    role = f'"{runtime_role}"'
    assert f'GRANT SELECT, INSERT ON "shoes_coup" TO {role}' in statements
    assert f'GRANT UPDATE ("id") ON "shoes_coup" TO {role}' in statements
    assert (
        f'GRANT UPDATE ("status", "closed_at", "close_recorded_at", "cards_seen", "cards_dealt", '
        f'"coups_recorded") ON "shoes_shoe" TO {role}'
    ) in statements
    assert f'GRANT SELECT ON "django_migrations" TO {role}' in statements
    assert f'GRANT SELECT, INSERT, UPDATE, DELETE ON "tables_table" TO {role}' in statements
    assert not [statement for statement in statements if "TRUNCATE" in statement or "ALL PRIVILEGES" in statement]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT table_name, privilege_type FROM information_schema.role_table_grants "
            "WHERE grantee = %s AND privilege_type IN ('DELETE', 'TRUNCATE', 'TRIGGER', 'REFERENCES') "
            "AND table_name = ANY (%s)",
            [runtime_role, [model_of(label)._meta.db_table for label in LABELS]],
        )
        assert cursor.fetchall() == []
        cursor.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tableowner = %s", [runtime_role]
        )
        assert cursor.fetchone() == (0,)


@pytest.mark.postgres
def test_postgres_the_services_work_as_the_runtime_role(runtime_role, django_user_model):
    """The whole life of a shoe, as the runtime role: row locks, inserts and every permitted update."""
    user = django_user_model.objects.create_user("pitboss", password="x")
    table = factories.table()
    with as_role(runtime_role):
        shoe = factories.shoe(table)
        factories.coup(
            shoe,
            1,
            *hands.BANKER_NATURAL,
            wagers=[
                factories.wager(1, "banker", "100"),
                factories.wager(2, "banker", "100"),
            ],
        )
        commission_collect(shoe=shoe, seat=2, actor=Actor(user=user))
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("4.00"))])
        shoe_reconcile(shoe_id=shoe.pk)
        review_and_clear(shoe, user)
    assert_reviewed(shoe, user)


def test_migrate_refuses_an_owner_url_for_another_database(settings):
    from django.core.management import CommandError, call_command

    settings.DATABASE_MIGRATE_URL = "postgres://pit_owner@127.0.0.1:5432/some_other_database"
    with pytest.raises(CommandError, match="DATABASE_MIGRATE_URL must name the same database as DATABASE_URL"):
        call_command("migrate", verbosity=0)
