"""The hash chains: every fact row of a shoe is chained in order, and a row edited behind the
application's back (raw SQL, triggers bypassed, as the database owner could) is found."""

import datetime as dt
import hashlib
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from pit.compliance.models import RuleViolation
from pit.ledger.models import BoxCount, CommissionEntry, Reconciliation, ReconciliationSeat
from pit.ledger.services import commission_collect, shoe_reconcile
from pit.records.chain import SPEC_BY_LABEL, canonical, genesis
from pit.records.models import ChainHead
from pit.records.selectors import chain_heads_for_days, chains_verify
from pit.records.tasks import records_verify_task
from pit.shoes.models import Coup, Wager
from pit.shoes.services import CoupInput, coups_record, shoe_close
from tests import factories
from tests.shoes import hands

pytestmark = pytest.mark.django_db
DAY = dt.date(2026, 3, 2)
DEALT = dt.datetime(2026, 3, 2, 20, 0, tzinfo=dt.UTC)
CHAINED = (Coup, Wager, CommissionEntry, BoxCount, Reconciliation, ReconciliationSeat)


@pytest.fixture
def played_shoe():
    """A box-commission shoe: a batch of two coups, a coup alone, a seat leaving, the shuffle."""
    shoe = factories.shoe()
    coups_record(
        shoe=shoe,
        coups=[
            CoupInput(
                number=1,
                player=hands.BANKER_NATURAL[0],
                banker=hands.BANKER_NATURAL[1],
                dealt_at=DEALT,
                wagers=(factories.wager(1, "banker", "100"), factories.wager(2, "player", "50")),
            ),
            CoupInput(
                number=2,
                player=hands.BANKER_SIX[0],
                banker=hands.BANKER_SIX[1],
                dealt_at=DEALT,
                wagers=(factories.wager(1, "banker", "200"),),
            ),
        ],
    )
    factories.coup(shoe, 3, *hands.BANKER_NATURAL, dealt_at=DEALT, wagers=[factories.wager(3, "banker", "40")])
    commission_collect(shoe=shoe, seat=3)
    shoe_close(shoe=shoe, box_counts=[(1, Decimal("10.00")), (3, Decimal("0"))])
    shoe_reconcile(shoe_id=shoe.pk)  # the task after commit; the test's transaction never commits
    return shoe


def chain_of(shoe):
    rows = []
    for model in CHAINED:
        path = SPEC_BY_LABEL[model._meta.label].shoe_path
        rows += [
            (seq, model.__name__) for seq in model.objects.filter(**{path: shoe.pk}).values_list("chain_seq", flat=True)
        ]
    return sorted(rows)


