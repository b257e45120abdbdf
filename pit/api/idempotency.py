"""Idempotency-Key on every POST: a retry gets the first answer again and writes nothing.

The key is taken and its answer stored in the request's own transaction. Design: docs/design/api.md."""

import datetime as dt
import functools
import hashlib
import json

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import Field
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from pit.api.authentication import DevicePrincipal
from pit.api.errors import ConflictError, Unprocessable, exception_response
from pit.api.models import IdempotencyKey, IdempotencyStatus
from pit.core.rows import statement_form

HEADER = "Idempotency-Key"


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


def _insert(request, key: str, fingerprint: str, status: str, answer: tuple[int, str] | None = None) -> int | None:
    """Insert the key's row; its id, or None when the owner has this key already (after waiting for
    a transaction that is inserting it now). One statement, no savepoint: a clash is not an error."""
    now = timezone.now()
    owner = _owner(request)
    values = {
        "key": key,
        **{f"{name}_id": principal.pk for name, principal in owner.items()},
        "method": request.method,
        "path": request.path,
        "request_hash": fingerprint,
        "status": status,
        "locked_at": now,
        "response_status": answer[0] if answer else None,
        "response_body": answer[1] if answer else "",
        "created_at": now,
        "expires_at": now + ttl(),
    }
    sql, fields = _insert_form(tuple(values))
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values.values(), strict=True)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


_ANSWER_COLUMNS = ("status", "response_status", "response_body")


def _concrete_field(name: str) -> Field:
    """The field of IdempotencyKey called `name`: one with a column (the key has no reverse relations)."""
    field = IdempotencyKey._meta.get_field(name)
    assert isinstance(field, Field), name
    return field


def _column(field: Field | None) -> str:
    """A concrete field's column, quoted."""
    assert field is not None and field.column is not None, field
    return connection.ops.quote_name(field.column)


@statement_form
def _insert_form(names: tuple[str, ...]) -> tuple[str, list[Field]]:
    """`_insert`'s statement for these columns (a device's key or a user's), and their fields."""
    quote = connection.ops.quote_name
    fields = [_concrete_field(name.removesuffix("_id")) for name in names]
    columns = ", ".join(_column(field) for field in fields)
    placeholders = ", ".join(["%s"] * len(names))
    sql = (
        f"INSERT INTO {quote(IdempotencyKey._meta.db_table)} ({columns}) VALUES ({placeholders}) "  # noqa: S608
        f"ON CONFLICT DO NOTHING RETURNING {_column(IdempotencyKey._meta.pk)}"
    )
    return sql, fields


@statement_form
def _answer_form() -> tuple[str, list[Field]]:
    """`_store_answer`'s statement, and the fields it binds."""
    quote = connection.ops.quote_name
    fields = [_concrete_field(name) for name in _ANSWER_COLUMNS]
    assignments = ", ".join(f"{_column(field)} = %s" for field in fields)
    sql = (
        f"UPDATE {quote(IdempotencyKey._meta.db_table)} SET {assignments} "  # noqa: S608
        f"WHERE {_column(IdempotencyKey._meta.pk)} = %s"
    )
    return sql, fields


def _store_answer(record_pk: int, status: int, body: str) -> None:
    """The key's answer, stored on its row: the UPDATE the ORM's `update()` would send, without
    compiling a query on each request."""
    sql, fields = _answer_form()
    values = (IdempotencyStatus.COMPLETED, status, body)
    params = [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]
    with transaction.mark_for_rollback_on_error(), connection.cursor() as cursor:  # as update() does
        cursor.execute(sql, [*params, record_pk])


def _claim(request, key: str, fingerprint: str) -> tuple[int | None, Response | None]:
    """Inside the request's transaction: take the key (its row's id), or the stored answer of its
    first run; 422 if it was used for another request."""
    for _ in range(3):
        record_pk = _insert(request, key, fingerprint, IdempotencyStatus.IN_PROGRESS)
        if record_pk is not None:
            return record_pk, None
        existing = IdempotencyKey.objects.filter(key=key, **_owner(request)).first()
        if existing is None:
            continue  # purged in between
        if existing.expires_at <= timezone.now() or existing.status != IdempotencyStatus.COMPLETED:
            # Expired; or left taken by a request of a version that committed the key before running.
            IdempotencyKey.objects.filter(pk=existing.pk).delete()
            continue
        if existing.request_hash != fingerprint:
            raise Unprocessable(
                gettext(
                    "This {header} was used for a different request ({existing_method} "
                    "{existing_path} with another body); send a new key for a new request."
                ).format(header=HEADER, existing_method=existing.method, existing_path=existing.path)
            )
        return None, _replay(existing)
    raise ConflictError(
        gettext("The {header} could not be taken; retry in a moment.").format(header=HEADER),
        details={"retry_after_seconds": 1},
    )


def _answer(response) -> tuple[int, str]:
    return response.status_code, JSONRenderer().render(response.data).decode() if response.data is not None else ""


def idempotent(handler):
    """Decorate a view's `post`: honour the Idempotency-Key header when the client sends one."""

    @functools.wraps(handler)
    def wrapper(view, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return handler(view, request, *args, **kwargs)
        key = key.strip()
        if not key or len(key) > 255 or not key.isprintable():
            raise serializers.ValidationError({HEADER: [gettext("Send 1 to 255 printable characters, e.g. a UUID.")]})
        fingerprint = request_hash(request.method, request.path, request.data)  # 400/415 here store nothing
        record_pk = None
        try:
            with transaction.atomic():
                record_pk, replay = _claim(request, key, fingerprint)
                if replay is not None:
                    return replay
                assert record_pk is not None, "_claim answers the key it took or the stored answer"
                response = handler(view, request, *args, **kwargs)
                _store_answer(record_pk, *_answer(response))
            return response
        except Exception as exc:
            if record_pk is None:
                raise  # the key was not taken (422): nothing to store
            response = exception_response(exc)
            if response is None or response.status_code >= 500:
                raise  # a crash frees the key with the effect: a retry runs again
        # An error answer is stored like any other; its effect was rolled back with the transaction.
        with transaction.atomic():
            _insert(request, key, fingerprint, IdempotencyStatus.COMPLETED, _answer(response))
        return response

    return wrapper


def idempotency_keys_purge(*, now=None) -> int:
    """Delete keys past their expiry; returns how many."""
    deleted, _ = IdempotencyKey.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
