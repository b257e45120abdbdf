"""How coups are locked and stored: the hand-written PostgreSQL statements and their ORM twins, side by
side. Design: docs/design/shoes-persistence.md."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, cast

from django.db import connection
from django.db.models import Field, JSONField, Model
from django.utils import timezone

from pit.core.actors import Actor
from pit.core.gaming_day import gaming_day_for
from pit.core.outbox import outbox_after_commit, outbox_enqueue, outbox_message
from pit.core.rows import mark_saved, model_columns, model_from_row, statement_form
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.models import PaytableConfiguration
from pit.records.canonical import ChainSpec
from pit.records.chain import SPEC_BY_LABEL, genesis, row_hasher
from pit.records.links import NOT_READ, chain_rows, records_chain
from pit.records.models import ChainHead
from pit.shoes.models import Coup, Shoe, Wager
from pit.tables.models import Table

if TYPE_CHECKING:  # the services' values; the services import this module
    from pit.shoes.services.settlement import PreparedCoup
    from pit.shoes.services.values import SettledWager

COUP_SPEC, WAGER_SPEC, ENTRY_SPEC = (
    SPEC_BY_LABEL[label] for label in ("shoes.Coup", "shoes.Wager", "ledger.CommissionEntry")
)
# A shoe's counters, written with the coups that change them.
SHOE_COUNTERS = ("cards_seen", "cards_dealt", "coups_recorded")
# What a coup stored owes (task name, args), given the coups' ids and the first one's gaming day.
Owed = Callable[[list[int], dt.date], list[tuple[str, tuple[Any, ...]]]]
# A fact row: a tuple of values in its chain spec's field order (CoupRow, WagerRow, EntryRow).
_Row = TypeVar("_Row", bound=tuple[Any, ...])


class CoupRow(NamedTuple):
    """A coup's row, in its chain spec's field order (pit.records.canonical.SPECS)."""

    shoe_id: int
    number: int
    dealt_at: dt.datetime
    gaming_day: dt.date
    player_cards: list[str]
    banker_cards: list[str]
    player_total: int
    banker_total: int
    winner: str
    natural: bool
    player_pair: bool
    banker_pair: bool
    reported_winner: str
    paytable_id: int
    recorded_at: dt.datetime
    recorded_by_user_id: int | None
    recorded_by_device_id: int | None


class WagerRow(NamedTuple):
    """A wager's row, in its chain spec's field order."""

    coup_id: int
    seat: int
    bet: str
    currency: str
    amount_minor: int
    result: str
    payout_minor: int
    commission_minor: int
    paid_minor: int | None


class EntryRow(NamedTuple):
    """A commission ledger entry's row, in its chain spec's field order."""

    shoe_id: int
    seat: int
    kind: str
    currency: str
    amount_minor: int
    wager_id: int | None
    collection_reason: str
    reverses_id: int | None
    note: str
    recorded_at: dt.datetime
    recorded_by_user_id: int | None
    recorded_by_device_id: int | None


# The rows are hashed in their spec's order: a spec that changes must change its row with it.
assert (CoupRow._fields, WagerRow._fields, EntryRow._fields) == (  # noqa: S101
    COUP_SPEC.fields,
    WAGER_SPEC.fields,
    ENTRY_SPEC.fields,
)


def _hand_written() -> bool:
    """Whether the hand-written statements run (on PostgreSQL) rather than their ORM twins (elsewhere).
    The equivalence tests (tests/shoes/test_persistence.py) make it False to run the twins on PostgreSQL."""
    return connection.vendor == "postgresql"


# ---------------------------------------------------------------------------------------- locks


def shoe_locked(shoe_id: int) -> Shoe:
    """The shoe and its table locked FOR UPDATE, the paytable in force only FOR SHARE (PostgreSQL; the
    ORM locks no paytable elsewhere). Shoe.DoesNotExist if there is no such shoe."""
    shoe = Shoe.objects.select_for_update(of=("self", "table")).select_related("table").get(pk=shoe_id)
    if _hand_written():
        shoe.table.paytable = PaytableConfiguration.objects.raw(_paytable_share_sql(), [shoe.table.paytable_id])[0]
    return shoe


@statement_form
def _paytable_share_sql() -> str:
    table_name = connection.ops.quote_name(PaytableConfiguration._meta.db_table)
    return f"SELECT * FROM {table_name} WHERE id = %s FOR SHARE"  # noqa: S608 (a name from the model)


@dataclass
class CoupLock:
    """What one coup's recording reads before it writes (`coup_lock`)."""

    shoe: Shoe  # locked, its table locked and its paytable share-locked, as shoe_locked leaves them
    chain_head: tuple[int, str] | None  # the shoe's chain head (length, head), locked; None: no chain yet
    recorded: bool  # a coup of this number is recorded in the shoe
    ids: tuple[int, list[int]] | None = None  # PostgreSQL: the ids taken for the coup and its wagers


