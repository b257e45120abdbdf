"""Game protection's checks, run with the rule checks from the same reads (or alone here): one module
per check, the run over chunks of shoes and the tables' days in `runner`. Design:
docs/design/protection-checks.md."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from pit.protection.checks.runner import ProtectionRun

SHOES_PER_CHUNK = 50


def protection_check_shoes(*, shoe_ids: Iterable[int], weekly: bool = False) -> int:
    """Index and check the shoes, a chunk of SHOES_PER_CHUNK at a time in a few queries each (in shoe
    id order, each shoe seeing the index as the shoes before it left it), then the tables' gaming days
    they touched (and, with `weekly`, as the nightly sweep does, the 7 gaming days ending on each),
    each table's days from one read of its wagers. Returns the number of findings that hold (each
    recorded once)."""
    run = ProtectionRun()
    shoe_ids = sorted(set(shoe_ids))
    for start in range(0, len(shoe_ids), SHOES_PER_CHUNK):
        with transaction.atomic():
            run.shoes(shoe_ids[start : start + SHOES_PER_CHUNK])
    return run.finish(weekly=weekly)
