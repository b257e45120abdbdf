"""Reads of the hash chains: recomputing the shoes' chains and every other stream from their rows
(verification), and the heads per gaming day."""

import datetime as dt
import hashlib
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from operator import itemgetter

from django.apps import apps
from django.db import connection, models, transaction

from pit.accounts.audit import event_model_for
from pit.core.gaming_day import gaming_day_bounds
from pit.records.canonical import SPECS, ChainSpec, canonical, genesis, row_hasher
from pit.records.guard import IGNORE_FUNCTION, IGNORE_NOTHING_BODY, ignore_function_body, normalized
from pit.records.models import ChainHead, StreamLink
from pit.records.streams import StreamSpec, stream_specs
from pit.records.streams import canonical as stream_canonical
from pit.records.streams import genesis as stream_genesis
from pit.records.streams import link_hash as stream_link_hash

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


# ---------------------------------------------------------------------------------------- streams


@dataclass(frozen=True)
class StreamBreak:
    """A place where a stream (pit.records.streams) does not hold, and what differs."""

    stream: str
    seq: int | None
    row_id: int | None
    problem: str

    def __str__(self) -> str:
        where = self.stream
        if self.row_id is not None:
            where += f" row {self.row_id}"
        if self.seq is not None:
            where += f" at position {self.seq}"
        return f"{where}: {self.problem}"


@dataclass
class StreamVerification:
    streams: int = 0
    rows: int = 0
    breaks: list[StreamBreak] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks


ROWS_PER_READ = 5_000
# A row the sealer has not linked this long after it was recorded is named (the sealer runs every minute).
SEAL_GRACE = dt.timedelta(minutes=10)
# The field that says when a row was written, first found: what the grace period is measured on.
_WRITTEN_AT = ("recorded_at", "pgh_created_at", "created_at", "sealed_at")


def _written_at(model) -> str | None:
    names = {f.name for f in model._meta.concrete_fields}
    return next((name for name in _WRITTEN_AT if name in names), None)


def _stream_verify(spec: StreamSpec, since, until, now) -> tuple[int, list[StreamBreak]]:
    model, breaks = spec.model, []
    links = StreamLink.objects.filter(stream=spec.stream)
    if since is not None:
        links = links.filter(sealed_at__gte=since)
    if until is not None:
        links = links.filter(sealed_at__lt=until)
    chain = list(links.order_by("seq").values_list("seq", "row_id", "hash"))
    previous, expected = stream_genesis(spec.stream), 1
    if chain and chain[0][0] > 1:
        expected = chain[0][0]
        before = StreamLink.objects.filter(stream=spec.stream, seq=expected - 1).values_list("hash", flat=True).first()
        if before is None:
            breaks.append(StreamBreak(spec.stream, expected - 1, None, "the link at this position is missing"))
            before = ""
        previous = before
    for start in range(0, len(chain), ROWS_PER_READ):
        part = chain[start : start + ROWS_PER_READ]
        rows = {
            row[0]: row[1:]
            for row in models.QuerySet(model).filter(pk__in=[link[1] for link in part]).values_list("pk", *spec.fields)
        }
        for seq, row_id, stored in part:
            if seq != expected:
                breaks.append(
                    StreamBreak(
                        spec.stream,
                        expected,
                        None,
                        f"positions {expected} to {seq - 1} are missing: links were deleted",
                    )
                )
            expected = seq + 1
            values = rows.get(row_id)
            if values is None:
                breaks.append(StreamBreak(spec.stream, seq, row_id, "the row was deleted"))
            elif stream_link_hash(previous, spec, seq, row_id, values) != stored:
                problem = "its fields do not hash to its link: this row was edited"
                if seq > 1:
                    problem += f", or the row at position {seq - 1} was rewritten and its link re-made"
                problem += f"; it now reads {stream_canonical(spec, seq, row_id, values)}"
                breaks.append(StreamBreak(spec.stream, seq, row_id, problem))
            previous = stored
    # Rows never linked: inserted around the application's sealer, or the sealer is not running.
    unlinked: models.QuerySet = models.QuerySet(model).filter(
        ~models.Exists(StreamLink.objects.filter(stream=spec.stream, row_id=models.OuterRef("pk")))
    )
    # Late: written before the grace period (by its own time, where it has one), or older (a lower
    # id) than a row the sealer linked before the grace period.
    late = models.Q(
        pk__lt=models.Subquery(
            StreamLink.objects.filter(stream=spec.stream, sealed_at__lt=now - SEAL_GRACE)
            .order_by()
            .values("stream")
            .annotate(last=models.Max("row_id"))
            .values("last")
        )
    )
    written_at = _written_at(model)
    if written_at is not None:
        late |= models.Q(**{f"{written_at}__lt": now - SEAL_GRACE})
    unlinked = unlinked.filter(late)
    for row_id in unlinked.order_by("pk").values_list("pk", flat=True)[:100]:
        breaks.append(
            StreamBreak(
                spec.stream,
                None,
                row_id,
                f"the row has no link {SEAL_GRACE} after it was written: inserted around the application, "
                "or the sealer (records.streams_seal) is not running",
            )
        )
    return len(chain), breaks


