"""Django's Redis cache, with one client object per connection pool, that degrades when Redis fails.

Django's RedisCacheClient builds a new `redis.Redis` for every cache call (each registers some 170
response callbacks: about a tenth of a millisecond of CPU); the device API's authentication makes
a cache call on every request. A `redis.Redis` is safe to share between threads (its pool hands out
the connections), so one per pool is kept. PIT_CACHE_URL=redis://... selects it (pit/settings/components/security.py).

Nothing but the database may stand between the floor and a stored coup, and the cache only holds
counters (the failed authentications of pit.accounts.access): when Redis cannot be reached every
call is served by a memory cache of this process instead, never raising. The outage is logged
once when it starts and once when Redis answers again; while it lasts Redis is tried again at
most every PIT_CACHE_RETRY_SECONDS, so a request does not wait on a connect that keeps failing.
What degrades (docs/operations/health.md): the counters are per process, not shared by every web
worker, and start from zero on either side of the outage.
"""

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis.exceptions
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

logger = logging.getLogger(__name__)

# What a call raises when Redis is away, slow or refusing (a socket error, a timeout, a loading or
# read-only server): each is an outage of the cache, not a bug of the caller.
REDIS_FAILURES: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)


class _ReusedClient(RedisCacheClient):
    # Django's own members, which django-stubs does not declare.
    _client: Callable[..., Any]
    _get_connection_pool: Callable[[bool], Any]

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client


class _Outage:
    """The state of one Redis server's outage in this process, shared by every cache object on it
    (Django makes one per thread and per settings change): one memory fallback, one log line when
    it starts and one when it ends."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        self.fallback = LocMemCache(f"pit-cache-fallback-{server}", {"TIMEOUT": params.get("TIMEOUT", 300)})
        self.lock = threading.Lock()
        self.down_since: float | None = None  # monotonic time of the failure that started the outage
        self.retry_at = 0.0

    def failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        with self.lock:
            self.retry_at = now + settings.PIT_CACHE_RETRY_SECONDS
            if self.down_since is not None:
                return
            self.down_since = now
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        logger.warning(
            "cache unreachable (%s: %s): counting in this process's memory until Redis answers again",
            type(exc).__name__,
            first_line,
        )

    def recovered(self) -> None:
        with self.lock:
            if self.down_since is None:
                return
            lasted, self.down_since = time.monotonic() - self.down_since, None
        logger.warning("cache reachable again after %.0f s: counting in Redis", lasted)


_outages: dict[str, _Outage] = {}
_outages_lock = threading.Lock()


def _outage_of(server: str, params: dict[str, Any]) -> _Outage:
    with _outages_lock:
        outage = _outages.get(server)
        if outage is None:
            outage = _outages[server] = _Outage(server, params)
        return outage


class RedisCache(DjangoRedisCache):
    """Redis while it answers; this process's memory while it does not (see the module docstring)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ReusedClient
        self._outage = _outage_of(server, params)

    @property
    def degraded(self) -> bool:
        """Whether calls are served from this process's memory (Redis failed and is not back yet)."""
        return self._outage.down_since is not None

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        outage = self._outage
        if outage.down_since is not None and time.monotonic() < outage.retry_at:
            return getattr(outage.fallback, name)(*args, **kwargs)
        try:
            result = getattr(super(), name)(*args, **kwargs)
        except REDIS_FAILURES as exc:
            outage.failed(exc)
            return getattr(outage.fallback, name)(*args, **kwargs)
        if outage.down_since is not None:
            outage.recovered()
        return result

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return bool(self._call("add", key, value, timeout, version))

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._call("get", key, default, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._call("set", key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return bool(self._call("touch", key, timeout, version))

    def delete(self, key: Any, version: int | None = None) -> bool:
        return bool(self._call("delete", key, version))

    def get_many(self, keys: Any, version: int | None = None) -> dict[Any, Any]:
        return dict(self._call("get_many", keys, version))

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return bool(self._call("has_key", key, version))

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        return int(self._call("incr", key, delta, version))

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[Any]:
        return list(self._call("set_many", data, timeout, version))

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._call("delete_many", keys, version)

    def clear(self) -> None:
        self._call("clear")
