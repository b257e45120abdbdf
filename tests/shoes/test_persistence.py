"""Each hand-written statement of pit.shoes.persistence reads or writes on PostgreSQL what its ORM
twin reads or writes there: the same coups twice, once each way, give the same rows."""

import datetime as dt
import random

import pytest
from django.db import connection, transaction

from pit import game
from pit.accounts.services import device_create
from pit.core.actors import Actor
from pit.core.models import OutboxMessage
from pit.core.outbox import outbox_message
from pit.core.rows import mark_saved
from pit.ledger.models import CommissionEntry
from pit.paytables.models import PaytableConfiguration
from pit.records.models import ChainHead
from pit.records.selectors import chains_verify
from pit.shoes import persistence
from pit.shoes.models import Coup, Shoe, Wager
from pit.shoes.services import CoupInput, coup_record, coups_record
from tests import factories

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

# Columns that differ between two shoes by construction: ids, the links to the shoe's own rows, the
# hashes (the chain starts from the shoe's id) and the moment of writing.
IGNORED = {"id", "shoe_id", "coup_id", "wager_id", "chain_hash", "recorded_at", "table_id", "updated_at"}


@pytest.fixture
def orm_twins(monkeypatch):
    """Run the ORM twins instead of the hand-written statements, on PostgreSQL."""

    def run(twins: bool):
        if twins:
            monkeypatch.setattr(persistence, "_hand_written", lambda: False)
        else:
            monkeypatch.undo()

    return run


def values(instance) -> dict:
    return {
        field.attname: getattr(instance, field.attname)
        for field in instance._meta.concrete_fields
        if field.attname not in IGNORED
    }


def stored(model, shoe: Shoe, order: tuple[str, ...]) -> list[dict]:
    shoe_of = {Coup: "shoe", Wager: "coup__shoe", CommissionEntry: "shoe"}[model]
    return [values(row) for row in model.objects.filter(**{shoe_of: shoe}).order_by(*order)]


def shoe_written(shoe: Shoe) -> dict:
    shoe.refresh_from_db()
    head = ChainHead.objects.get(shoe=shoe)
    return {
        "coups": stored(Coup, shoe, ("number",)),
        "wagers": stored(Wager, shoe, ("coup__number", "seat", "bet")),
        "entries": stored(CommissionEntry, shoe, ("chain_seq",)),
        "counters": (shoe.cards_seen, shoe.cards_dealt, shoe.coups_recorded),
        "chain": head.length,
    }


def dealt(count: int, seed: int, shoe: Shoe) -> list[CoupInput]:
    """`count` coups of a real shoe, several wagers each (commission on the banker wins), some naive times."""
    rng, cards = random.Random(seed), game.new_shoe(8, random.Random(seed))
    coups = []
    for number in range(1, count + 1):
        coup = cards.deal_coup()
        bets = zip((1, 2, 3, 5), ("banker", "player", "banker", "tie"), strict=True)
        dealt_at = dt.datetime(2026, 3, 2, 20, 0) + dt.timedelta(minutes=number)
        coups.append(
            CoupInput(
                number=number,
                player=[c.code for c in coup.player],
                banker=[c.code for c in coup.banker],
                dealt_at=dealt_at if number % 2 else dealt_at.replace(tzinfo=dt.UTC),
                wagers=tuple(
                    factories.wager(seat, bet, str(rng.choice((25, 100, 250))), paid=rng.choice((None, "0")))
                    for seat, bet in bets
                ),
            )
        )
    return coups


def two_shoes():
    first, second = factories.shoe(factories.table("P1")), factories.shoe(factories.table("P2"))
    device, _ = device_create(table=first.table, name="reader")
    return first, second, Actor(device=device)


def test_the_shoe_lock_reads_what_the_orm_reads(orm_twins):
    """shoe_locked: the paytable read FOR SHARE by hand (PostgreSQL) is the paytable the ORM loads."""
    shoe = factories.shoe(factories.table("P1"))
    read = {}
    for twins in (False, True):
        orm_twins(twins)
        with transaction.atomic():
            locked = persistence.shoe_locked(shoe.pk)
            read[twins] = [values(locked), values(locked.table), values(locked.table.paytable)]
    assert read[False] == read[True]
    assert read[False][2] == values(PaytableConfiguration.objects.get(pk=shoe.table.paytable_id))


@pytest.mark.parametrize("number", [1, 2, "2", None])
def test_the_coup_lock_reads_what_the_orm_reads(orm_twins, number):
    """coup_lock's two statements (the locks in one, the chain head, the number's coup and the ids in
    the other) read the shoe, its table and paytable, the head and whether the coup is recorded as the
    ORM reads them; the ids taken are the ones the sequences give next."""
    shoe = factories.shoe(factories.table("P1"))
    empty = factories.shoe(factories.table("P2"))
    factories.coup(shoe, 1, ["KH", "5D"], ["9S", "QC"], wagers=[factories.wager(1, "banker", "100")])
    for target in (shoe, empty):
        read = {}
        for twins in (False, True):
            orm_twins(twins)
            with transaction.atomic():
                lock = persistence.coup_lock(target.pk, number, wagers=3)
                read[twins] = (
                    [values(lock.shoe), values(lock.shoe.table), values(lock.shoe.table.paytable)],
                    lock.chain_head,
                    lock.recorded,
                )
                ids = lock.ids
        assert read[False] == read[True]
        assert read[True][2] is (target is shoe and number == 1)
        assert read[True][1] == (
            None if target is empty else tuple(ChainHead.objects.filter(shoe=shoe).values_list("length", "head")[0])
        )
        assert ids is None  # the twin takes no ids: its inserts get them
    orm_twins(False)
    with transaction.atomic():
        coup_id, wager_ids = persistence.coup_lock(shoe.pk, 2, wagers=3).ids
        with connection.cursor() as cursor:
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [Coup._meta.db_table])
            (next_coup,) = cursor.fetchone()
    assert coup_id > Coup.objects.latest("pk").pk and next_coup == coup_id + 1
    assert len(wager_ids) == 3 and wager_ids == sorted(set(wager_ids)) and wager_ids[0] > Wager.objects.latest("pk").pk
    with pytest.raises(Shoe.DoesNotExist):
        persistence.coup_lock(-1, 1)


