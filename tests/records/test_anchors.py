"""Chain heads anchored outside the database (pit.records.anchors): signed heads files appended by
beat and `anchor_heads`, signed exports, and `verify_records --against` naming a rewrite that was
re-hashed up to the chain head, which `verify_records` alone cannot see."""

import datetime as dt
import io
import json
import logging

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from pit.accounting.models import GamingDayEvent
from pit.accounting.services import gaming_day_close
from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation
from pit.ledger.models import BoxCount
from pit.records.anchors import (
    FORMAT,
    AnchorError,
    StreamAnchor,
    _canonical,
    _mac,
    anchored_shoes,
    anchors_read,
    heads_anchor,
    heads_path,
    key_id,
    signature_path,
)
from pit.records.canonical import genesis, row_hasher
from pit.records.models import ChainHead, StreamLink
from pit.records.selectors import chain_queries, chains_verify, record_heads, stream_heads
from pit.records.services import streams_seal
from pit.records.streams import genesis as stream_genesis
from pit.records.streams import link_hash, spec_for
from pit.records.tasks import anchor_heads_task, records_verify_task
from pit.reports.catalog import COMMISSION
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportExport
from pit.reports.renderers import json_chunks, xlsx_write
from pit.reports.services import report_export_request, report_export_run, report_exports_purge
from pit.shoes.models import Wager
from tests import factories
from tests.archive.test_partitions import as_role
from tests.records.test_chain import DAY, DEALT, tamper
from tests.shoes import hands

pytestmark = pytest.mark.django_db
KEY = "an-hmac-key-of-the-casino-never-in-the-database"
NEXT_DAY = DAY.replace(day=3)


@pytest.fixture
def anchoring(settings, tmp_path):
    settings.PIT_RECORDS_SIGNING_KEY = KEY
    settings.PIT_RECORDS_ANCHOR_DIR = str(tmp_path / "anchors")
    return tmp_path / "anchors"


def row_at(shoe, seq: int):
    """(spec, row) of the shoe's chain at a position: row = (shoe id, id, chain_seq, chain_hash, *fields)."""
    for spec, query in chain_queries([shoe.pk]):
        for row in query:
            if row[2] == seq:
                return spec, row
    raise AssertionError(f"no row at position {seq}")


def rehash(shoe) -> int:
    """The insider's re-hash, as the database owner: every hash of the shoe's chain recomputed from its
    rows as they now read, the changed ones stored, the chain head moved to the new end."""
    rows = []
    for spec, query in chain_queries([shoe.pk]):
        rows += [(row[2], spec, row) for row in query]
    rows.sort(key=lambda row: row[0])
    previous, changed = genesis(shoe.pk), 0
    for seq, spec, row in rows:
        computed = row_hasher(spec)(previous, seq, row[4:])
        if computed != row[3]:
            table = apps.get_model(spec.label)._meta.db_table
            tamper(f"UPDATE {table} SET chain_hash = %s WHERE id = %s", [computed, row[1]])
            changed += 1
        previous = computed
    tamper(f"UPDATE {ChainHead._meta.db_table} SET head = %s WHERE shoe_id = %s", [previous, shoe.pk])
    return changed


def rewrite_wager(shoe) -> Wager:
    """A wager's amount changed behind the application's back, and the chain re-hashed over it."""
    wager = Wager.objects.filter(coup__shoe=shoe).order_by("chain_seq").first()
    tamper(f"UPDATE {Wager._meta.db_table} SET amount_minor = 1 WHERE id = %s", [wager.pk])
    assert rehash(shoe) == 17 - wager.chain_seq + 1  # the wager and every row after it
    return wager


