"""Django's Redis cache with one client object per connection pool.

Django's RedisCacheClient builds a new `redis.Redis` for every cache call (each registers some 170
response callbacks: about a tenth of a millisecond of CPU); the device API's authentication makes
a cache call on every request. A `redis.Redis` is safe to share between threads (its pool hands out
the connections), so one per pool is kept. PIT_CACHE_URL=redis://... selects it (pit/settings/components/security.py).
"""

from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


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


class RedisCache(DjangoRedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ReusedClient