def coup_lock(shoe_id: int, number: object, wagers: int = 0) -> CoupLock:
    """The shoe with shoe_locked's locks, its chain head (FOR UPDATE, as records_chain reads it) and
    whether `number` is recorded already; in two round trips on PostgreSQL. Shoe.DoesNotExist if
    there is no such shoe. A number that is no coup number is looked for as none.

    On PostgreSQL the second read also takes the ids the coup and its `wagers` wagers will have from
    their sequences: with the ids known first every row is hashed in memory and all of them written
    in one statement (`coup_insert`). Ids taken and not used leave a gap, as a rollback does."""
    number = number if isinstance(number, int) and not isinstance(number, bool) and 1 <= number < 2**31 else None
    if not _hand_written():
        shoe = shoe_locked(shoe_id)
        head = ChainHead.objects.select_for_update().filter(shoe_id=shoe_id).values_list("length", "head").first()
        recorded = number is not None and Coup.objects.filter(shoe_id=shoe_id, number=number).exists()
        return CoupLock(shoe, head, recorded)
    lock_sql, head_sql = _coup_lock_sql()
    # Two statements: the shoe is locked before its chain head, in the order every writer of the
    # shoe takes them (one statement would lock the head first, in its join), and the second one's
    # snapshot sees what a writer the first waited for committed.
    with connection.cursor() as cursor:
        cursor.execute(lock_sql, [shoe_id])
        row = cursor.fetchone()
        if row is None:
            raise Shoe.DoesNotExist(f"There is no shoe {shoe_id}.")
        sequences = [Coup._meta.db_table, Coup._meta.pk.column, Wager._meta.db_table, Wager._meta.pk.column]
        cursor.execute(head_sql, [shoe_id, number, *sequences, wagers, shoe_id])
        length, head, recorded, coup_id, wager_ids = cursor.fetchone()
    row = list(row)
    shoe, table, paytable = (
        model_from_row(Shoe, row),
        model_from_row(Table, row),
        model_from_row(PaytableConfiguration, row),
    )
    table.paytable = paytable
    shoe.table = table
    return CoupLock(shoe, None if length is None else (length, head), recorded, (coup_id, wager_ids))


@statement_form
def _coup_lock_sql() -> tuple[str, str]:
    """`coup_lock`'s two statements on PostgreSQL."""
    quote = connection.ops.quote_name
    models = {"s": Shoe, "t": Table, "p": PaytableConfiguration}
    columns = ", ".join(column for alias, model in models.items() for column in model_columns(model, alias))
    name = {model: quote(model._meta.db_table) for model in (*models.values(), Coup, ChainHead)}
    return (
        f"SELECT {columns} FROM {name[Shoe]} s JOIN {name[Table]} t ON t.id = s.table_id "  # noqa: S608
        f"JOIN {name[PaytableConfiguration]} p ON p.id = t.paytable_id "
        "WHERE s.id = %s FOR UPDATE OF s, t FOR SHARE OF p",
        f"SELECT h.length, h.head, EXISTS (SELECT 1 FROM {name[Coup]} WHERE shoe_id = %s AND number = %s), "  # noqa: S608
        "nextval(pg_get_serial_sequence(%s, %s)), "
        "ARRAY(SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)) "
        f"FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT length, head FROM {name[ChainHead]} "
        "WHERE shoe_id = %s FOR UPDATE) h ON true",
    )


# ---------------------------------------------------------------------------------------- coups