def test_the_batch_insert_writes_what_bulk_create_writes(orm_twins):
    """rows_insert: the coups, wagers and commission entries of a batch inserted with unnest (one
    statement a model) are the rows bulk_create inserts, linked to the chain the same way."""
    first, second, actor = two_shoes()
    for twins, shoe in ((False, first), (True, second)):
        orm_twins(twins)
        outcomes = coups_record(shoe=shoe, coups=dealt(30, 26, shoe), actor=actor)
        assert {outcome.status for outcome in outcomes} == {"created"}
    orm_twins(False)
    hand, twin = shoe_written(first), shoe_written(second)
    assert hand == twin
    assert len(hand["coups"]) == 30 and len(hand["wagers"]) == 120 and hand["entries"]
    assert chains_verify(shoe_ids=[first.pk, second.pk]).breaks == []


def test_the_one_coup_statement_writes_what_the_orm_writes(orm_twins, django_capture_on_commit_callbacks):
    """coup_insert: one coup's statement of data-modifying CTEs (its rows, the chain head inserted
    then updated, the shoe's counters, the outbox rows) writes what the ORM's inserts and saves write,
    and gives the same coup."""
    first, second, actor = two_shoes()
    built, owed = {}, {}
    for twins, shoe in ((False, first), (True, second)):
        orm_twins(twins)
        before = set(OutboxMessage.objects.values_list("pk", flat=True))
        built[twins] = []
        for item in dealt(3, 16, shoe):
            outcome = coup_record(shoe=shoe.pk, coup=item, actor=actor)
            built[twins].append(values(outcome.coup) | {"adding": outcome.coup._state.adding})
            assert Coup.objects.get(pk=outcome.coup.pk).recorded_at == outcome.coup.recorded_at
        coup_ids = dict(Coup.objects.filter(shoe=shoe).values_list("pk", "number"))
        coups_day = Coup.objects.filter(shoe=shoe).values_list("gaming_day", flat=True).first()
        owed[twins] = [
            (
                message.task_name,
                "shoe"
                if message.args == [shoe.pk]
                else "table-day"
                if message.args == [shoe.table_id, str(coups_day)]
                else [[coup_ids[pk] for pk in message.args[0]]],
            )
            for message in OutboxMessage.objects.exclude(pk__in=before).order_by("pk")
        ]
    orm_twins(False)
    assert shoe_written(first) == shoe_written(second)
    assert built[False] == built[True]
    assert (
        owed[False]
        == owed[True]
        == [
            ("compliance.coups_verify", [[1]]),
            ("accounting.table_day_recheck", "table-day"),
            ("rollups.shoe_refresh", "shoe"),
            ("ratings.table_day_refresh", "table-day"),
            ("progressives.shoe_meters_read", "shoe"),
            ("compliance.coups_verify", [[2]]),
            ("accounting.table_day_recheck", "table-day"),
            ("rollups.shoe_refresh", "shoe"),
            ("ratings.table_day_refresh", "table-day"),
            ("progressives.shoe_meters_read", "shoe"),
            ("compliance.coups_verify", [[3]]),
            ("accounting.table_day_recheck", "table-day"),
            ("rollups.shoe_refresh", "shoe"),
            ("ratings.table_day_refresh", "table-day"),
            ("progressives.shoe_meters_read", "shoe"),
        ]
    )
    assert chains_verify(shoe_ids=[first.pk, second.pk]).breaks == []


def test_the_outbox_insert_writes_what_save_writes():
    """_values_sql: new rows inserted by hand in one VALUES statement are the rows `save()` inserts."""
    by_hand = [outbox_message("compliance.coups_verify", [7]), outbox_message("ledger.shoe_reconcile", 3)]
    by_save = [outbox_message("compliance.coups_verify", [7]), outbox_message("ledger.shoe_reconcile", 3)]
    sql, params = persistence._values_sql(by_hand)
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} RETURNING id", params)
        ids = [row[0] for row in cursor.fetchall()]
    for message, pk in zip(by_hand, ids, strict=True):
        mark_saved(message, pk)
    for message in by_save:
        message.save(force_insert=True)
    ignored = {"id", "task_id", "created_at"}

    def row(pk):
        message = OutboxMessage.objects.get(pk=pk)
        return {
            f.attname: getattr(message, f.attname) for f in message._meta.concrete_fields if f.attname not in ignored
        }

    assert [row(message.pk) for message in by_hand] == [row(message.pk) for message in by_save]
    assert all(not message._state.adding for message in by_hand)
