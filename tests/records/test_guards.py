"""What the runtime role cannot do to the record (PostgreSQL, as the runtime role): skip the audit
trail's triggers (`SET pgtrigger.ignore`), edit a settled paytable version, change a stream's links
or shrink a chain head. And the insider's changes to the columns that may change (a violation's
status, a shoe's close, a user made superuser), made past the audit trail: verification names them."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, models, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from pit.accounts.audit import event_model_for
from pit.accounts.services import device_create, staff_token_create
from pit.cash.services import CashInput, cash_check_day, transaction_record
from pit.compliance.models import RuleViolation, ViolationStatus
from pit.compliance.services import violation_dismiss, violation_record
from pit.controls.models import KeyKind, SensitiveKey, StoragePlace
from pit.core.gaming_day import current_gaming_day
from pit.core.immutable import runtime_privileges_sql
from pit.game import violation
from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_update
from pit.records.guard import IGNORE_NOTHING_BODY, ignore_function_body, normalized
from pit.records.models import ChainHead, StreamLink
from pit.records.selectors import streams_verify, tracked_models, triggers_guard_verify
from pit.records.services import streams_seal
from pit.shoes.services import CoupInput, coups_record
from tests import factories
from tests.core.test_immutable import as_role, denied
from tests.records.test_insider import played_shoe, tampered
from tests.shoes import hands

pytestmark = pytest.mark.django_db

# pgtrigger's own function, as any trigger it installs writes it: it skips the triggers named in
# the session's pgtrigger.ignore. What the runtime role could use before pit's replaced it.
PGTRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION public._pgtrigger_should_ignore(trigger_name NAME) RETURNS BOOLEAN AS $$
    DECLARE
        _pgtrigger_ignore TEXT[];
        _result BOOLEAN;
    BEGIN
        BEGIN
            SELECT INTO _pgtrigger_ignore CURRENT_SETTING('pgtrigger.ignore');
            EXCEPTION WHEN OTHERS THEN
        END;
        IF _pgtrigger_ignore IS NOT NULL THEN
            SELECT trigger_name = ANY(_pgtrigger_ignore) INTO _result;
            RETURN _result;
        ELSE
            RETURN FALSE;
        END IF;
    END;
$$ LANGUAGE plpgsql;
"""


@pytest.fixture
def runtime_role():
    """The runtime role of a deployment, granted as `manage.py migrate` grants it (in the test's
    transaction: gone afterwards)."""
    role = f"{connection.settings_dict['NAME']}_runtime"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" NOLOGIN')
        for statement in runtime_privileges_sql(connection, role):
            cursor.execute(statement)
    return role


def history_triggers(table):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relname = %s AND t.tgname LIKE 'pgtrigger_%%' ORDER BY 1",
            [table],
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.fixture
def finding():
    table = factories.table()
    return violation_record(
        finding=violation("record_chain_broken", "A test finding."),
        fingerprint="guards-test",
        table=table,
        gaming_day=current_gaming_day(),
        found_by="test",
    )


def _dismiss_and_promote(finding, user):
    """As the runtime role with every history trigger of both tables named in pgtrigger.ignore: a
    violation dismissed, a user made superuser."""
    names = history_triggers(RuleViolation._meta.db_table) + history_triggers("auth_user")
    assert len(names) >= 4
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('pgtrigger.ignore', %s, false)", ["{" + ",".join(names) + "}"])
    try:
        violation_dismiss(violation=finding, user=user, note="nothing to see")
        with connection.cursor() as cursor:
            cursor.execute("UPDATE auth_user SET is_superuser = true WHERE id = %s", [user.pk])
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('pgtrigger.ignore', '{}', false)")


@pytest.mark.postgres
def test_postgres_the_ignore_function_is_pits_after_migrate():
    assert normalized(ignore_function_body(connection)) == normalized(IGNORE_NOTHING_BODY)
    assert triggers_guard_verify(connection) == []


@pytest.mark.postgres
def test_postgres_the_runtime_role_cannot_switch_the_audit_trail_off(runtime_role, finding, django_user_model):
    user = django_user_model.objects.create_user("insider", password="x", is_staff=True)
    violation_events, user_events = event_model_for(RuleViolation), event_model_for(django_user_model)
    before = (violation_events.objects.count(), user_events.objects.filter(pgh_obj_id=user.pk).count())
    with as_role(runtime_role):
        _dismiss_and_promote(finding, user)
        with denied("must be owner|permission denied"), connection.cursor() as cursor:
            cursor.execute(PGTRIGGER_FUNCTION)
    assert violation_events.objects.count() == before[0] + 1
    assert violation_events.objects.latest("pgh_id").status == ViolationStatus.DISMISSED
    assert user_events.objects.filter(pgh_obj_id=user.pk).count() == before[1] + 1
    assert user_events.objects.filter(pgh_obj_id=user.pk).latest("pgh_id").is_superuser is True


@pytest.mark.postgres
def test_postgres_pgtriggers_own_function_would_let_it_and_verification_says_so(
    runtime_role, finding, django_user_model
):
    """The attack is real: with pgtrigger's function back (as a trigger's install writes it), the
    same statements leave no event; verification names the function and both rows."""
    user = django_user_model.objects.create_user("insider", password="x", is_staff=True)
    violation_events = event_model_for(RuleViolation)
    streams_seal()
    with connection.cursor() as cursor:
        cursor.execute(PGTRIGGER_FUNCTION)
    before = violation_events.objects.count()
    with as_role(runtime_role):
        _dismiss_and_promote(finding, user)
    assert violation_events.objects.count() == before
    breaks = {(found.stream, found.row_id) for found in streams_verify().breaks}
    assert ("public._pgtrigger_should_ignore", None) in breaks
    assert {("compliance.RuleViolation", finding.pk), ("auth.User", user.pk)} <= breaks