def coups_insert(shoe: Shoe, prepared: list[PreparedCoup], actor: Actor, head: object = NOT_READ) -> list[Coup]:
    """Insert prepared coups, their wagers and the commission they accrue, each row linked to the
    shoe's hash chain (its head read once, or given as `head`: records_chain), and write the shoe's
    counters as they stand on `shoe`. The coups stored, as model instances (nothing read back)."""
    now = timezone.now()
    user_id, device_id = getattr(actor.user, "pk", None), getattr(actor.device, "pk", None)
    with records_chain(shoe_id=shoe.pk, head=head):
        coup_rows = _coup_rows(shoe, prepared, shoe.table.paytable_id, now, user_id, device_id)
        coup_ids = rows_insert(Coup, COUP_SPEC, shoe.pk, coup_rows)
        wager_rows = [
            _wager_row(coup_id, wager)
            for coup_id, item in zip(coup_ids, prepared, strict=True)
            for wager in item.wagers
        ]
        coup_days = dict(zip(coup_ids, (row.gaming_day for row in coup_rows), strict=True))
        wager_days = [coup_days[row.coup_id] for row in wager_rows]  # a wager's month partition is its coup's
        wager_ids = rows_insert(Wager, WAGER_SPEC, shoe.pk, wager_rows, extra={"gaming_day": wager_days})
        accrued = [
            (wager_id, row, day)
            for wager_id, row, day in zip(wager_ids, wager_rows, wager_days, strict=True)
            if row.commission_minor > 0
        ]
        entry_rows = [_entry_row(shoe, wager_id, row, now, user_id, device_id) for wager_id, row, _ in accrued]
        rows_insert(CommissionEntry, ENTRY_SPEC, shoe.pk, entry_rows, extra={"gaming_day": [d for _, _, d in accrued]})
        shoe.save(update_fields=list(SHOE_COUNTERS))
    return _coups_built(shoe, actor, coup_ids, coup_rows)


def coup_insert(lock: CoupLock, prepared: PreparedCoup, actor: Actor, owed: Owed) -> Coup:
    """Insert one coup locked by `coup_lock`, as `coups_insert` does, with the outbox rows `owed`
    gives for it. On PostgreSQL in one statement of data-modifying CTEs (the coup, its wagers, the
    commission accrued, the chain head, the shoe's counters, the outbox rows): the ids were taken
    by `coup_lock`, so every row is linked to the chain in memory from the head read (and locked)
    there; the foreign keys between them are deferred to the commit."""
    shoe = lock.shoe
    if lock.ids is None:
        (coup,) = coups_insert(shoe, [prepared], actor, head=lock.chain_head)
        for task, args in owed([coup.pk], coup.gaming_day):
            outbox_enqueue(task, *args)
        return coup
    coup_id, wager_ids = lock.ids
    now = timezone.now()
    user_id, device_id = getattr(actor.user, "pk", None), getattr(actor.device, "pk", None)
    coup_rows = _coup_rows(shoe, [prepared], shoe.table.paytable_id, now, user_id, device_id)
    day = coup_rows[0].gaming_day
    wager_rows = [_wager_row(coup_id, wager) for wager in prepared.wagers]
    entry_rows = [
        _entry_row(shoe, wager_id, row, now, user_id, device_id)
        for wager_id, row in zip(wager_ids, wager_rows, strict=True)
        if row.commission_minor > 0
    ]
    length, head = lock.chain_head or (0, genesis(shoe.pk))
    statements: list[str] = []
    params: list[Any] = []
    for model, spec, rows, ids in (
        (Coup, COUP_SPEC, coup_rows, [coup_id]),
        (Wager, WAGER_SPEC, wager_rows, wager_ids),
        (CommissionEntry, ENTRY_SPEC, entry_rows, None),
    ):
        if not rows:
            continue
        hasher, links = row_hasher(spec), []
        for values in rows:
            length += 1
            head = hasher(head, length, values)
            links.append((length, head))
        extra = {} if model is Coup else {"gaming_day": [day] * len(rows)}
        sql, arrays = _insert_sql(model, spec, shoe.pk, rows, extra, ids=ids, links=links)
        statements.append(sql)
        params += arrays
    head_sql, counters_sql = _chain_head_sql(lock.chain_head is None)
    statements += [head_sql, counters_sql]
    if lock.chain_head is None:
        params += [shoe.pk, length, head, now]
    else:
        params += [length, head, shoe.pk]
    params += [
        cast("Field[Any, Any]", Shoe._meta.get_field(name)).get_db_prep_save(getattr(shoe, name), connection)
        for name in SHOE_COUNTERS
    ]
    params.append(shoe.pk)
    messages = [outbox_message(task, *args) for task, args in owed([coup_id], day)]
    outbox, outbox_values = _values_sql(messages)
    # Only names from the models' metadata go into the text; every value is a parameter.
    sql = "WITH " + ", ".join(f"w{index} AS ({statement})" for index, statement in enumerate(statements))
    with connection.cursor() as cursor:
        cursor.execute(f"{sql} {outbox} RETURNING task_id, id", params + outbox_values)
        outbox_ids = dict(cursor.fetchall())
    for message in messages:
        mark_saved(message, outbox_ids[message.task_id])
        outbox_after_commit(message)
    (coup,) = _coups_built(shoe, actor, [coup_id], coup_rows)
    return coup


