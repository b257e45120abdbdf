"""Reads of the hash chains: recomputing them from the rows (verification) and the heads per gaming day."""

import datetime as dt
import hashlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from operator import itemgetter

from django.apps import apps
from django.db import connection, transaction

from pit.core.gaming_day import gaming_day_bounds
from pit.records.canonical import SPECS, ChainSpec, canonical, genesis, row_hasher
from pit.records.models import ChainHead

SHOES_PER_CHUNK = 200


@dataclass(frozen=True)
class ChainBreak:
    """The first place a shoe's chain does not hold, and what differs."""

    shoe_id: int
    seq: int | None
    kind: str
    row_id: int | None
    problem: str

    def __str__(self) -> str:
        where = f"shoe {self.shoe_id}"
        if self.row_id is not None:
            where += f", {self.kind} {self.row_id} at position {self.seq}"
        return f"{where}: {self.problem}"


@dataclass
class Verification:
    shoes: int = 0
    rows: int = 0
    breaks: list[ChainBreak] = field(default_factory=list)
    archived: dict[int, list[str]] = field(default_factory=dict)  # shoe id -> months its archived rows are in

    @property
    def ok(self) -> bool:
        return not self.breaks


_in_snapshot: ContextVar[bool] = ContextVar("chains_snapshot", default=False)


@contextmanager
def chains_snapshot():
    """Every read inside sees the database as of one moment, so a shoe being dealt while its chain
    is read is seen whole up to some coup, never its wagers without their coup or its rows without
    the head they moved. PostgreSQL: one REPEATABLE READ, READ ONLY transaction. SQLite (WAL): one
    deferred read transaction, a snapshot that takes no write lock (the database's IMMEDIATE
    transactions would). Inside a caller's transaction, or nested, the reads share the caller's."""
    if _in_snapshot.get() or connection.in_atomic_block:
        yield
        return
    token = _in_snapshot.set(True)
    try:
        if connection.vendor == "postgresql":
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                yield
        else:
            with connection.cursor() as cursor:
                cursor.execute("BEGIN DEFERRED")
            try:
                yield
            finally:
                with connection.cursor() as cursor:
                    cursor.execute("COMMIT")
    finally:
        _in_snapshot.reset(token)


@dataclass(frozen=True)
class ArchivedRun:
    """Consecutive positions of a shoe's chain whose rows were archived with a month
    (pit.archive: verified before they left, kept in the archive's manifest): `hash` is the stored
    hash of the run's last row, which the next row still in the database chains from."""

    month: str
    first: int
    last: int
    hash: str


def archived_runs(shoe_ids: list[int]) -> dict[int, list[ArchivedRun]]:
    """The archived runs of these shoes' chains, from each archived month's manifest."""
    # The archive app sits above this one (it verifies the chains before it archives): its model by name.
    MonthArchive = apps.get_model("archive", "MonthArchive")  # noqa: N806
    wanted = {str(shoe_id) for shoe_id in shoe_ids}
    runs: dict[int, list[ArchivedRun]] = defaultdict(list)
    archives = MonthArchive.objects.filter(action="detached")
    if connection.vendor == "postgresql":  # only the months holding one of them (archives are PostgreSQL's)
        archives = archives.filter(manifest__chains__has_any_keys=sorted(wanted))
    for month, manifest in archives.values_list("month", "manifest"):
        for shoe, kept in manifest.get("chains", {}).items():
            if shoe in wanted:
                runs[int(shoe)].extend(ArchivedRun(f"{month:%Y-%m}", *run) for run in kept["runs"])
    for shoe_runs in runs.values():
        shoe_runs.sort(key=lambda run: run.first)
    return runs


def archived_shoe_days(*, first_day: dt.date, last_day: dt.date) -> dict[int, tuple[dt.date, str]]:
    """Shoes whose last archived coup falls in the range: shoe id -> (that gaming day, the month)."""
    MonthArchive = apps.get_model("archive", "MonthArchive")  # noqa: N806 - see archived_runs
    found = {}
    months = MonthArchive.objects.filter(
        action="detached", month__lte=last_day, month__gt=first_day - dt.timedelta(days=31)
    ).values_list("month", "manifest")
    for month, manifest in months:
        for shoe, kept in manifest.get("chains", {}).items():
            day = dt.date.fromisoformat(kept["day"])
            if first_day <= day <= last_day:
                found[int(shoe)] = (day, f"{month:%Y-%m}")
    return found


