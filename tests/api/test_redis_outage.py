"""Redis down is no coup lost: a Redis of the test's own serves both the broker and the cache (the
failed-authentication counters), and is stopped while the floor posts coups. Every POST answers 2xx
and is stored, wrong keys still get 401 (counted in this process's memory), the outage is logged
once, and when Redis is back the counters go to it again (pit/core/cache.py)."""

import logging

import pytest
import redis
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from pit.accounts.services import device_create
from pit.celery import app
from pit.core.models import OutboxMessage
from pit.shoes.models import Coup
from tests import factories
from tests.api.conftest import coup_body
from tests.jobs.processes import PrivateRedis
from tests.jobs.test_worker import _broker_of_this_process

pytestmark = [pytest.mark.redis, pytest.mark.django_db]

PORT = 16401


@pytest.fixture
def redis_server(tmp_path):
    server = PrivateRedis(tmp_path / "redis", port=PORT)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def not_eager():
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = True


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def cache_log():
    """What pit.core.cache logs, each record once: a handler of its own on that logger (caplog's
    handler also sits on the root, where an earlier test's logging set-up may propagate it twice)."""
    logger = logging.getLogger("pit.core.cache")
    kept = _Kept()
    logger.addHandler(kept)
    yield lambda: [record.getMessage() for record in kept.records]
    logger.removeHandler(kept)


def test_coups_posted_while_redis_is_down_are_all_answered_2xx_and_stored(redis_server, not_eager, cache_log):
    cache_on_redis = {
        "default": {
            "BACKEND": "pit.core.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{PORT}/1",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    with (
        _broker_of_this_process(redis_server.url),
        override_settings(CACHES=cache_on_redis, PIT_CACHE_RETRY_SECONDS=0),
    ):
        shoe = factories.shoe(factories.table("BB1"))
        _, key = device_create(table=shoe.table, name="shoe reader")
        floor = APIClient(REMOTE_ADDR="10.0.0.7")
        floor.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
        stranger = APIClient(REMOTE_ADDR="10.0.0.8")
        stranger.credentials(HTTP_AUTHORIZATION=f"Api-Key {key.split('.')[0]}.wrong")

        def post(number: int) -> int:
            return floor.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(number), format="json").status_code

        statuses = [post(1), post(2), stranger.get("/api/v1/tables/BB1/").status_code]
        assert redis.Redis(port=PORT, db=1).dbsize() > 0  # the failure was counted in Redis
        redis_server.stop()
        statuses += [post(n) for n in range(3, 9)] + [stranger.get("/api/v1/tables/BB1/").status_code]
        assert cache.degraded is True
        redis_server.start()
        statuses += [post(9), post(10), stranger.get("/api/v1/tables/BB1/").status_code]
        assert cache.degraded is False

    assert statuses == [201, 201, 401] + [201] * 6 + [401] + [201, 201, 401]
    assert sorted(Coup.objects.filter(shoe=shoe).values_list("number", flat=True)) == list(range(1, 11))
    # The checks the coups owe wait in the outbox (no worker runs here): none lost.
    assert OutboxMessage.objects.filter(task_name="compliance.coups_verify").count() == 10
    messages = cache_log()
    assert len(messages) == 2, messages
    assert messages[0].startswith("cache unreachable (ConnectionError: ")
    assert messages[1].startswith("cache reachable again after ")
