"""Idempotency-Key on every POST: a retry gets the first answer again and writes nothing.

- The first request with a key takes it (a row, `in_progress`, committed at once), runs, and stores
  its answer on the row in the same transaction as its effect: an effect never exists without its
  stored answer, and a crash loses both together.
- A retry with the same key and body gets the stored status and body (`Idempotent-Replayed: true`).
- The same key with another body (or another path) is 422; while the first is still running, 409.
- A key left `in_progress` by a request that is gone (its process died mid-request) is taken again
  at once: the running request holds a lock that dies with it, not a timer. On PostgreSQL it is a
  session advisory lock of the request's connection (released by the server when the connection
  drops); on SQLite (the embedded default, one web process) a registry of the keys this process is
  running, empty after a restart.
- Every answer below 500 is stored, errors included (as Stripe does): send a new key for a new
  attempt. A crash or a 5xx frees the key instead.
- Keys are kept PIT_IDEMPOTENCY_TTL_HOURS (default 24) and purged hourly by `api.idempotency_keys_purge`.
"""

import datetime as dt
import functools
import hashlib
import json
import threading

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from pit.api.authentication import DevicePrincipal
from pit.api.errors import ConflictError, Unprocessable, exception_response
from pit.api.models import IdempotencyKey, IdempotencyStatus

HEADER = "Idempotency-Key"


class RunningRequests:
    """Who is still running the request that took a key: a lock that is released when the request
    ends, and also when its process dies (the connection drops with it), so a retry never waits."""

    _local: set[int] = set()  # SQLite: the keys this (single web) process is running
    _local_lock = threading.Lock()

    @staticmethod
    def _lock_name(record_pk: int) -> str:
        return f"pit.idempotency:{record_pk}"

    @classmethod
    def hold(cls, record_pk: int) -> None:
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", [cls._lock_name(record_pk)])
        else:
            with cls._local_lock:
                cls._local.add(record_pk)

    @classmethod
    def take_if_gone(cls, record_pk: int) -> bool:
        """Hold the key's lock if nobody does (its request is gone); False while it runs."""
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", [cls._lock_name(record_pk)])
                return cursor.fetchone()[0]
        with cls._local_lock:
            if record_pk in cls._local:
                return False
            cls._local.add(record_pk)
            return True

    @classmethod
    def release(cls, record_pk: int) -> None:
        if connection.vendor == "postgresql":
            try:
                with connection.cursor() as cursor:
                    cursor.execute(
                        "SELECT pg_advisory_unlock(hashtextextended(%s, 0))", [cls._lock_name(record_pk)]
                    )
            except DatabaseError:  # the connection is gone, and its lock with it
                pass
        else:
            with cls._local_lock:
                cls._local.discard(record_pk)


def ttl() -> dt.timedelta:
    return dt.timedelta(hours=settings.PIT_IDEMPOTENCY_TTL_HOURS)


def request_hash(method: str, path: str, data) -> str:
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), cls=DjangoJSONEncoder)
    return hashlib.sha256(f"{method} {path}\n{canonical}".encode()).hexdigest()


def _owner(request) -> dict:
    if isinstance(request.user, DevicePrincipal):
        return {"device": request.user.device}
    return {"user": request.user}


def _replay(record: IdempotencyKey) -> Response:
    body = json.loads(record.response_body) if record.response_body else None
    return Response(body, status=record.response_status, headers={"Idempotent-Replayed": "true"})


def _claim(request, key: str, fingerprint: str) -> tuple[IdempotencyKey | None, Response | None]:
    """Take the key for this request, or the stored answer of its first run."""
    owner = _owner(request)
    for _ in range(3):
        now = timezone.now()
        try:
            with transaction.atomic():
                record = IdempotencyKey.objects.create(
                    key=key,
                    method=request.method,
                    path=request.path,
                    request_hash=fingerprint,
                    locked_at=now,
                    expires_at=now + ttl(),
                    **owner,
                )
                RunningRequests.hold(record.pk)  # before the key is visible to a retry
            return record, None
        except IntegrityError:
            pass
        existing = IdempotencyKey.objects.filter(key=key, **owner).first()
        if existing is None:
            continue  # purged in between
        if existing.expires_at <= now:
            IdempotencyKey.objects.filter(pk=existing.pk, expires_at__lte=now).delete()
            continue
        if existing.request_hash != fingerprint:
            raise Unprocessable(
                f"This {HEADER} was used for a different request "
                f"({existing.method} {existing.path} with another "
                "body); send a new key for a new request."
            )
        if existing.status == IdempotencyStatus.COMPLETED:
            return None, _replay(existing)
        if not RunningRequests.take_if_gone(existing.pk):
            raise ConflictError(
                f"A request with this {HEADER} is still being processed; retry in a moment.",
                details={"retry_after_seconds": 1},
            )
        # The request that took the key is gone without answering: take it over (once, atomically).
        if IdempotencyKey.objects.filter(
            pk=existing.pk, status=IdempotencyStatus.IN_PROGRESS, locked_at=existing.locked_at
        ).update(locked_at=now):
            existing.locked_at = now
            return existing, None
        RunningRequests.release(existing.pk)
    raise ConflictError(f"A request with this {HEADER} is still being processed; retry in a moment.")


def _release(record: IdempotencyKey) -> None:
    IdempotencyKey.objects.filter(
        pk=record.pk, status=IdempotencyStatus.IN_PROGRESS, locked_at=record.locked_at
    ).delete()


class _KeyLost(Exception):
    pass


def idempotent(handler):
    """Decorate a view's `post`: honour the Idempotency-Key header when the client sends one."""

    @functools.wraps(handler)
    def wrapper(view, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        key = key.strip()
        if not key or len(key) > 255 or not key.isprintable():
            raise serializers.ValidationError({HEADER: ["Send 1 to 255 printable characters, e.g. a UUID."]})
        fingerprint = request_hash(request.method, request.path, request.data)  # 400/415 here store nothing
        record, replay = _claim(request, key, fingerprint)
        if replay is not None:
            return replay
        try:
            return _run(handler, view, request, record, *args, **kwargs)
        finally:
            RunningRequests.release(record.pk)

    return wrapper


def _run(handler, view, request, record: IdempotencyKey, *args, **kwargs):
    """Run the request under its key and store its answer with its effect."""
    try:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    response = handler(view, request, *args, **kwargs)
            except Exception as exc:  # an error answer is stored like any other (the effect rolled back)
                response = exception_response(exc)
                if response is None:
                    raise
            body = JSONRenderer().render(response.data).decode() if response.data is not None else ""
            stored = IdempotencyKey.objects.filter(
                pk=record.pk, status=IdempotencyStatus.IN_PROGRESS, locked_at=record.locked_at
            ).update(
                status=IdempotencyStatus.COMPLETED,
                response_status=response.status_code,
                response_body=body,
            )
            if not stored:
                raise _KeyLost
    except _KeyLost:
        raise ConflictError(
            f"This {HEADER} was taken over by a retry while the request ran; its answer is the retry's."
        ) from None
    except BaseException:
        _release(record)  # the effect rolled back: a retry must run it again
        raise
    return response


def idempotency_keys_purge(*, now=None) -> int:
    """Delete keys past their expiry; returns how many."""
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
