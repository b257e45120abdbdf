"""Writes of the hash chains: linking new fact rows to their shoe's chain, and recording what a
verification found as a violation."""
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from django.apps import apps
from django.db import transaction

from pit import game
from pit.records.chain import ChainSpec, genesis, row_hash, row_hasher, values_of
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


def _cursors() -> dict:
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
    if alone:
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
    if alone:
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


RECORDS_CHECK = "records_verify"


def records_verify(*, first_day, last_day):
    """Verify the chains of the shoes of these gaming days; each break is recorded once as a
    `record_chain_broken` violation of its shoe (safe to run twice). Returns the Verification."""
    from pit.compliance.services import violation_record
    from pit.records.selectors import chains_verify, shoe_ids_for_days
    Shoe = apps.get_model("shoes", "Shoe")  # noqa: N806 - the shoes app's models hash their rows through this app
    result = chains_verify(shoe_ids=shoe_ids_for_days(first_day=first_day, last_day=last_day))
    shoes = Shoe.objects.select_related("table").in_bulk([found.shoe_id for found in result.breaks])
    for found in result.breaks:
        shoe = shoes[found.shoe_id]
        last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
        with transaction.atomic():
            violation_record(
                finding=game.violation("record_chain_broken", f"The record of {shoe} was altered: {found}."),
                fingerprint=f"record_chain:shoe{shoe.pk}:{found.kind}{found.row_id}:{found.seq}",
                table=shoe.table, shoe=shoe, gaming_day=last_coup.gaming_day if last_coup else last_day,
                found_by=RECORDS_CHECK,
            )
    return result
