"""Chain heads anchored outside the database's reach, and the record checked against them.

Someone with the database owner's rights can rewrite a row, every hash after it and the chain head:
the chains then verify. What they cannot rewrite is what left the database before, signed with a
key the database never sees (PIT_RECORDS_SIGNING_KEY, HMAC-SHA256):

- **heads files**: each gaming day's heads (`record_heads`) appended as one signed JSON line to
  PIT_RECORDS_ANCHOR_DIR/heads-YYYY-MM-DD.jsonl, a running entry as the open day's heads move and a
  final one after the day ends; each line also carries every other fact stream's head as it stands
  when the line is written (`stream_heads`: stream, seq, hash), and names the SHA-256 of the line
  before it, so a line taken out shows. Written by beat (`records.anchor_heads`) and `manage.py anchor_heads`; only ever
  appended (the directory is meant to be append-only for the runtime user).
- **signed exports**: the commission report's JSON or XLSX as pit exports it (it carries the day's
  heads), with a signature file beside it (`<file>.sig`, `manage.py sign_export`); an archived
  month's manifest.json is signed the same way and carries each shoe's head as it was archived.

`anchors_check` recomputes each anchored shoe's chain from its rows and holds it to each anchor: at
the anchored position the chain must end in the anchored hash; and each anchored stream's link at
the anchored position must carry the anchored hash (a stream rewritten and re-linked from that
position on, or its links removed, shows there). Design: docs/design/records.md.
"""

import datetime as dt
import fcntl
import hashlib
import hmac
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.db import models
from django.utils import timezone

from pit.core.gaming_day import current_gaming_day
from pit.records.canonical import SPECS
from pit.records.models import ChainHead, StreamLink
from pit.records.selectors import (
    DayHeads,
    Verification,
    archived_runs,
    chains_snapshot,
    chains_verify,
    record_heads,
    stream_heads,
)

# The format of a heads file's line: "pit-heads-2" carries the streams' heads beside the shoes';
# a "pit-heads-1" line (the shoes' heads only) is still read.
FORMAT = "pit-heads-2"
FORMATS_READ = ("pit-heads-1", FORMAT)
SIGNATURE_FORMAT = "pit-signature-1"
MIN_KEY_CHARS = 32
HEADS_SHEET = "Record heads"


class AnchorError(Exception):
    """Heads cannot be anchored or read as asked (no key, a signature that does not match, a file
    that is not a heads file or an export carrying heads); nothing was written or compared."""


# ------------------------------------------------------------------------------------ signing


def signing_key() -> bytes:
    key = settings.PIT_RECORDS_SIGNING_KEY or ""
    if len(key) < MIN_KEY_CHARS:
        raise AnchorError(
            f"PIT_RECORDS_SIGNING_KEY is {'not set' if not key else 'shorter than 32 characters'}: "
            "heads cannot be signed or their signatures checked"
        )
    return key.encode()


def key_id(key: bytes) -> str:
    """A name for the key that says which key signed, and reveals nothing of it."""
    return hashlib.sha256(b"pit-signing-key:" + key).hexdigest()[:16]


