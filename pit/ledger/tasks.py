"""Celery tasks of the commission ledger: the reconciliation at the shuffle, and its safety net."""

from pit.core.queues import RECONCILE_TASK
from pit.core.tasks import pit_task
from pit.ledger.selectors import shoes_missing_reconciliation
from pit.ledger.services import shoe_reconcile as shoe_reconcile_service


@pit_task(RECONCILE_TASK)
def shoe_reconcile(shoe_id: int) -> int | None:
    """Reconcile a closed shoe's commission box; safe to run twice (one reconciliation per shoe).
    None: a quarantined shoe not reconciled yet."""
    reconciliation = shoe_reconcile_service(shoe_id=shoe_id)
    return None if reconciliation is None else reconciliation.pk


@pit_task("ledger.shoes_reconcile_missing")
def shoes_reconcile_missing() -> list[int]:
    """Every few minutes (beat): a lost message is not a lost reconciliation."""
    shoe_ids = shoes_missing_reconciliation()
    for shoe_id in shoe_ids:
        shoe_reconcile.delay(shoe_id)
    return shoe_ids