@statement_form
def _chain_head_sql(first: bool) -> tuple[str, str]:
    """`coup_insert`'s write of the chain head (its first, or its next) and of the shoe's counters."""
    quote = connection.ops.quote_name
    if first:
        head = (
            f"INSERT INTO {quote(ChainHead._meta.db_table)} (shoe_id, length, head, updated_at) "  # noqa: S608
            "VALUES (%s, %s, %s, %s)"
        )
    else:
        head = f"UPDATE {quote(ChainHead._meta.db_table)} SET length = %s, head = %s WHERE shoe_id = %s"  # noqa: S608
    assignments = ", ".join(f"{quote(_column(Shoe, name))} = %s" for name in SHOE_COUNTERS)
    return head, f"UPDATE {quote(Shoe._meta.db_table)} SET {assignments} WHERE id = %s"  # noqa: S608


def _column(model: type[Model], name: str) -> str:
    """The database column of one of the model's concrete fields."""
    return cast(str, cast("Field[Any, Any]", model._meta.get_field(name)).column)


def _coup_rows(
    shoe: Shoe,
    prepared: list[PreparedCoup],
    paytable_id: int,
    now: dt.datetime,
    user_id: int | None,
    device_id: int | None,
) -> list[CoupRow]:
    """The coups' rows, in their chain spec's field order."""
    coup_rows = []
    for item in prepared:
        dealt_at = item.item.dealt_at or now
        if timezone.is_naive(dealt_at):  # as Django stores a naive time: in the default time zone
            dealt_at = timezone.make_aware(dealt_at)
        evaluation = item.evaluation
        coup_rows.append(
            CoupRow(
                shoe.pk,
                item.item.number,
                dealt_at,
                gaming_day_for(dealt_at),
                [card.code for card in item.player],
                [card.code for card in item.banker],
                evaluation.player_total,
                evaluation.banker_total,
                str(evaluation.winner),
                evaluation.natural,
                evaluation.player_pair,
                evaluation.banker_pair,
                item.item.reported_winner,
                paytable_id,
                now,
                user_id,
                device_id,
            )
        )
    return coup_rows


def _wager_row(coup_id: int, w: SettledWager) -> WagerRow:
    """A settled wager's row (w: a SettledWager of pit.shoes.services.values)."""
    return WagerRow(
        coup_id, w.seat, w.bet, w.currency, w.amount_minor, w.result, w.payout_minor, w.commission_minor, w.paid_minor
    )


def _entry_row(
    shoe: Shoe, wager_id: int, wager: WagerRow, now: dt.datetime, user_id: int | None, device_id: int | None
) -> EntryRow:
    """The commission a wager accrues, as a ledger entry's row."""
    return EntryRow(
        shoe.pk,
        wager.seat,
        EntryKind.ACCRUED.value,
        wager.currency,
        wager.commission_minor,
        wager_id,
        "",
        None,
        "",
        now,
        user_id,
        device_id,
    )


def _coups_built(shoe: Shoe, actor: Actor, coup_ids: list[int], coup_rows: list[CoupRow]) -> list[Coup]:
    """The stored coups as model instances, from the values written (nothing read back)."""
    coups = []
    for coup_id, row in zip(coup_ids, coup_rows, strict=True):
        coup = Coup(**row._asdict())
        coup.shoe, coup.recorded_by_user, coup.recorded_by_device = shoe, actor.user, actor.device
        mark_saved(coup, coup_id)
        coups.append(coup)
    return coups


# ---------------------------------------------------------------------------------------- rows