def tamper(sql: str, params=()) -> None:
    """Run an UPDATE or DELETE as the schema's owner would: with the insert-only triggers out of the way
    (PostgreSQL: replica mode skips triggers, which a superuser may set; SQLite: the triggers are dropped,
    inside the test's transaction, so they come back with its rollback)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            table = sql.split()[1] if sql.startswith("UPDATE") else sql.split()[2]
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s", [table])
            for (name,) in cursor.fetchall():
                cursor.execute(f'DROP TRIGGER "{name}"')
        cursor.execute(sql, params)
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = origin")


def test_every_fact_row_of_a_shoe_takes_the_next_place_in_its_chain(played_shoe):
    assert chain_of(played_shoe) == [
        (1, "Coup"),
        (2, "Coup"),
        (3, "Wager"),
        (4, "Wager"),
        (5, "Wager"),
        (6, "CommissionEntry"),
        (7, "CommissionEntry"),
        (8, "Coup"),
        (9, "Wager"),
        (10, "CommissionEntry"),
        (11, "CommissionEntry"),
        (12, "BoxCount"),
        (13, "BoxCount"),
        (14, "Reconciliation"),
        (15, "ReconciliationSeat"),
        (16, "ReconciliationSeat"),
        (17, "CommissionEntry"),
    ]
    last = CommissionEntry.objects.get(chain_seq=17)
    assert ChainHead.objects.filter(shoe=played_shoe).values_list("length", "head").get() == (17, last.chain_hash)
    result = chains_verify(shoe_ids=[played_shoe.pk])
    assert (result.ok, result.shoes, result.rows) == (True, 1, 17)


def test_a_row_hash_is_sha256_of_the_previous_hash_and_the_canonical_row(played_shoe):
    first = Coup.objects.get(shoe=played_shoe, number=1)
    spec = SPEC_BY_LABEL["shoes.Coup"]
    expected_canonical = (
        f'["pit-chain-1","coup",1,{played_shoe.pk},1,"2026-03-02T20:00:00.000000Z","2026-03-02",["2H","5D"],'
        f'["4C","5S"],7,9,"banker",true,false,false,"",{first.paytable_id},'
        f'"{first.recorded_at.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds")}Z",'
        f"null,null]"
    )
    assert canonical(spec, 1, [getattr(first, name) for name in spec.fields]).decode() == expected_canonical
    assert (
        first.chain_hash
        == hashlib.sha256(genesis(played_shoe.pk).encode() + b"\n" + expected_canonical.encode()).hexdigest()
    )


def test_verification_finds_a_wager_edited_with_raw_sql(played_shoe):
    wager = Wager.objects.get(coup__number=2)
    tamper(f"UPDATE {Wager._meta.db_table} SET amount_minor = 100 WHERE id = %s", [wager.pk])
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert (found.shoe_id, found.kind, found.row_id, found.seq) == (played_shoe.pk, "wager", wager.pk, 5)
    assert found.problem.startswith(f"its stored hash {wager.chain_hash[:16]}… is not the hash of its fields")
    assert found.problem.endswith(
        f'it now reads ["pit-chain-1","wager",5,{wager.coup_id},1,"banker","USD",100,"win",20000,1000,null]'
    )


def test_a_rewritten_row_given_a_new_hash_breaks_the_link_of_the_next_one(played_shoe):
    from pit.records.chain import row_hash

    coup = Coup.objects.get(shoe=played_shoe, number=2)
    spec = SPEC_BY_LABEL["shoes.Coup"]
    previous = Coup.objects.get(shoe=played_shoe, number=1).chain_hash
    coup.reported_winner = "player"
    rehashed = row_hash(previous, spec, 2, [getattr(coup, name) for name in spec.fields])
    tamper(
        f"UPDATE {Coup._meta.db_table} SET reported_winner = 'player', chain_hash = %s WHERE id = %s",
        [rehashed, coup.pk],
    )
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert (found.kind, found.seq) == ("wager", 3)
    assert "or the row at position 2 was rewritten and re-hashed" in found.problem


def test_a_deleted_row_and_a_removed_tail_are_found(played_shoe):
    seat = ReconciliationSeat.objects.get(chain_seq=16)
    tamper(f"DELETE FROM {ReconciliationSeat._meta.db_table} WHERE id = %s", [seat.pk])
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert (found.kind, found.seq, found.problem) == (
        "commission_entry",
        17,
        "position 16 is missing: a row was deleted",
    )


def test_a_removed_tail_shows_against_the_chain_head(played_shoe):
    entry = CommissionEntry.objects.get(chain_seq=17)
    tamper(f"DELETE FROM {CommissionEntry._meta.db_table} WHERE id = %s", [entry.pk])
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert found.row_id is None
    assert found.problem.startswith("the chain ends at position 16")
    assert "but its head says position 17" in found.problem


def test_verify_records_command_exits_non_zero_naming_the_row(played_shoe, capsys):
    call_command("verify_records", "--from", "2026-03-02", "--to", "2026-03-02")
    assert capsys.readouterr().out.startswith("OK 2026-03-02 to 2026-03-02: 1 shoes, 17 rows verified in ")
    entry = CommissionEntry.objects.get(chain_seq=6)
    tamper(f"UPDATE {CommissionEntry._meta.db_table} SET amount_minor = 1 WHERE id = %s", [entry.pk])
    with pytest.raises(CommandError, match="1 broken chains") as raised:
        call_command("verify_records", "--from", "2026-03-02", "--to", "2026-03-02")
    assert raised.value.returncode == 1
    assert capsys.readouterr().err.startswith(
        f"BROKEN shoe {played_shoe.pk}, commission_entry {entry.pk} at position 6: its stored hash"
    )


def test_the_nightly_task_records_one_violation_however_often_it_runs(played_shoe):
    outcome = records_verify_task("2026-03-02")
    assert {key: outcome[key] for key in ("shoes", "rows", "breaks", "stream_breaks")} == {
        "shoes": 1,
        "rows": 17,
        "breaks": [],
        "stream_breaks": [],
    }
    assert not RuleViolation.objects.filter(code="record_chain_broken").exists()
    box = BoxCount.objects.get(chain_seq=12)
    tamper(f"UPDATE {BoxCount._meta.db_table} SET counted_minor = 0 WHERE id = %s", [box.pk])
    for _ in range(2):
        outcome = records_verify_task("2026-03-02")
    assert len(outcome["breaks"]) == 1
    violation = RuleViolation.objects.get(code="record_chain_broken")
    assert (violation.shoe_id, violation.table_id, violation.gaming_day, violation.severity, violation.found_by) == (
        played_shoe.pk,
        played_shoe.table_id,
        DAY,
        "high",
        "records_verify",
    )
    assert violation.message.startswith(f"The record of {played_shoe} was altered: shoe {played_shoe.pk}, box_count")


def test_a_failed_insert_leaves_the_chain_head_where_it_was(played_shoe):
    other = factories.shoe(factories.table("MB2"))
    factories.coup(other, 1, *hands.TIE, dealt_at=DEALT)
    head = ChainHead.objects.get(shoe=other)
    with pytest.raises(Exception), transaction.atomic():  # noqa: B017, PT011 (any refusal)
        coups_record(shoe=other, coups=[CoupInput(number=2, player=["2H", "5D"], banker=["4C", "5S"])])
        raise RuntimeError("rolled back")
    assert ChainHead.objects.get(shoe=other).length == head.length == 1
    assert chains_verify(shoe_ids=[other.pk, played_shoe.pk]).ok


def test_the_heads_of_each_gaming_day_with_one_digest(played_shoe):
    (day,) = chain_heads_for_days(first_day=DAY, last_day=DAY)
    head = ChainHead.objects.get(shoe=played_shoe)
    assert (day.gaming_day, day.heads) == (DAY, {played_shoe.pk: (17, head.head)})
    assert day.digest == hashlib.sha256(f"{played_shoe.pk}:17:{head.head}".encode()).hexdigest()
    assert chain_heads_for_days(first_day=DAY + dt.timedelta(days=1), last_day=DAY + dt.timedelta(days=1)) == []


@pytest.mark.postgres
def test_on_postgresql_an_edit_as_owner_bypassing_triggers_is_found(played_shoe):
    coup = Coup.objects.get(shoe=played_shoe, number=3)
    tamper(f"UPDATE {Coup._meta.db_table} SET dealt_at = dealt_at + interval '1 hour' WHERE id = %s", [coup.pk])
    (found,) = chains_verify(shoe_ids=[played_shoe.pk]).breaks
    assert (found.kind, found.row_id, found.seq) == ("coup", coup.pk, 8)
    assert '"2026-03-02T21:00:00.000000Z"' in found.problem
