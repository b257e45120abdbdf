"""Celery tasks of the compliance checks: they take ids, re-read their rows and call one service."""
from celery import shared_task

from pit.compliance.checks import coups_check


@shared_task(name="compliance.coups_verify")
def coups_verify(coup_ids: list[int]) -> int:
    """Check recorded coups against the rules; safe to run twice (findings are recorded once)."""
    return coups_check(coup_ids=coup_ids)
