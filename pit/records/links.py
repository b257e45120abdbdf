"""Linking new fact rows to their shoe's hash chain: each row about to be inserted takes the next
position and its hash, and the shoe's chain head (`ChainHead`) moves on. Called by the chained
models' field (pit.records.chain.ChainSeqField.pre_save) and by the batch writers; it imports the
format (pit.records.canonical) and the head's model, never the field's module or the services.
"""

import threading
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import transaction

from pit.records.canonical import ChainSpec, genesis, row_hash, row_hasher, values_of
from pit.records.models import ChainHead

_local = threading.local()
# `records_chain(head=...)` not given: the block reads the head itself.
NOT_READ = object()


@dataclass
class _Cursor:
    shoe_id: int
    length: int
    head: str
    stored: bool

    @classmethod
    def load(cls, shoe_id: int, row=NOT_READ) -> "_Cursor":
        # FOR UPDATE: writers of a shoe already hold its lock; this also orders any that do not.
        if row is NOT_READ:
            row = ChainHead.objects.select_for_update().filter(shoe_id=shoe_id).values_list("length", "head").first()
        if row is None:
            return cls(shoe_id, 0, genesis(shoe_id), False)
        return cls(shoe_id, row[0], row[1], True)

    def save(self) -> None:
        if self.stored:
            ChainHead.objects.filter(shoe_id=self.shoe_id).update(length=self.length, head=self.head)
        else:
            ChainHead.objects.create(shoe_id=self.shoe_id, length=self.length, head=self.head)
            self.stored = True


def _cursors() -> dict[int, _Cursor]:
    if not hasattr(_local, "cursors"):
        _local.cursors = {}
    return _local.cursors


@contextmanager
def records_chain(*, shoe_id: int, head=NOT_READ):
    """Inserts of a shoe's fact rows inside this block link to its chain in memory; the head is
    read once at the start and written once at the end (a batch of 800 coups costs two queries).

    Use it inside the transaction that inserts, around the inserts. Without it each insert reads
    and writes the head itself, which is right but costs two queries a row. A caller that read the
    head row already, locked FOR UPDATE in this transaction, passes it as `head` ((length, head),
    or None when the shoe has no chain yet) and saves the read.
    """
    cursors = _cursors()
    if shoe_id in cursors:  # nested: the outer block writes the head
        yield
        return
    # No savepoint of its own: an error in the block fails the caller's transaction anyway.
    with transaction.atomic(savepoint=False):
        cursor = cursors[shoe_id] = _Cursor.load(shoe_id, head)
        start = cursor.length
        try:
            yield
        finally:
            del cursors[shoe_id]
        if cursor.length != start:
            cursor.save()


def chain_link(instance, spec: ChainSpec) -> None:
    """Give a row about to be inserted its position and hash (called by `ChainSeqField.pre_save`)."""
    shoe_id = spec.shoe_of(instance)
    cursor = _cursors().get(shoe_id)
    alone = cursor is None
    if cursor is None:
        cursor = _Cursor.load(shoe_id)
    cursor.length += 1
    cursor.head = row_hash(cursor.head, spec, cursor.length, values_of(spec, instance))
    instance.chain_seq, instance.chain_hash = cursor.length, cursor.head
    if alone:
        cursor.save()


def chain_rows(*, shoe_id: int, spec: ChainSpec, rows: list) -> list[tuple[int, str]]:
    """The positions and hashes of rows about to be inserted into a shoe's chain, in order, from
    their values in the spec's field order: what `chain_link` gives a model instance, for rows a
    batch builds without one. Use it inside `records_chain`."""
    cursor = _cursors().get(shoe_id)
    alone = cursor is None
    if cursor is None:
        cursor = _Cursor.load(shoe_id)
    hasher, length, head = row_hasher(spec), cursor.length, cursor.head
    links = []
    for values in rows:
        length += 1
        head = hasher(head, length, values)
        links.append((length, head))
    cursor.length, cursor.head = length, head
    if alone:
        cursor.save()
    return links