@pytest.mark.postgres
def test_postgres_the_insider_changing_updatable_columns_past_the_audit_trail_is_named(django_user_model):
    """One row of every model the audit trail tracks, changed as the owner past its trigger."""
    user = django_user_model.objects.create_user("boss", password="x", is_staff=True)
    shoe = played_shoe("GD1")
    device_create(table=shoe.table, name="tablet", user=user)
    staff_token_create(user=user, name="script", created_by=user)
    violation_record(
        finding=violation("record_chain_broken", "A test finding."),
        fingerprint="guards-test",
        table=shoe.table,
        gaming_day=current_gaming_day(),
        found_by="test",
    )
    # A cash finding (a person not identified over the CTR threshold) and the controls' set-up rows.
    transaction_record(
        cash=CashInput(
            reference="CAGE-1",
            kind="chip_redemption",
            at=timezone.now(),
            currency="USD",
            amount=Decimal("12000"),
            location="cage window 1",
            description="man, blue cap",
        )
    )
    cash_check_day(day=current_gaming_day())
    StoragePlace.objects.create(code="CR1", name="Card room")
    SensitiveKey.objects.create(code="K1", kind=KeyKind.values[0], name="Drop box release")
    streams_seal()
    assert streams_verify().ok, streams_verify().breaks
    attacked = {}
    for model, event_model in tracked_models():
        row_id = models.QuerySet(model).order_by("pk").values_list("pk", flat=True).first()
        assert row_id is not None, f"no row of {model._meta.label}: make one above"
        own = {field.attname for field in model._meta.concrete_fields if not field.primary_key}
        columns = [
            f.attname for f in event_model._meta.concrete_fields if f.attname in own and not f.name.startswith("pgh_")
        ]
        attacked[model._meta.label] = (row_id, tampered(model, row_id, columns))
    breaks = {
        (found.stream, found.row_id) for found in streams_verify().breaks if "latest audit event" in found.problem
    }
    print(f"insider changes past the audit trail: {len(attacked)} tracked kinds changed, {len(breaks)} named")
    assert {(label, row_id) for label, (row_id, _) in attacked.items()} <= breaks, attacked


def test_a_settled_paytable_version_is_refused_by_the_database():
    shoe = factories.shoe()
    paytable = shoe.table.paytable
    table = PaytableConfiguration._meta.db_table
    with connection.cursor() as cursor:  # not settled yet: its rules may still change
        cursor.execute(f"UPDATE {table} SET name = 'Renamed' WHERE id = %s", [paytable.pk])
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    with pytest.raises(IntegrityError, match="settled coups"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET name = 'Forged' WHERE id = %s", [paytable.pk])
    with pytest.raises(IntegrityError, match="refused"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table} WHERE id = %s", [paytable.pk])
    assert PaytableConfiguration.objects.get(pk=paytable.pk).name == "Renamed"


@pytest.mark.postgres
def test_postgres_the_runtime_role_cannot_edit_a_settled_paytable_or_the_links(runtime_role):
    shoe = factories.shoe()
    paytable = shoe.table.paytable
    factories.coup(shoe, 1, *hands.BANKER_NATURAL, wagers=[factories.wager(1, "banker", "100")])
    table = PaytableConfiguration._meta.db_table
    with as_role(runtime_role):
        with pytest.raises(IntegrityError, match="settled coups"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET rules = '{{}}' WHERE id = %s", [paytable.pk])
        with denied(), connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET code = 'forged' WHERE id = %s", [paytable.pk])
        assert streams_seal()  # the sealer runs as the runtime role (beat)
        link = StreamLink.objects.first()
        for statement in (
            f"UPDATE {StreamLink._meta.db_table} SET hash = 'x' WHERE id = %s",
            f"DELETE FROM {StreamLink._meta.db_table} WHERE id = %s",
        ):
            with denied(), connection.cursor() as cursor:
                cursor.execute(statement, [link.pk])
        with pytest.raises(IntegrityError, match="only grows"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"UPDATE {ChainHead._meta.db_table} SET length = 0 WHERE shoe_id = %s", [shoe.pk])
        with pytest.raises(IntegrityError, match="only grows"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {ChainHead._meta.db_table} WHERE shoe_id = %s", [shoe.pk])
    with pytest.raises(Exception, match="settled coups|edited"):
        paytable_update(configuration=paytable, rules=paytable.rules)
    assert PaytableConfiguration.objects.get(pk=paytable.pk).rules == paytable.rules


@pytest.mark.postgres
def test_postgres_migrate_puts_pits_function_back_after_pgtrigger_wrote_its_own():
    with connection.cursor() as cursor:  # as a migration adding a history trigger does
        cursor.execute(PGTRIGGER_FUNCTION)
    assert triggers_guard_verify(connection) != []
    call_command("migrate", verbosity=0)
    assert normalized(ignore_function_body(connection)) == normalized(IGNORE_NOTHING_BODY)


def _batch(code, coups):
    shoe = factories.shoe(factories.table(code))
    batch = [
        CoupInput(
            number=number,
            player=hands.BANKER_NATURAL[0],
            banker=hands.BANKER_NATURAL[1],
            wagers=(factories.wager(1, "banker", "100"), factories.wager(2, "player", "50")),
        )
        for number in range(1, coups + 1)
    ]
    with CaptureQueriesContext(connection) as queries:
        coups_record(shoe=shoe, coups=batch)
    return len(queries)


@pytest.mark.postgres
def test_postgres_a_batch_costs_the_same_queries_whatever_its_size():
    """The chain head, the shoe's audit trigger and the streams add nothing per coup to a batch."""
    _batch("WU1", 2)  # caches warmed
    assert _batch("BA1", 5) == _batch("BA2", 60)