def shoe_ids_for_days(*, first_day: dt.date, last_day: dt.date) -> list[int]:
    """The shoes with a coup in the range (archived ones too), or shuffled in it (a shoe of no coups yet)."""
    Coup = apps.get_model("shoes", "Coup")
    Shoe = apps.get_model("shoes", "Shoe")
    start, end = gaming_day_bounds(first_day)[0], gaming_day_bounds(last_day)[1]
    ids = set(
        Coup.objects.filter(gaming_day__range=(first_day, last_day))
        .order_by()
        .values_list("shoe_id", flat=True)
        .distinct()
    )
    ids.update(Shoe.objects.filter(shuffled_at__gte=start, shuffled_at__lt=end).values_list("pk", flat=True))
    ids.update(archived_shoe_days(first_day=first_day, last_day=last_day))
    return sorted(ids)


def chain_queries(shoe_ids: list[int]) -> Iterator[tuple[ChainSpec, Iterator[tuple]]]:
    """Per kind of chained row, its rows of these shoes: (shoe id, id, chain_seq, chain_hash, *canonical
    fields), unordered (each shoe's rows are put in chain order in memory, cheaper than by the database)."""
    for spec in SPECS:
        rows = (
            apps.get_model(spec.label)
            .objects.filter(**{f"{spec.shoe_path}__in": shoe_ids})
            .order_by()
            .values_list(spec.shoe_path, "pk", "chain_seq", "chain_hash", *spec.fields)
        )
        yield spec, rows.iterator(chunk_size=10_000)


def _verify_shoe(
    shoe_id: int, rows: list, head: tuple[int, str] | None, archived: Sequence[ArchivedRun] = ()
) -> ChainBreak | None:
    """Each row must hash, from the stored hash of the row before it, to its own stored hash: an
    edited row fails itself; a row re-hashed to hide an edit fails the row after it. An archived
    run stands for its positions, and the row after it chains from the run's kept hash.

    `rows`: (position, or -1 for none; the kind's hasher; its spec; the row), in any order."""
    rows.sort(key=itemgetter(0))
    previous = genesis(shoe_id)
    runs = list(archived)
    expected = 0
    for seq, hasher, spec, row in rows:
        expected += 1
        while runs and runs[0].last < expected:
            runs.pop(0)
        while runs and runs[0].first == expected and seq != expected:
            expected, previous = runs[0].last + 1, runs[0].hash
            runs.pop(0)
        if seq != expected:
            if seq == -1:
                seq, problem = None, "the row has no place in the chain (inserted around the application)"
            elif seq > expected:
                problem = f"position {expected} is missing: a row was deleted"
            else:
                problem = f"position {seq} is taken twice: a row was added"
            return ChainBreak(shoe_id, seq, spec.kind, row[1], problem)
        stored = row[3]
        if hasher(previous, seq, row[4:]) != stored:
            computed = hasher(previous, seq, row[4:])
            problem = (
                f"its stored hash {stored[:16]}… is not the hash of its fields after the row before it "
                f"({computed[:16]}…): this row was edited"
            )
            if seq > 1:
                problem += f", or the row at position {seq - 1} was rewritten and re-hashed"
            problem += f"; it now reads {canonical(spec, seq, row[4:]).decode()}"
            return ChainBreak(shoe_id, seq, spec.kind, row[1], problem)
        previous = stored
    for run in runs:  # the chain's archived tail
        if run.first == expected + 1:
            expected, previous = run.last, run.hash
    length = expected
    if head is None:
        if length:
            return ChainBreak(shoe_id, None, "", None, f"{length} rows are chained but the shoe has no chain head")
        return None
    if head != (length, previous):
        return ChainBreak(
            shoe_id,
            None,
            "",
            None,
            f"the chain ends at position {length} (hash {previous[:16]}…) but its head says "
            f"position {head[0]} (hash {head[1][:16]}…): rows were removed from its end",
        )
    return None


def _chunk_read(chunk: list[int]) -> tuple[dict[int, list], dict[int, tuple[int, str]]]:
    by_shoe: dict[int, list] = defaultdict(list)
    for spec, rows in chain_queries(chunk):
        hasher = row_hasher(spec)
        for row in rows:
            seq = row[2]
            by_shoe[row[0]].append((-1 if seq is None else seq, hasher, spec, row))
    heads = {
        shoe_id: (length, head)
        for shoe_id, length, head in ChainHead.objects.filter(shoe_id__in=chunk).values_list(
            "shoe_id", "length", "head"
        )
    }
    return by_shoe, heads


def _chunk_verify(
    chunk: list[int], by_shoe: dict[int, list], heads: dict, archived: dict | None = None
) -> tuple[int, list[ChainBreak]]:
    rows, breaks = 0, []
    archived = archived or {}
    for shoe_id in chunk:
        shoe_rows = by_shoe.pop(shoe_id, [])
        rows += len(shoe_rows)
        found = _verify_shoe(shoe_id, shoe_rows, heads.get(shoe_id), archived.get(shoe_id, ()))
        if found is not None:
            breaks.append(found)
    return rows, breaks