def _canonical(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _mac(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _check_mac(key: bytes, data: bytes, signature: object, signed_by: object, what: str) -> None:
    if signed_by != key_id(key):
        raise AnchorError(
            f"{what} is signed with another key (key {signed_by}; PIT_RECORDS_SIGNING_KEY is key {key_id(key)})"
        )
    if not isinstance(signature, str) or not hmac.compare_digest(_mac(key, data), signature):
        raise AnchorError(f"{what}: the signature does not match its content: it was altered after it was signed")


def signature_path(path: Path) -> Path:
    return path.with_name(path.name + ".sig")


def export_sign(path: Path) -> Path:
    """Write `<file>.sig` beside an export: HMAC-SHA256 of its bytes with the signing key. Refused
    if a signature is there already (a signature is never rewritten)."""
    key = signing_key()
    data = path.read_bytes()
    target = signature_path(path)
    body = {
        "format": SIGNATURE_FORMAT,
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "key": key_id(key),
        "signature": _mac(key, data),
    }
    try:
        with target.open("xb") as out:
            out.write(_canonical(body) + b"\n")
    except FileExistsError:
        raise AnchorError(f"{target} exists: a signature is never rewritten") from None
    return target


def _export_signature_check(path: Path, data: bytes) -> None:
    target = signature_path(path)
    if not target.exists():
        raise AnchorError(
            f"{path} has no signature ({target.name} beside it): sign exports with `manage.py sign_export` when "
            "they are written, or pass --unsigned for a copy whose integrity is vouched for outside pit"
        )
    try:
        body = json.loads(target.read_bytes())
    except ValueError:
        raise AnchorError(f"{target} is not a pit signature") from None
    if not isinstance(body, dict) or body.get("format") != SIGNATURE_FORMAT:
        raise AnchorError(f"{target} is not a pit signature")
    _check_mac(signing_key(), data, body.get("signature"), body.get("key"), str(path))


# ------------------------------------------------------------------------------------ heads files


def anchor_dir() -> Path:
    return Path(settings.PIT_RECORDS_ANCHOR_DIR)


def heads_path(gaming_day: dt.date, directory: Path | None = None) -> Path:
    return (directory or anchor_dir()) / f"heads-{gaming_day.isoformat()}.jsonl"


@dataclass(frozen=True)
class Written:
    gaming_day: dt.date
    state: str
    shoes: int
    path: Path
    streams: int = 0


def _append_entry(path: Path, gaming_day: dt.date, final: bool, key: bytes) -> Written | None:
    """Append the day's heads as a signed line unless the last line says the same (and, for an
    ended day, is final). Under an exclusive lock on the file: a beat run and a command never interleave."""
    day = record_heads(first_day=gaming_day, last_day=gaming_day)
    heads: dict[str, Any] = day[0] if day else {"digest": DayHeads(gaming_day, {}).digest, "shoes": []}
    state = "final" if final else "running"
    if not heads["shoes"] and not path.exists():
        return None  # a day with no shoe: nothing to pin (the streams are pinned by the days that have one)
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_APPEND: every write goes to the end whatever the offset, the one mode `chattr +a` allows.
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with open(path, "rb") as existing:
            data = existing.read()
        lines = data.splitlines()
        try:
            last = json.loads(lines[-1]) if lines else None
        except ValueError:  # a line cut short (a crash while writing): verification will refuse the file
            last = None
        last_line: dict = last if isinstance(last, dict) else {}
        streams = [{"stream": name, "seq": seq, "hash": link} for name, (seq, link) in sorted(stream_heads().items())]
        # An ended day's final line is written once (again only if its shoes moved); the open day's
        # running line follows the streams too, so the streams' heads leave the database as they grow.
        same = last_line.get("digest") == heads["digest"] and (final or last_line.get("streams") == streams)
        if same and (last_line.get("state") == "final" or not final):
            return None
        shoes = [{"shoe": shoe["shoe"], "rows": shoe["rows"], "head": shoe["head"]} for shoe in heads["shoes"]]
        body: dict[str, Any] = {
            "format": FORMAT,
            "gaming_day": gaming_day.isoformat(),
            "state": state,
            "written_at": timezone.now().astimezone(dt.UTC).isoformat(timespec="microseconds"),
            "previous": hashlib.sha256(lines[-1]).hexdigest() if lines else None,
            "digest": heads["digest"],
            "shoes": shoes,
            "streams": streams,
            "key": key_id(key),
        }
        body["signature"] = _mac(key, _canonical(body))
        line = _canonical(body) + b"\n"
        if data and not data.endswith(b"\n"):
            line = b"\n" + line  # never onto the end of a line cut short
        written = 0
        while written < len(line):
            written += os.write(fd, line[written:])
        os.fsync(fd)
    finally:
        os.close(fd)
    return Written(gaming_day, state, len(shoes), path, len(streams))


def heads_anchor(
    *, days: Iterable[dt.date] | None = None, today: dt.date | None = None, directory: Path | None = None
) -> list[Written]:
    """Append each day's heads to its heads file: the open gaming day's as they stand (running), and
    each ended day's (by default the PIT_RECORDS_ANCHOR_DAYS before today) as final, once, and again
    only if they moved since (a shoe shuffled after the day's end). Refused without the signing key."""
    key = signing_key()
    today = today or current_gaming_day()
    if days is None:
        days = [today - dt.timedelta(days=back) for back in range(settings.PIT_RECORDS_ANCHOR_DAYS, -1, -1)]
    written = []
    for day in sorted(days):
        with chains_snapshot():
            entry = _append_entry(heads_path(day, directory), day, day < today, key)
        if entry is not None:
            written.append(entry)
    return written


# ------------------------------------------------------------------------------------ reading anchors


@dataclass(frozen=True)
class Anchor:
    """A shoe's chain as something outside the database pinned it: `rows` long, ending in `head`."""

    shoe_id: int
    rows: int
    head: str
    gaming_day: str
    source: str


@dataclass(frozen=True)
class StreamAnchor:
    """A fact stream (pit.records.streams) as a heads file pinned it: its link at `seq` carried `hash`."""

    stream: str
    seq: int
    hash: str
    gaming_day: str
    source: str


def _heads_file_anchors(path: Path, data: bytes, key: bytes) -> list[Anchor | StreamAnchor]:
    anchors: list[Anchor | StreamAnchor] = []
    previous = None
    for number, line in enumerate(data.splitlines(), 1):
        where = f"{path.name} line {number}"
        try:
            body = json.loads(line)
        except ValueError:
            raise AnchorError(f"{where} is not JSON: the file was altered") from None
        if not isinstance(body, dict) or body.get("format") not in FORMATS_READ:
            raise AnchorError(f"{where} is not a {FORMAT} entry")
        signature = body.pop("signature", None)
        _check_mac(key, _canonical(body), signature, body.get("key"), where)
        expected: str | None = hashlib.sha256(previous).hexdigest() if previous is not None else None
        if body.get("previous") != expected:
            raise AnchorError(f"{where} does not follow the line before it: a line was removed or replaced")
        previous = line
        anchors += _day_anchors(body, where)
        anchors += _stream_anchors(body, where)
    return anchors


def _stream_anchors(line: dict, where: str) -> list[StreamAnchor]:
    """The streams' heads a heads file's line carries (none in a "pit-heads-1" line); the line's
    signature covers them."""
    try:
        return [
            StreamAnchor(str(head["stream"]), int(head["seq"]), str(head["hash"]), str(line["gaming_day"]), where)
            for head in line.get("streams", ())
        ]
    except (KeyError, TypeError, ValueError):
        raise AnchorError(f"{where}: a line's streams need stream, seq and hash") from None


def _day_anchors(day: dict, where: str) -> list[Anchor]:
    """A day's heads as anchors, after checking the day's digest over them (an edited head shows)."""
    try:
        heads = {int(shoe["shoe"]): (int(shoe["rows"]), str(shoe["head"])) for shoe in day["shoes"]}
        gaming_day = dt.date.fromisoformat(str(day["gaming_day"]))
        digest = day["digest"]
    except (KeyError, TypeError, ValueError):
        raise AnchorError(f"{where}: a day's heads need gaming_day, digest and shoes (shoe, rows, head)") from None
    if DayHeads(gaming_day, heads).digest != digest:
        raise AnchorError(f"{where}: the digest of {gaming_day} is not the digest of its heads: the heads were edited")
    return [Anchor(shoe, rows, head, gaming_day.isoformat(), where) for shoe, (rows, head) in sorted(heads.items())]


def _xlsx_days(path: Path) -> list[dict]:
    from openpyxl import load_workbook  # only an XLSX export needs it

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a file that is not a workbook
        raise AnchorError(f"{path} is not a workbook: {exc}") from None
    if HEADS_SHEET not in workbook.sheetnames:
        raise AnchorError(f'{path} has no "{HEADS_SHEET}" sheet: only the commission report carries the heads')
    days: dict[str, dict] = {}
    for row in workbook[HEADS_SHEET].iter_rows(min_row=2, values_only=True):
        gaming_day, table, _sequence, shoe, rows, head = (*row, None, None, None, None, None, None)[:6]
        if gaming_day is None:
            continue
        day_text = (gaming_day.date() if isinstance(gaming_day, dt.datetime) else gaming_day).isoformat()
        day = days.setdefault(day_text, {"gaming_day": day_text, "digest": None, "shoes": []})
        if table == "day digest":
            day["digest"] = head
        else:
            day["shoes"].append({"shoe": shoe, "rows": rows, "head": head})
    workbook.close()
    return list(days.values())


def _manifest_anchors(path: Path, manifest: dict) -> list[Anchor]:
    """An archived month's manifest (pit.archive): each shoe's chain head as it stood when archived."""
    where = f"{path.parent.name}/{path.name}"
    try:
        return [
            Anchor(int(shoe), int(kept["length"]), str(kept["head"]), str(kept["day"]), where)
            for shoe, kept in sorted(manifest["chains"].items(), key=lambda item: int(item[0]))
            if kept.get("length") is not None
        ]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise AnchorError(f"{where}: a manifest's chains need length, head and day per shoe") from None


def anchors_read(path: Path, *, unsigned: bool = False) -> list[Anchor | StreamAnchor]:
    """The anchors in a heads file, a directory of them, a commission report export (JSON or XLSX)
    or an archived month's manifest.json, with its signature beside it. Refuses (AnchorError) a
    signature that does not match, a missing one (unless `unsigned`), a heads file with a line
    removed, a day whose digest does not match its heads."""
    if path.is_dir():
        files = sorted(path.glob("heads-*.jsonl"))
        if not files:
            raise AnchorError(f"{path} holds no heads file (heads-YYYY-MM-DD.jsonl)")
        return [anchor for file in files for anchor in anchors_read(file, unsigned=unsigned)]
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AnchorError(f"{path} cannot be read: {exc.strerror}") from None
    if data.startswith(b"PK"):  # a zip: an XLSX workbook
        if not unsigned:
            _export_signature_check(path, data)
        days = _xlsx_days(path)
    else:
        first = data.split(b"\n", 1)[0]
        try:
            head = json.loads(first)
        except ValueError:
            head = None
        if isinstance(head, dict) and head.get("format") in FORMATS_READ:
            return _heads_file_anchors(path, data, signing_key())
        try:
            report = json.loads(data)
        except ValueError:
            raise AnchorError(f"{path} is neither a heads file nor a report export (JSON or XLSX)") from None
        if isinstance(report, dict) and isinstance(report.get("chains"), dict) and "tables" in report:
            if not unsigned:
                _export_signature_check(path, data)
            return list(_manifest_anchors(path, report))
        if not isinstance(report, dict) or "record_heads" not in report:
            raise AnchorError(f"{path} carries no record_heads: only the commission report carries the heads")
        if not unsigned:
            _export_signature_check(path, data)
        days = report["record_heads"]
    return [anchor for day in days for anchor in _day_anchors(day, path.name)]


def anchored_shoes(anchors: Iterable[Anchor | StreamAnchor]) -> list[Anchor]:
    return [anchor for anchor in anchors if isinstance(anchor, Anchor)]


# ------------------------------------------------------------------------------------ checking


@dataclass(frozen=True)
class AnchorFinding:
    anchor: Anchor | StreamAnchor
    problem: str

    def __str__(self) -> str:
        anchor = self.anchor
        if isinstance(anchor, StreamAnchor):
            return (
                f"stream {anchor.stream}: {self.problem} (anchored by {anchor.source}, gaming day "
                f"{anchor.gaming_day}: position {anchor.seq}, hash {anchor.hash[:16]}…)"
            )
        return (
            f"shoe {anchor.shoe_id}: {self.problem} (anchored by {anchor.source}, gaming day {anchor.gaming_day}: "
            f"position {anchor.rows}, hash {anchor.head[:16]}…)"
        )


@dataclass
class AnchorCheck:
    verification: Verification
    anchors: int = 0
    streams: int = 0  # the streams anchored
    findings: list[AnchorFinding] = field(default_factory=list)
    # Anchored positions inside an archived run: its rows were verified when they were archived.
    archived: list[Anchor] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.verification.ok and not self.findings


def _hashes_at(positions: dict[int, set[int]]) -> dict[tuple[int, int], str]:
    """The stored hash of the row at each (shoe, position) asked, across every chained kind."""
    shoe_ids = list(positions)
    seqs = sorted(set().union(*positions.values())) if positions else []
    found = {}
    for spec in SPECS:
        rows = (
            apps.get_model(spec.label)
            .objects.filter(**{f"{spec.shoe_path}__in": shoe_ids, "chain_seq__in": seqs})
            .order_by()
            .values_list(spec.shoe_path, "chain_seq", "chain_hash")
        )
        for shoe_id, seq, chain_hash in rows.iterator(chunk_size=10_000):
            if seq in positions[shoe_id]:
                found[shoe_id, seq] = chain_hash
    return found


def _links_at(anchors: list[StreamAnchor]) -> tuple[dict[tuple[str, int], str], dict[str, int]]:
    """The stored hash of each anchored stream's link at each anchored position, and each anchored
    stream's length (its last link's position)."""
    seqs: dict[str, set[int]] = {}
    for anchor in anchors:
        seqs.setdefault(anchor.stream, set()).add(anchor.seq)
    stored = {}
    for stream, wanted in seqs.items():  # a query per stream: a heads file anchors every stream on every line
        links = StreamLink.objects.filter(stream=stream, seq__in=sorted(wanted)).values_list("seq", "hash")
        stored.update({(stream, seq): link for seq, link in links.iterator(chunk_size=10_000)})
    lengths = dict(
        StreamLink.objects.filter(stream__in={anchor.stream for anchor in anchors})
        .order_by()
        .values("stream")
        .annotate(length=models.Max("seq"))
        .values_list("stream", "length")
    )
    return stored, lengths


def _streams_check(check: "AnchorCheck", anchors: list[StreamAnchor], stored, lengths) -> None:
    """One finding per stream that misses an anchor: at the first position it misses (a heads file
    anchors every stream on each of its lines; one rewrite misses every anchor after it)."""
    named = set()
    for anchor in sorted(anchors, key=lambda anchor: (anchor.stream, anchor.seq)):
        link = stored.get((anchor.stream, anchor.seq))
        if link == anchor.hash or anchor.stream in named:
            continue
        named.add(anchor.stream)
        if link is not None:
            problem = (
                f"the link at position {anchor.seq} carries {link[:16]}…, not the anchored hash: a row at or before "
                "that position was rewritten and the stream re-linked"
            )
        else:
            length = lengths.get(anchor.stream)
            has = "no link" if length is None else f"{length} links"
            problem = f"the stream has {has} and none at position {anchor.seq}: links were removed"
        check.findings.append(AnchorFinding(anchor, problem))


def anchors_check(anchors: list[Anchor | StreamAnchor], *, shoe_ids: Iterable[int] = ()) -> AnchorCheck:
    """Recompute the chains of the anchored shoes (and of `shoe_ids`) from their rows and hold each
    to its anchors, in one snapshot: a shoe's chain must verify, and its row at each anchored
    position must carry the anchored hash; an anchored stream's link at the anchored position must
    carry the anchored hash. A rewrite re-hashed (or re-linked) up to the head verifies on its own
    but does not reach an anchor taken before it. (The links' recomputation from the streams' rows is
    `streams_verify`.)"""
    streams = [anchor for anchor in anchors if isinstance(anchor, StreamAnchor)]
    shoes = anchored_shoes(anchors)
    wanted = sorted({anchor.shoe_id for anchor in shoes} | set(shoe_ids))
    with chains_snapshot():
        verification = chains_verify(shoe_ids=wanted)
        positions: dict[int, set[int]] = {}
        for anchor in shoes:
            positions.setdefault(anchor.shoe_id, set()).add(anchor.rows)
        stored = _hashes_at(positions)
        lengths = dict(ChainHead.objects.filter(shoe_id__in=list(positions)).values_list("shoe_id", "length"))
        runs = archived_runs(list(positions))
        links, stream_lengths = _links_at(streams) if streams else ({}, {})
    check = AnchorCheck(verification, anchors=len(anchors), streams=len({anchor.stream for anchor in streams}))
    for anchor in shoes:
        key = (anchor.shoe_id, anchor.rows)
        if key in stored:
            if stored[key] != anchor.head:
                check.findings.append(
                    AnchorFinding(
                        anchor,
                        f"the chain recomputed from its rows reads {stored[key][:16]}… at position {anchor.rows}, "
                        "not the anchored hash: a row at or before that position was rewritten and the chain "
                        "re-hashed",
                    )
                )
            continue
        run = next((run for run in runs.get(anchor.shoe_id, ()) if run.first <= anchor.rows <= run.last), None)
        if run is not None:
            if run.last == anchor.rows and run.hash != anchor.head:
                check.findings.append(
                    AnchorFinding(
                        anchor,
                        f"the archive of {run.month} kept {run.hash[:16]}… at position {anchor.rows}, not the "
                        "anchored hash: the month was rewritten before it was archived",
                    )
                )
            elif run.last != anchor.rows:
                check.archived.append(anchor)
            continue
        length = lengths.get(anchor.shoe_id)
        has = "no chain" if length is None else f"a chain of {length} rows"
        check.findings.append(
            AnchorFinding(
                anchor,
                f"the shoe has {has} and no row at position {anchor.rows}: rows were removed and the head moved back",
            )
        )
    _streams_check(check, streams, links, stream_lengths)
    return check
