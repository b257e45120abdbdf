"""Writes of the hash chains: linking new fact rows to their shoe's chain, and recording what a
verification found as a violation."""

import datetime as dt
import logging

from django.apps import apps
from django.db import transaction

from pit import game
from pit.compliance.services import violation_record
from pit.records.anchors import AnchorError, anchors_check, anchors_read, heads_path, signing_key
from pit.records.selectors import ChainBreak, chains_verify, shoe_ids_for_days

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
    """Verify the chains of the shoes of these gaming days, and hold them to the days' heads files
    when there are any; each break, and each anchor a chain no longer reaches (a rewrite re-hashed
    up to the head), is recorded once as a `record_chain_broken` violation of its shoe (safe to run
    twice). Returns the Verification, the anchors not reached among its breaks."""
    Shoe = apps.get_model("shoes", "Shoe")  # noqa: N806 - the shoes app's models hash their rows through this app
    shoe_ids = shoe_ids_for_days(first_day=first_day, last_day=last_day)
    anchors = _anchored_heads(first_day, last_day)
    if anchors:
        check = anchors_check(anchors, shoe_ids=shoe_ids)
        result = check.verification
        broken = {found.shoe_id for found in result.breaks}
        for finding in check.findings:
            if finding.anchor.shoe_id not in broken:  # the first finding of each shoe, as for breaks
                broken.add(finding.anchor.shoe_id)
                problem = str(finding).removeprefix(f"shoe {finding.anchor.shoe_id}: ")
                result.breaks.append(ChainBreak(finding.anchor.shoe_id, finding.anchor.rows, "anchor", None, problem))
    else:
        result = chains_verify(shoe_ids=shoe_ids)
    shoes = Shoe.objects.select_related("table").in_bulk([found.shoe_id for found in result.breaks])
    for found in result.breaks:
        shoe = shoes[found.shoe_id]
        last_coup = shoe.coups.order_by("-number").only("gaming_day").first()
        with transaction.atomic():
            violation_record(
                finding=game.violation("record_chain_broken", f"The record of {shoe} was altered: {found}."),
                fingerprint=f"record_chain:shoe{shoe.pk}:{found.kind}{found.row_id}:{found.seq}",
                table=shoe.table,
                shoe=shoe,
                gaming_day=last_coup.gaming_day if last_coup else last_day,
                found_by=RECORDS_CHECK,
            )
    return result