def verify(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_records", *args, stdout=out, stderr=err)
        code = 0
    except CommandError as exc:
        code = exc.returncode
        err.write(str(exc))
    return code, out.getvalue(), err.getvalue()


def commission_export(tmp_path, suffix: str):
    path = tmp_path / f"commission-{DAY}.{suffix}"
    filters = ReportFilters(DAY, DAY)
    if suffix == "json":
        path.write_bytes(b"".join(json_chunks(COMMISSION, filters)))
    else:
        xlsx_write(COMMISSION, filters, str(path))
    return path


# ------------------------------------------------------------------------------------ the re-hash


def test_a_rehashed_rewrite_passes_verify_records_alone_but_not_against_the_heads_file(played_shoe, anchoring):
    (written,) = heads_anchor(days=[DAY], today=NEXT_DAY)
    assert (written.gaming_day, written.state, written.shoes) == (DAY, "final", 1)
    wager = rewrite_wager(played_shoe)
    # The documented limit: the chain alone verifies after a re-hash that reaches the head.
    code, out, err = verify("--from", str(DAY))
    assert (code, err) == (0, "")
    assert out.startswith(f"OK {DAY} to {DAY}: 1 shoes, 17 rows verified in ")
    assert chains_verify(shoe_ids=[played_shoe.pk]).ok
    code, _, err = verify("--against", str(written.path))
    assert code == 1
    lines = err.splitlines()
    assert lines[0].startswith(f"TAMPERED shoe {played_shoe.pk}: the chain recomputed from its rows reads ")
    assert "at position 17, not the anchored hash: a row at or before that position was rewritten" in lines[0]
    assert f"(anchored by {written.path.name} line 1, gaming day {DAY}: position 17, hash " in lines[0]
    assert lines[-1].startswith("anchored shoes: 1 shoes, 17 rows verified in ")
    assert lines[-1].endswith("0 broken chains, 1 anchors not reached")
    assert Wager.objects.get(pk=wager.pk).amount_minor == 1


@pytest.mark.parametrize("suffix", ["json", "xlsx"])
def test_a_rehashed_rewrite_is_named_against_the_signed_commission_export_written_before(
    played_shoe, anchoring, tmp_path, suffix
):
    export = commission_export(tmp_path, suffix)
    call_command("sign_export", str(export), stdout=io.StringIO())
    assert verify("--against", str(export))[0] == 0
    rewrite_wager(played_shoe)
    code, _, err = verify("--against", str(export), "--from", str(DAY))
    assert code == 1
    (finding,) = [line for line in err.splitlines() if line.startswith("TAMPERED")]
    assert finding.startswith(f"TAMPERED shoe {played_shoe.pk}: the chain recomputed from its rows reads ")
    assert f"(anchored by {export.name}, gaming day {DAY}: position 17, hash " in finding


def test_against_holds_when_the_record_is_untouched_and_names_the_shoes_it_anchored(played_shoe, anchoring):
    heads_anchor(days=[DAY], today=NEXT_DAY)
    code, out, err = verify("--against", str(anchoring))
    assert (code, err) == (0, "")
    assert out.startswith("OK anchored shoes: 1 shoes, 17 rows verified in ")
    assert out.rstrip().endswith("1 anchors (0 streams) from 1 files; 0 broken chains, 0 anchors not reached")


def test_rows_removed_from_the_end_with_the_head_moved_back_are_named(played_shoe, anchoring):
    heads_anchor(days=[DAY], today=NEXT_DAY)
    spec, last = row_at(played_shoe, 17)
    tamper(f"DELETE FROM {apps.get_model(spec.label)._meta.db_table} WHERE id = %s", [last[1]])
    head = row_at(played_shoe, 16)[1][3]
    tamper(f"UPDATE {ChainHead._meta.db_table} SET length = 16, head = %s WHERE shoe_id = %s", [head, played_shoe.pk])
    assert chains_verify(shoe_ids=[played_shoe.pk]).ok
    code, _, err = verify("--against", str(anchoring))
    assert code == 1
    assert err.splitlines()[0].startswith(
        f"TAMPERED shoe {played_shoe.pk}: the shoe has a chain of 16 rows and no row at position 17: rows were removed"
    )


# ------------------------------------------------------------------------------------ signatures


def test_a_heads_file_edited_or_signed_with_another_key_or_missing_a_line_is_refused(played_shoe, anchoring, settings):
    heads_anchor(days=[DAY], today=DAY)  # running
    factories.coup(played_shoe, 4, *hands.TIE, dealt_at=DEALT)
    heads_anchor(days=[DAY], today=DAY)  # moved: a second line
    path = heads_path(DAY)
    original = path.read_bytes()
    first, second = original.splitlines()
    assert (json.loads(first)["state"], json.loads(second)["state"]) == ("running", "running")

    def refused(data: bytes, match: str):
        path.write_bytes(data)
        code, _, err = verify("--against", str(path))
        assert code == 2
        assert err.startswith("REFUSED ")
        assert match in err

    head = json.loads(first)["shoes"][0]["head"]
    forged = first.replace(head.encode(), ("0" * 64).encode())
    refused(forged + b"\n" + second + b"\n", "line 1: the signature does not match its content")
    refused(second + b"\n", "line 1 does not follow the line before it: a line was removed or replaced")
    path.write_bytes(original)
    settings.PIT_RECORDS_SIGNING_KEY = "another-key-of-at-least-thirty-two-characters"
    code, _, err = verify("--against", str(path))
    assert code == 2 and "line 1 is signed with another key" in err
    settings.PIT_RECORDS_SIGNING_KEY = KEY
    assert verify("--against", str(path))[0] == 0


def test_an_export_without_its_signature_or_edited_after_signing_is_refused(played_shoe, anchoring, tmp_path):
    export = commission_export(tmp_path, "json")
    code, _, err = verify("--against", str(export))
    assert code == 2 and f"REFUSED {export} has no signature ({export.name}.sig beside it)" in err
    assert verify("--against", str(export), "--unsigned")[0] == 0
    call_command("sign_export", str(export), stdout=io.StringIO())
    with pytest.raises(CommandError, match="exists: a signature is never rewritten"):
        call_command("sign_export", str(export), stdout=io.StringIO())
    body = json.loads(export.read_bytes())
    body["record_heads"][0]["shoes"][0]["rows"] = 16
    export.write_text(json.dumps(body))
    code, _, err = verify("--against", str(export))
    assert code == 2 and "the signature does not match its content" in err
    # Unsigned, the same edit is caught by the day's digest.
    with pytest.raises(AnchorError, match=f"the digest of {DAY} is not the digest of its heads"):
        anchors_read(export, unsigned=True)


def test_a_file_that_carries_no_heads_is_refused(anchoring, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"report": "table-results", "rows": []}')
    assert "carries no record_heads" in verify("--against", str(other), "--unsigned")[2]


# ------------------------------------------------------------------------------------ the heads files


def test_heads_are_appended_never_rewritten_running_then_final_once(played_shoe, anchoring):
    assert [w.state for w in heads_anchor(days=[DAY], today=DAY)] == ["running"]
    assert heads_anchor(days=[DAY], today=DAY) == []  # nothing moved: no line
    path = heads_path(DAY)
    before = path.read_bytes()
    factories.coup(played_shoe, 4, *hands.TIE, dealt_at=DEALT)
    assert [w.state for w in heads_anchor(days=[DAY], today=DAY)] == ["running"]
    assert [w.state for w in heads_anchor(days=[DAY], today=NEXT_DAY)] == ["final"]
    assert heads_anchor(days=[DAY], today=NEXT_DAY) == []
    after = path.read_bytes()
    assert after.startswith(before)
    lines = [json.loads(line) for line in after.splitlines()]
    assert [(line["state"], line["shoes"][0]["rows"]) for line in lines] == [
        ("running", 17),
        ("running", 18),
        ("final", 18),
    ]
    head = ChainHead.objects.get(shoe=played_shoe)
    assert lines[-1]["shoes"] == [{"shoe": played_shoe.pk, "rows": 18, "head": head.head}]
    assert set(lines[-1]) == {
        "format",
        "gaming_day",
        "state",
        "written_at",
        "previous",
        "digest",
        "shoes",
        "streams",
        "key",
        "signature",
    }
    assert lines[-1]["format"] == FORMAT == "pit-heads-2"
    assert [anchor.rows for anchor in anchored_shoes(anchors_read(path))] == [17, 18, 18]


def test_the_beat_task_anchors_the_open_day_and_the_ended_ones(played_shoe, anchoring, settings, monkeypatch):
    assert settings.CELERY_BEAT_SCHEDULE["records.anchor_heads"] == {"task": "records.anchor_heads", "schedule": 600}
    monkeypatch.setattr("pit.records.anchors.current_gaming_day", lambda: NEXT_DAY)
    open_shoe = factories.shoe(factories.table("MB2"))
    factories.coup(open_shoe, 1, *hands.TIE, dealt_at=DEALT + dt.timedelta(days=1))
    assert anchor_heads_task() == {"written": [f"{DAY} final", f"{NEXT_DAY} running"]}
    assert anchor_heads_task() == {"written": []}
    assert [anchor.shoe_id for anchor in anchored_shoes(anchors_read(anchoring))] == [played_shoe.pk, open_shoe.pk]


def test_without_the_key_nothing_is_anchored_and_beat_says_why(played_shoe, settings, tmp_path, caplog):
    settings.PIT_RECORDS_SIGNING_KEY = "short"
    settings.PIT_RECORDS_ANCHOR_DIR = str(tmp_path / "anchors")
    with caplog.at_level(logging.ERROR, logger="pit.records.tasks"):
        outcome = anchor_heads_task()
    assert outcome["written"] == []
    assert "PIT_RECORDS_SIGNING_KEY is shorter than 32 characters" in caplog.text
    with pytest.raises(CommandError, match="no heads anchored: PIT_RECORDS_SIGNING_KEY is shorter"):
        call_command("anchor_heads", "--from", str(DAY))
    assert not (tmp_path / "anchors").exists()


def test_an_edit_that_was_not_rehashed_is_still_broken_against_an_anchor(played_shoe, anchoring):
    heads_anchor(days=[DAY], today=NEXT_DAY)
    box = BoxCount.objects.get(chain_seq=12)
    tamper(f"UPDATE {BoxCount._meta.db_table} SET counted_minor = 0 WHERE id = %s", [box.pk])
    code, _, err = verify("--against", str(anchoring))
    assert code == 1
    assert err.startswith(f"BROKEN shoe {played_shoe.pk}, box_count {box.pk} at position 12: its stored hash")


@pytest.mark.postgres
def test_the_runtime_role_anchors_and_names_the_owner_s_rehash(played_shoe, anchoring, runtime_role):
    with as_role(runtime_role):
        (written,) = heads_anchor(days=[DAY], today=NEXT_DAY)
    rewrite_wager(played_shoe)  # as the owner
    with as_role(runtime_role):
        assert verify("--from", str(DAY))[0] == 0
        code, _, err = verify("--against", str(written.path))
    assert code == 1
    assert err.startswith(f"TAMPERED shoe {played_shoe.pk}: the chain recomputed from its rows reads ")


def test_the_nightly_verification_holds_the_chains_to_the_day_s_heads_file(played_shoe, anchoring):
    heads_anchor(days=[DAY], today=NEXT_DAY)
    outcome = records_verify_task(str(DAY))
    assert (outcome["shoes"], outcome["rows"], outcome["breaks"], outcome["stream_breaks"]) == (1, 17, [], [])
    rewrite_wager(played_shoe)
    for _ in range(2):
        outcome = records_verify_task(str(DAY))
    (found,) = outcome["breaks"]
    assert found.startswith(f"shoe {played_shoe.pk}: the chain recomputed from its rows reads ")
    violation = RuleViolation.objects.get(code="record_chain_broken")
    assert (violation.shoe_id, violation.gaming_day) == (played_shoe.pk, DAY)
    assert violation.message.startswith(f"The record of {played_shoe} was altered: shoe {played_shoe.pk}: the chain")
    assert "a row at or before that position was rewritten and the chain re-hashed" in violation.message


def test_a_line_cut_short_by_a_crash_is_never_written_onto_and_refuses_the_file(played_shoe, anchoring):
    heads_anchor(days=[DAY], today=DAY)
    path = heads_path(DAY)
    with path.open("ab") as out:
        out.write(b'{"format": "pit-heads-1", "gaming')  # the process died mid-write
    factories.coup(played_shoe, 4, *hands.TIE, dealt_at=DEALT)
    assert [entry.state for entry in heads_anchor(days=[DAY], today=DAY)] == ["running"]
    lines = path.read_bytes().splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["shoes"][0]["rows"] == 18
    code, _, err = verify("--against", str(path))
    assert code == 2 and f"{path.name} line 2 is not JSON: the file was altered" in err


# ------------------------------------------------------------------------------------ streams' heads

OLD_DAY = dt.date(2020, 1, 6)


def day_events(count: int) -> list[GamingDayEvent]:
    """`count` events of a gaming day long closed (a stream of their own, accounting.GamingDayEvent)."""
    first = GamingDayEvent.objects.order_by("pk").first()
    user = first.by if first else user_create_with_role(username="streams", password="pw-streams-1", role="accountant")
    done = GamingDayEvent.objects.count()
    return [
        GamingDayEvent.objects.create(
            gaming_day=OLD_DAY, action=("closed", "reopened")[n % 2], note=f"event {n + 1}", by=user
        )
        for n in range(done, done + count)
    ]


def relink(stream: str) -> int:
    """The insider's re-link, as the database owner: every link of the stream recomputed from its rows
    as they now read, the changed ones stored. Returns how many links changed."""
    spec = spec_for(apps.get_model(stream))
    links = list(StreamLink.objects.filter(stream=stream).order_by("seq").values_list("pk", "seq", "row_id", "hash"))
    rows = spec.model.objects.in_bulk([row_id for _, _, row_id, _ in links])
    previous, changed = stream_genesis(stream), 0
    for pk, seq, row_id, stored in links:
        row = rows[row_id]
        computed = link_hash(previous, spec, seq, row_id, [getattr(row, name) for name in spec.fields])
        if computed != stored:
            tamper(f"UPDATE {StreamLink._meta.db_table} SET hash = %s WHERE id = %s", [computed, pk])
            changed += 1
        previous = computed
    return changed


def test_a_heads_file_line_carries_every_stream_s_head_as_it_stands(played_shoe, anchoring):
    day_events(3)
    streams_seal(now=DEALT)
    (written,) = heads_anchor(days=[DAY], today=NEXT_DAY)
    heads = stream_heads()
    assert heads["accounting.GamingDayEvent"][0] == 3
    assert written.streams == len(heads) >= 2  # the shoe and the events at least
    (line,) = [json.loads(line) for line in written.path.read_bytes().splitlines()]
    assert line["streams"] == [{"stream": name, "seq": seq, "hash": h} for name, (seq, h) in sorted(heads.items())]
    streams = [anchor for anchor in anchors_read(written.path) if isinstance(anchor, StreamAnchor)]
    assert {(a.stream, a.seq, a.hash) for a in streams} == {(name, *head) for name, head in heads.items()}
    assert {a.source for a in streams} == {f"{written.path.name} line 1"}
    code, out, err = verify("--against", str(written.path))
    assert (code, err) == (0, "")
    assert f"{1 + len(heads)} anchors ({len(heads)} streams) from 1 files" in out


def test_the_open_day_s_running_line_follows_the_streams_the_ended_day_s_final_line_is_written_once(
    played_shoe, anchoring
):
    streams_seal(now=DEALT)
    assert [w.state for w in heads_anchor(days=[DAY], today=DAY)] == ["running"]
    assert heads_anchor(days=[DAY], today=DAY) == []
    day_events(1)
    streams_seal(now=DEALT)  # a stream moved, no shoe did
    assert [w.state for w in heads_anchor(days=[DAY], today=DAY)] == ["running"]
    assert [w.state for w in heads_anchor(days=[DAY], today=NEXT_DAY)] == ["final"]
    day_events(1)
    streams_seal(now=DEALT)
    assert heads_anchor(days=[DAY], today=NEXT_DAY) == []  # final once: the open day's line pins the streams
    lines = [json.loads(line) for line in heads_path(DAY).read_bytes().splitlines()]
    events = [{s["stream"]: s["seq"] for s in line["streams"]}.get("accounting.GamingDayEvent") for line in lines]
    assert [(line["state"], seq) for line, seq in zip(lines, events, strict=True)] == [
        ("running", None),
        ("running", 1),
        ("final", 1),
    ]


def test_a_stream_rewritten_and_relinked_passes_verify_records_but_is_named_against_the_heads_file(
    played_shoe, anchoring
):
    first, *_ = day_events(3)
    streams_seal(now=DEALT)
    (written,) = heads_anchor(days=[DAY], today=NEXT_DAY)
    table = GamingDayEvent._meta.db_table
    tamper(f"UPDATE {table} SET note = %s WHERE id = %s", ["nothing to see", first.pk])
    assert relink("accounting.GamingDayEvent") == 3  # the row rewritten and every later link re-linked
    # The stream alone verifies: its links are recomputed from its rows as they now read.
    code, out, err = verify("--from", str(DAY))
    assert (code, err) == (0, "")
    assert out.startswith(f"OK {DAY} to {DAY}: 1 shoes, 17 rows verified in ")
    code, _, err = verify("--against", str(written.path), "--from", str(DAY))
    assert code == 1
    (finding,) = [line for line in err.splitlines() if line.startswith("TAMPERED")]
    assert finding.startswith("TAMPERED stream accounting.GamingDayEvent: the link at position 3 carries "), finding
    assert "not the anchored hash: a row at or before that position was rewritten and the stream re-linked" in finding
    assert f"(anchored by {written.path.name} line 1, gaming day {DAY}: position 3, hash " in finding
    assert "; 0 broken chains, 1 anchors not reached; " in err.splitlines()[-1]
    assert err.splitlines()[-1].endswith(" rows, 0 broken")
    assert GamingDayEvent.objects.get(pk=first.pk).note == "nothing to see"


def test_stream_links_removed_from_the_end_are_named_and_the_nightly_verification_logs_them(
    played_shoe, anchoring, caplog
):
    day_events(2)
    streams_seal(now=DEALT)
    (written,) = heads_anchor(days=[DAY], today=NEXT_DAY)
    last = StreamLink.objects.get(stream="accounting.GamingDayEvent", seq=2)
    tamper(f"DELETE FROM {StreamLink._meta.db_table} WHERE id = %s", [last.pk])
    tamper(f"DELETE FROM {GamingDayEvent._meta.db_table} WHERE id = %s", [last.row_id])
    code, _, err = verify("--against", str(written.path))
    assert code == 1
    (finding,) = [line for line in err.splitlines() if line.startswith("TAMPERED")]
    assert finding.startswith(
        "TAMPERED stream accounting.GamingDayEvent: the stream has 1 links and none at position 2: links were removed"
    )
    with caplog.at_level(logging.ERROR, logger="pit.records.services"):
        outcome = records_verify_task(str(DAY))
    problem = finding.removeprefix("TAMPERED stream accounting.GamingDayEvent: ")
    assert [b for b in outcome["stream_breaks"] if "accounting.GamingDayEvent" in b] == [
        f"accounting.GamingDayEvent at position 2: {problem}"
    ]
    assert outcome["breaks"] == []


def test_a_pit_heads_1_line_of_the_shoes_only_is_still_read(played_shoe, anchoring):
    head = ChainHead.objects.get(shoe=played_shoe)
    (day,) = record_heads(first_day=DAY, last_day=DAY)
    body = {
        "format": "pit-heads-1",
        "gaming_day": DAY.isoformat(),
        "state": "final",
        "written_at": "2026-01-03T00:00:00+00:00",
        "previous": None,
        "digest": day["digest"],
        "shoes": [{"shoe": played_shoe.pk, "rows": 17, "head": head.head}],
        "key": key_id(KEY.encode()),
    }
    body["signature"] = _mac(KEY.encode(), _canonical(body))
    path = heads_path(DAY)
    path.parent.mkdir(parents=True)
    path.write_bytes(_canonical(body) + b"\n")
    assert [(a.shoe_id, a.rows, a.head) for a in anchors_read(path)] == [(played_shoe.pk, 17, head.head)]
    assert verify("--against", str(path))[0] == 0


# ------------------------------------------------------------------------------------ the close seals


def test_the_day_close_seals_every_stream_before_it_locks(played_shoe):
    (event,) = day_events(1)
    assert not StreamLink.objects.filter(stream="accounting.GamingDayEvent").exists()
    close = gaming_day_close(gaming_day=OLD_DAY.replace(day=7), user=event.by)
    # The facts before the close are in their chains; the close's own event is sealed by the next sealer.
    links = StreamLink.objects.filter(stream="accounting.GamingDayEvent")
    assert list(links.values_list("seq", "row_id")) == [(1, event.pk)]
    assert StreamLink.objects.filter(stream="shoes.Shoe", row_id=played_shoe.pk).exists()
    assert streams_seal() == {"accounting.GamingDayEvent": 1}
    assert list(links.values_list("seq", "row_id")) == [(1, event.pk), (2, close.pk)]


# ------------------------------------------------------------------------------------ exports sign themselves


@pytest.mark.parametrize("signing", [True, False])
def test_the_background_commission_export_signs_itself(
    played_shoe, anchoring, settings, tmp_path, django_capture_on_commit_callbacks, signing
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    if not signing:
        settings.PIT_RECORDS_SIGNING_KEY = ""
    accountant = user_create_with_role(username="export-acc", password="pw-export-acc-1", role="accountant")
    with django_capture_on_commit_callbacks(execute=False):
        export = report_export_request(
            report=COMMISSION, filters=ReportFilters(DAY, DAY), format="xlsx", user=accountant
        )
    done = report_export_run(export_id=export.pk)
    path = tmp_path / "media" / done.file
    assert (done.status, path.exists()) == ("done", True)
    if not signing:
        assert not signature_path(path).exists()
        return
    assert json.loads(signature_path(path).read_bytes())["file"] == path.name
    assert verify("--against", str(path))[0] == 0
    rewrite_wager(played_shoe)
    code, _, err = verify("--against", str(path))
    assert code == 1 and err.startswith(f"TAMPERED shoe {played_shoe.pk}: the chain recomputed from its rows reads ")
    # A purge takes the signature with the file.
    ReportExport.objects.filter(pk=export.pk).update(finished_at=DEALT)
    assert report_exports_purge(keep_days=1) == 1
    assert not path.exists() and not signature_path(path).exists()