def tracked_models() -> list[tuple[type, type]]:
    """Every model the audit trail tracks, with its event model, in label order."""
    pairs = []
    for model in apps.get_models():
        if model._meta.proxy:
            continue
        event_model = event_model_for(model)
        if event_model is not None:
            pairs.append((model, event_model))
    return sorted(pairs, key=lambda pair: pair[0]._meta.label)


def _tracked_columns(model, event_model) -> list[str]:
    own = {f.attname: f.column for f in model._meta.concrete_fields}
    return [f.column for f in event_model._meta.concrete_fields if f.attname in own and not f.name.startswith("pgh_")]


def _tracked_verify(model, event_model, connection) -> list[StreamBreak]:
    """PostgreSQL: every row's tracked columns equal its latest audit event's (the event is chained, so
    a column changed past the trail's trigger shows here: a violation's status, a shoe's close)."""
    quote = connection.ops.quote_name
    columns = _tracked_columns(model, event_model)
    pk = quote(model._meta.pk.column)
    mine = ", ".join(f"m.{quote(column)}" for column in columns)
    theirs = ", ".join(f"e.{quote(column)}" for column in columns)
    # Names from the models' metadata only.
    sql = (
        f"SELECT m.{pk}, e.pgh_id FROM {quote(model._meta.db_table)} m "  # noqa: S608
        f"LEFT JOIN LATERAL (SELECT * FROM {quote(event_model._meta.db_table)} ev "
        f"WHERE ev.pgh_obj_id = m.{pk} ORDER BY ev.pgh_id DESC LIMIT 1) e ON true "
        f"WHERE e.pgh_id IS NULL OR ROW({mine}) IS DISTINCT FROM ROW({theirs}) ORDER BY m.{pk} LIMIT 100"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        found = cursor.fetchall()
    return [
        StreamBreak(
            model._meta.label,
            None,
            row_id,
            "the row has no audit event: written around the audit trail"
            if event_id is None
            else f"the row differs from its latest audit event ({event_model._meta.label} {event_id}): "
            "changed around the audit trail",
        )
        for row_id, event_id in found
    ]


def triggers_guard_verify(connection) -> list[StreamBreak]:
    """PostgreSQL: the audit trail's triggers ignore nothing (pit.records.guard)."""
    body = ignore_function_body(connection)
    if body is None or normalized(body) != normalized(IGNORE_NOTHING_BODY):
        return [
            StreamBreak(
                IGNORE_FUNCTION,
                None,
                None,
                "the function deciding which triggers are skipped is not pit's: the audit trail can be switched off "
                "(run manage.py migrate as the owner)",
            )
        ]
    return []


def streams_verify(*, since=None, until=None, now=None) -> StreamVerification:
    """Recompute every stream from its rows (the links sealed in [since, until), or all), name each row
    never linked, and on PostgreSQL each row whose updatable columns differ from its latest audit event."""
    from django.db import connection
    from django.utils import timezone

    now = now or timezone.now()
    result = StreamVerification()
    for spec in stream_specs():
        rows, breaks = _stream_verify(spec, since, until, now)
        result.streams += 1
        result.rows += rows
        result.breaks.extend(breaks)
    if connection.vendor == "postgresql":
        for model, event_model in tracked_models():
            result.breaks.extend(_tracked_verify(model, event_model, connection))
        result.breaks.extend(triggers_guard_verify(connection))
    return result


def stream_heads() -> dict[str, tuple[int, str]]:
    """Every stream's head: its last link's position and hash (stream -> (seq, hash)), what a heads
    file anchors beside the shoes' heads."""
    last = list(StreamLink.objects.order_by().values("stream").annotate(seq=models.Max("seq")))
    if not last:
        return {}
    wanted = models.Q()
    for row in last:
        wanted |= models.Q(stream=row["stream"], seq=row["seq"])
    return {
        stream: (seq, link)
        for stream, seq, link in StreamLink.objects.filter(wanted).values_list("stream", "seq", "hash")
    }
