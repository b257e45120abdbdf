"""Celery tasks of the records: the nightly verification of the hash chains, the sealer of the
streams, and the heads anchored outside the database."""

import datetime as dt
import logging

from pit.core.gaming_day import current_gaming_day
from pit.core.tasks import pit_task
from pit.records.anchors import AnchorError, heads_anchor
from pit.records.services import records_verify, streams_seal

logger = logging.getLogger(__name__)


@pit_task("records.records_verify")
def records_verify_task(first_day: str | None = None, last_day: str | None = None) -> dict:
    """Verify the chains of a range of gaming days (ISO dates); by default the last complete one."""
    last_complete = current_gaming_day() - dt.timedelta(days=1)
    first = dt.date.fromisoformat(first_day) if first_day else last_complete
    last = dt.date.fromisoformat(last_day) if last_day else first
    result, streams = records_verify(first_day=first, last_day=last)
    return {
        "shoes": result.shoes,
        "rows": result.rows,
        "breaks": [str(found) for found in result.breaks],
        "streams": streams.streams,
        "stream_rows": streams.rows,
        "stream_breaks": [str(found) for found in streams.breaks],
    }


@pit_task("records.streams_seal")
def streams_seal_task() -> dict[str, int]:
    """Link the rows written since the last run to their streams' chains (every minute)."""
    return streams_seal(full=False)


@pit_task("records.anchor_heads")
def anchor_heads_task() -> dict:
    """Append the open gaming day's heads, and ended days' final ones, to PIT_RECORDS_ANCHOR_DIR (beat)."""
    try:
        written = heads_anchor()
    except AnchorError as exc:
        logger.error("chain heads not anchored: %s", exc)
        return {"written": [], "error": str(exc)}
    return {"written": [f"{entry.gaming_day} {entry.state}" for entry in written]}
