"""Celery tasks of the API."""

from celery import shared_task

from pit.api.idempotency import idempotency_keys_purge as idempotency_keys_purge_service


@shared_task(name="api.idempotency_keys_purge")
def idempotency_keys_purge() -> int:
    """Purge Idempotency-Keys older than PIT_IDEMPOTENCY_TTL_HOURS (beat: hourly); safe to run twice."""
    return idempotency_keys_purge_service()