def rows_insert(
    model: type[Model], spec: ChainSpec, shoe_id: int, rows: list[_Row], extra: dict[str, list[Any]] | None = None
) -> list[int]:
    """Insert a shoe's fact rows, given as tuples of values in the order of their chain spec's
    fields (pit.records.chain.SPECS), linked to the shoe's hash chain; their ids, in order.

    PostgreSQL: one statement, INSERT ... SELECT FROM unnest(one array per column) RETURNING id, each
    row's chain position and hash computed from the same tuple (bulk_create compiles a placeholder
    per value and runs each field's `get_db_prep_save` on model instances: most of a day's batch).
    Elsewhere bulk_create, which links each row as it compiles it (`ChainSeqField.pre_save`); the
    rows are then replaced by the values stored (`recorded_at` is given a moment of its own).

    `extra`: columns outside the chain, one list of values per column name (a wager's and an entry's
    gaming day, their month partition on PostgreSQL: pit.core.partitions)."""
    if not rows:
        return []
    extra = extra or {}
    if _hand_written():
        sql, params = _insert_sql(model, spec, shoe_id, rows, extra)
        with connection.cursor() as cursor:
            cursor.execute(f"{sql} RETURNING {connection.ops.quote_name(cast(str, model._meta.pk.column))}", params)
            return [row[0] for row in cursor.fetchall()]
    created = model._default_manager.bulk_create(  # `objects`: the models declare no other manager
        model(**dict(zip(spec.fields, row, strict=True)), **{name: values[index] for name, values in extra.items()})
        for index, row in enumerate(rows)
    )
    make = cast("Callable[..., _Row]", getattr(type(rows[0]), "_make", tuple))  # a NamedTuple row stays one
    rows[:] = [make(getattr(instance, name) for name in spec.fields) for instance in created]
    return [instance.pk for instance in created]


def _insert_sql(
    model: type[Model],
    spec: ChainSpec,
    shoe_id: int,
    rows: list[Any],
    extra: dict[str, list[Any]],
    ids: list[int] | None = None,
    links: list[tuple[int, str]] | None = None,
) -> tuple[str, list[str]]:
    """PostgreSQL: `rows_insert`'s statement (without RETURNING) and its parameters. `ids`: the rows'
    ids, taken from their sequence beforehand (else the column's default gives them); `links`: their
    chain positions and hashes, computed by the caller (else linked here, in records_chain)."""
    if links is None:
        links = chain_rows(shoe_id=shoe_id, spec=spec, rows=rows)
    columns = [[row[position] for row in rows] for position in range(len(spec.fields))]
    columns += [[seq for seq, _ in links], [link for _, link in links]]
    columns += list(extra.values())
    if ids is not None:
        columns.append(ids)
    sql, json_columns = _insert_text(model, spec.fields, tuple(extra), ids is not None)
    arrays = [
        array_literal([json.dumps(value) for value in column] if is_json else column)
        for is_json, column in zip(json_columns, columns, strict=True)
    ]
    return sql, arrays


@statement_form
def _insert_text(
    model: type[Model], fields: tuple[str, ...], extra: tuple[str, ...], with_ids: bool
) -> tuple[str, list[bool]]:
    """`_insert_sql`'s text and which of its columns are JSON."""
    names_of_fields = [attname.removesuffix("_id") for attname in fields]
    names_of_fields += ["chain_seq", "chain_hash", *extra]
    model_fields = [cast("Field[Any, Any]", model._meta.get_field(name)) for name in names_of_fields]
    if with_ids:
        model_fields.append(model._meta.pk)
    quote = connection.ops.quote_name
    names = ", ".join(quote(cast(str, field.column)) for field in model_fields)
    casts = ", ".join(f"%s::{field.db_type(connection)}[]" for field in model_fields)
    sql = f"INSERT INTO {quote(model._meta.db_table)} ({names}) SELECT * FROM unnest({casts})"  # noqa: S608
    return sql, [isinstance(field, JSONField) for field in model_fields]


def array_literal(values: Sequence[object]) -> str:
    """A column's values as one PostgreSQL array literal (every element quoted, None as NULL), cast by
    the statement to the column's type: one string parameter instead of an adapter call per value
    (a day's batch holds some 150,000 values)."""
    if values and None not in values:
        texts = list(map(str, values))
        plain = "".join(texts)
        if "\\" not in plain and '"' not in plain:  # nothing to escape (most columns): joined in C
            return '{"' + '","'.join(texts) + '"}'
    return (
        "{"
        + ",".join(
            "NULL" if value is None else '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
            for value in values
        )
        + "}"
    )


def _values_sql(instances: Sequence[Model]) -> tuple[str, list[Any]]:
    """INSERT ... VALUES of new model instances of one model (their ids from the column's default),
    as `save()` would insert each (auto_now_add set), and its parameters."""
    sql, fields = _values_text(type(instances[0]), len(instances))
    params = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for instance in instances for field in fields
    ]
    return sql, params


@statement_form
def _values_text(model: type[Model], count: int) -> tuple[str, list[Field[Any, Any]]]:
    """`_values_sql`'s text for `count` rows of `model`, and the fields it binds."""
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    quote = connection.ops.quote_name
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(cast(str, field.column)) for field in fields)}) "  # noqa: S608
        f"VALUES {', '.join([row] * count)}",
        fields,
    )
