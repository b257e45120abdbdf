"""The API's periodic work: Idempotency-Keys past their time to live are purged."""

from pit.api.idempotency import idempotency_keys_purge as idempotency_keys_purge_service
from pit.core.tasks import pit_task


@pit_task("api.idempotency_keys_purge")
def idempotency_keys_purge() -> int:
    """Purge Idempotency-Keys older than PIT_IDEMPOTENCY_TTL_HOURS (beat: hourly); safe to run twice."""
    return idempotency_keys_purge_service()
