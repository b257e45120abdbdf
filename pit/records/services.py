"""Writes of the hash chains: sealing every stream's new rows into its chain, and recording what a
verification found as a violation."""

import datetime as dt
import logging

from django.apps import apps
from django.db import connection, models, transaction
from django.utils import timezone

from pit import game
from pit.compliance.services import violation_record
from pit.core.gaming_day import gaming_day_bounds
from pit.records.anchors import AnchorError, StreamAnchor, anchors_check, anchors_read, heads_path, signing_key
from pit.records.models import StreamLink
from pit.records.selectors import ChainBreak, StreamBreak, chains_verify, shoe_ids_for_days, streams_verify
from pit.records.streams import StreamSpec, genesis, link_hash, stream_specs

# pg_advisory_xact_lock key of the sealer: two sealers never append to a stream at once.
SEAL_LOCK = 0x70697473  # "pits"
SEAL_BATCH = 5_000
# The minute's sealer looks back this many ids behind the highest one linked (a row committed late,
# its id taken before others'); the full sealer (before verification, at a day's close) reads all.
SEAL_LOOKBACK = 10_000


def _stream_seal(spec: StreamSpec, now, full: bool) -> int:
    links = StreamLink.objects.filter(stream=spec.stream)
    last = links.order_by("-seq").values_list("seq", "hash", "row_id").first()
    seq, head, highest = last if last is not None else (0, genesis(spec.stream), None)
    unlinked: models.QuerySet = (
        models.QuerySet(spec.model)
        .filter(~models.Exists(links.filter(row_id=models.OuterRef("pk"))))
        .order_by("pk")
        .values_list("pk", *spec.fields)
    )
    if not full and highest is not None:
        top = links.aggregate(top=models.Max("row_id"))["top"]
        unlinked = unlinked.filter(pk__gt=top - SEAL_LOOKBACK)
    sealed, after = 0, None
    while True:
        rows = list((unlinked if after is None else unlinked.filter(pk__gt=after))[:SEAL_BATCH])
        if not rows:
            return sealed
        made = []
        for row in rows:
            seq += 1
            head = link_hash(head, spec, seq, row[0], row[1:])
            made.append(StreamLink(stream=spec.stream, seq=seq, row_id=row[0], hash=head, sealed_at=now))
        StreamLink.objects.bulk_create(made)
        sealed, after = sealed + len(made), rows[-1][0]


def streams_seal(*, now=None, full: bool = True) -> dict[str, int]:
    """Link every row of every stream that has no link yet, in primary-key order, to the end of its
    stream's chain (pit.records.streams). The rows the database's triggers write (the audit trail's
    events) never pass through the application, so every stream is sealed this way: every minute
    (beat, `full=False`: the rows near the end of each table only), and in full before each
    verification and before a day closes. Safe to run at any time, twice at once too (an advisory
    lock orders the sealers). Returns the rows sealed, per stream."""
    now = now or timezone.now()
    sealed = {}
    for spec in stream_specs():
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_xact_lock(%s)", [SEAL_LOCK])
            count = _stream_seal(spec, now, full)
        if count:
            sealed[spec.stream] = count
    return sealed


RECORDS_CHECK = "records_verify"
logger = logging.getLogger(__name__)


def _anchored_heads(first_day, last_day) -> list:
    """The anchors of these days' heads files (pit.records.anchors), when the signing key is set; a
    file refused (its signature does not match) is logged at ERROR and kept out."""
    try:
        signing_key()
    except AnchorError:
        return []
    anchors = []
    for offset in range((last_day - first_day).days + 1):
        path = heads_path(first_day + dt.timedelta(days=offset))
        if path.exists():
            try:
                anchors += anchors_read(path)
            except AnchorError as exc:
                logger.error("heads file refused, its heads not compared: %s", exc)
    return anchors


def records_verify(*, first_day, last_day):
    """Seal every stream, then verify the chains of the shoes of these gaming days (held to the days'
    heads files when there are any) and the links of every stream sealed in them. Each shoe's break,
    and each anchor a chain no longer reaches (a rewrite re-hashed up to the head), is recorded once
    as a `record_chain_broken` violation of its shoe (safe to run twice); a stream's breaks, and each
    stream anchor its links no longer reach (a rewrite re-linked up to the head), are logged as
    errors (a stream is of no table). Returns (the shoes' Verification, the streams'
    StreamVerification)."""
    Shoe = apps.get_model("shoes", "Shoe")  # noqa: N806 - the shoes app's models hash their rows through this app
    streams_seal()
    shoe_ids = shoe_ids_for_days(first_day=first_day, last_day=last_day)
    anchors = _anchored_heads(first_day, last_day)
    if anchors:
        check = anchors_check(anchors, shoe_ids=shoe_ids)
        result = check.verification
        broken = {found.shoe_id for found in result.breaks}
        missed = []  # the streams' anchors not reached: a stream is of no shoe
        for finding in check.findings:
            anchor = finding.anchor
            if isinstance(anchor, StreamAnchor):
                problem = str(finding).removeprefix(f"stream {anchor.stream}: ")
                missed.append(StreamBreak(anchor.stream, anchor.seq, None, problem))
            elif anchor.shoe_id not in broken:  # the first finding of each shoe, as for breaks
                broken.add(anchor.shoe_id)
                problem = str(finding).removeprefix(f"shoe {anchor.shoe_id}: ")
                result.breaks.append(ChainBreak(anchor.shoe_id, anchor.rows, "anchor", None, problem))
    else:
        result, missed = chains_verify(shoe_ids=shoe_ids), []
    since, until = gaming_day_bounds(first_day)[0], gaming_day_bounds(last_day)[1]
    streams = streams_verify(since=since, until=until)
    streams.breaks += missed
    for stream_break in streams.breaks:
        logger.error("record altered: %s", stream_break)
    shoes = Shoe.objects.select_related("table").in_bulk([found.shoe_id for found in result.breaks])
    for found in result.breaks:
        shoe = shoes[found.shoe_id]
        last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
        with transaction.atomic():
            violation_record(
                finding=game.violation(
                    "record_chain_broken",
                    f"The record of {shoe} was altered: {found}. The shoe is quarantined: nothing is derived from "
                    "it until a person resolves or dismisses this violation.",
                ),
                fingerprint=f"record_chain:shoe{shoe.pk}:{found.kind}{found.row_id}:{found.seq}",
                table=shoe.table,
                shoe=shoe,
                gaming_day=last_coup.gaming_day if last_coup else last_day,
                found_by=RECORDS_CHECK,
            )
    return result, streams
