"""Celery tasks of the commission ledger."""
from celery import shared_task

from pit.ledger.services import shoe_reconcile as shoe_reconcile_service


@shared_task(name="ledger.shoe_reconcile")
def shoe_reconcile(shoe_id: int) -> int:
    """Reconcile a closed shoe's commission box; safe to run twice (one reconciliation per shoe)."""
    return shoe_reconcile_service(shoe_id=shoe_id).pk