def chains_verify(*, shoe_ids: list[int]) -> Verification:
    """Recompute the chains of these shoes from their rows, a chunk of shoes at a time, all in one
    snapshot (`chains_snapshot`); the first break of each shoe. Rows of an archived month are
    vouched for by the runs its archive kept (`archived` names each such shoe's months)."""
    result = Verification(shoes=len(shoe_ids))
    with chains_snapshot():
        archived = archived_runs(shoe_ids)
        for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
            chunk = shoe_ids[start : start + SHOES_PER_CHUNK]
            rows, breaks = _chunk_verify(chunk, *_chunk_read(chunk), archived)
            result.rows += rows
            result.breaks.extend(breaks)
    result.archived = {shoe_id: sorted({run.month for run in runs}) for shoe_id, runs in archived.items()}
    return result


@dataclass(frozen=True)
class DayHeads:
    """A gaming day's chain heads (shoe id -> (length, head)) and one digest over them all."""

    gaming_day: dt.date
    heads: dict[int, tuple[int, str]]

    @property
    def digest(self) -> str:
        text = "\n".join(f"{shoe_id}:{length}:{head}" for shoe_id, (length, head) in sorted(self.heads.items()))
        return hashlib.sha256(text.encode()).hexdigest()


def chain_heads_for_days(*, first_day: dt.date, last_day: dt.date) -> list[DayHeads]:
    """Per gaming day, the current heads of the shoes whose coups fall in it (a shoe belongs to the
    day of its last coup, as in the reports); what an accountant's export pins."""
    from django.db.models import Max

    Coup = apps.get_model("shoes", "Coup")
    in_range = Coup.objects.filter(gaming_day__range=(first_day, last_day)).values("shoe_id")
    day_of_shoe = dict(
        Coup.objects.filter(shoe_id__in=in_range)
        .values("shoe_id")
        .annotate(day=Max("gaming_day"))
        .filter(day__range=(first_day, last_day))
        .order_by()
        .values_list("shoe_id", "day")
    )
    archived = archived_shoe_days(first_day=first_day, last_day=last_day)
    if archived:  # a shoe of an archived month whose live coups (if any) come before its archived ones
        live_day = dict(
            Coup.objects.filter(shoe_id__in=list(archived))
            .values("shoe_id")
            .annotate(day=Max("gaming_day"))
            .order_by()
            .values_list("shoe_id", "day")
        )
        for shoe_id, (day, _month) in archived.items():
            if shoe_id not in day_of_shoe and live_day.get(shoe_id, day) <= day:
                day_of_shoe[shoe_id] = day
    heads = {
        shoe_id: (length, head)
        for shoe_id, length, head in ChainHead.objects.filter(shoe_id__in=list(day_of_shoe)).values_list(
            "shoe_id", "length", "head"
        )
    }
    days: dict[dt.date, dict] = defaultdict(dict)
    for shoe_id, day in day_of_shoe.items():
        if shoe_id in heads:
            days[day][shoe_id] = heads[shoe_id]
    return [DayHeads(day, days[day]) for day in sorted(days)]


def _months_of(day: DayHeads, archived: dict[int, tuple[dt.date, str]]) -> list[str]:
    return sorted({archived[shoe_id][1] for shoe_id in day.heads if shoe_id in archived})


def record_heads(*, first_day: dt.date, last_day: dt.date) -> list[dict]:
    """The chain heads of each gaming day, as the reports publish them (every table of the day,
    whatever a report's filter): [{"gaming_day", "digest", "shoes": [{"shoe", "table", "sequence",
    "rows", "head"}]}]. An export that carries them pins the record as it stood."""
    days = chain_heads_for_days(first_day=first_day, last_day=last_day)
    Shoe = apps.get_model("shoes", "Shoe")
    shoe_ids = [shoe_id for day in days for shoe_id in day.heads]
    names = {
        pk: (code, sequence)
        for pk, code, sequence in Shoe.objects.filter(pk__in=shoe_ids).values_list("pk", "table__code", "sequence")
    }
    archived = archived_shoe_days(first_day=first_day, last_day=last_day)
    return [
        {
            "gaming_day": day.gaming_day.isoformat(),
            "digest": day.digest,
            # The months whose archives hold rows of the day's shoes (their heads are kept all the same).
            **({"archived": months} if (months := _months_of(day, archived)) else {}),
            "shoes": [
                {
                    "shoe": shoe_id,
                    "table": names[shoe_id][0],
                    "sequence": names[shoe_id][1],
                    "rows": length,
                    "head": head,
                }
                for shoe_id, (length, head) in sorted(day.heads.items())
            ],
        }
        for day in days
    ]
