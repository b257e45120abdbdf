"""The rule checks over many shoes: a chunk at a time in one process, or fanned out over processes
for a sweep on PostgreSQL."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.db import transaction
from django.db.models import Q

from pit.compliance.checks.chunk import chunk_check
from pit.compliance.checks.context import RunContext
from pit.compliance.checks.findings import CheckTotals
from pit.core.processes import run_forked
from pit.protection.checks.runner import ProtectionRun

SHOES_PER_CHUNK = 50


def shoes_check(
    shoe_ids: list[int],
    *,
    selected: Q,
    progress: Callable[[int], None] | None = None,
    protection: ProtectionRun,
) -> CheckTotals:
    """The rule checks of the shoes (in id order), a chunk at a time, each chunk's game protection
    in the same transaction from the same reads."""
    context = RunContext()
    totals = CheckTotals()
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        chunk = shoe_ids[start : start + SHOES_PER_CHUNK]
        with transaction.atomic():
            done = chunk_check(chunk, selected=selected, context=context, protection=protection)
        totals.add(done)
        if progress is not None:
            progress(done.coups)
    return totals


def shoes_check_fanned_out(
    shoe_ids: list[int],
    *,
    selected: Q,
    days: tuple[dt.date, dt.date],
    progress: Callable[[int], None] | None,
    processes: int,
) -> CheckTotals:
    """The sweep in `processes` processes (this one and forked children, each its own connection),
    each chunk checked in its own transaction, written exactly as in one process: the rule checks
    and game protection. Each chunk's findings depend on that chunk alone, except the shoe
    sequences (their index is built shoe after shoe): those are found in any order for a chunk
    already indexed as its cards are, and recorded here in shoe id order once every chunk is done,
    where any other chunk, and those after it, are indexed in order
    (`ProtectionRun.sequences_in_order`). When shoes of the sweep were never indexed (rows not
    checked as they were posted), this process indexes every chunk in order first, beside the
    children's checks, instead. The children hand their totals and protection sums back; the tables'
    days are tested here once all have ended."""
    # Smaller chunks than one process reads, down to 10 shoes, so that the processes end together.
    size = min(SHOES_PER_CHUNK, max(10, -(-len(shoe_ids) // (4 * processes))))
    chunks = [shoe_ids[start : start + size] for start in range(0, len(shoe_ids), size)]
    protection = ProtectionRun(sweep=True)
    protection.expect_days(*days)  # read once here, inherited by the children
    never_indexed = protection.never_indexed(shoe_ids)
    sequences = ProtectionRun.APART if never_indexed else ProtectionRun.IF_INDEXED
    context = RunContext()  # each process's own copy

    def check(chunk: list[int]) -> CheckTotals:
        with transaction.atomic():
            return chunk_check(chunk, selected=selected, context=context, protection=protection, sequences=sequences)

    totals = CheckTotals()

    def done(checked: CheckTotals) -> None:
        totals.add(checked)
        if progress is not None:
            progress(checked.coups)

    forked = run_forked(
        chunks,
        check,
        processes=processes,
        first=(lambda: protection.sequences_in_order(chunks, from_start=True)) if never_indexed else None,
        finish=protection.state,
        done=done,
    )
    for state in forked.states:
        protection.merge(state)
    if not never_indexed:
        protection.sequences_in_order(chunks)
    totals.holding += protection.finish(weekly=True)
    return totals
