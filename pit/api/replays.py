"""Replays of recorded facts: every POST that records a fact answers as the coup POST does.

- recorded now: 201 with the record;
- the same fact (the same in every field posted) recorded before: 200 with the record, nothing written;
- the same fact (its natural key: a slip's kind and number, a table's opener of a shift) with anything
  different: 409 whose `errors` name each field that differs, with both values; nothing written.

`recorded_once` is the one helper each such POST answers through; every POST view declares its kind
(`@post_kind(PostKind.FACT)`), and tests/api/test_replays.py enumerates the schema's POST operations:
each declares one, and each fact is posted twice and changed.
The values are compared as the input serializer reads them (the record is put in the request's form
and read by the same fields), so "25" and "25.00" are the same amount and a trimmed reason the same
reason."""

import enum
import json
from collections.abc import Callable, Mapping
from typing import Any

from django.db.models import Model
from django.utils.translation import gettext
from rest_framework import serializers, status
from rest_framework.response import Response

from pit.api.serializers import LookupField
from pit.core.errors import Conflict

SHOWN = 80


class PostKind(enum.StrEnum):
    FACT = "fact"  # records a fact once: 201, 200 for the same again, 409 naming each difference
    REVISION = "revision"  # a new version stands (a correction, an attribution): 200 when it stands already
    TRANSITION = "transition"  # moves a state (open, close, acknowledge): the same again is a 200 no-op
    BATCH = "batch"  # many facts at once, each item answered on its own (created, existing, conflict)


def _display(value) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}... ({len(text)} characters)"


def differences(
    serializer_class: type[serializers.Serializer],
    values: Mapping[str, Any],
    recorded: Mapping[str, Any],
    *,
    context: Mapping[str, Any] | None = None,
) -> dict[str, list[str]]:
    """Each field of `values` (a posted body as `serializer_class` read it) whose value differs from
    the `recorded` fact put in the request's form (read by the same field), with both values; a
    write-only field (a signer's password) is not part of the fact and is not compared."""
    fields = serializer_class(context=dict(context or {})).fields
    found: dict[str, list[str]] = {}
    for name, posted in values.items():
        field = fields[name]
        if field.write_only:  # a secret the signer entered: not part of the fact
            continue
        was = recorded.get(name)
        if isinstance(field, LookupField) and isinstance(posted, Model) and was == field.to_representation(posted):
            continue  # the row the post named, by the same key: reading it again would find that row
        try:
            read = None if was is None else field.run_validation(was)
        except serializers.ValidationError:
            read = was  # recorded under rules since changed: compared as it stands
        if read != posted:
            found[name] = [f"recorded {_display(was)}, posted {_display(_as_posted(field, posted))}"]
    return found


def _as_posted(field: serializers.Field, value) -> Any:
    try:
        return field.to_representation(value)
    except (AttributeError, TypeError, ValueError):
        return value


def recorded_once(
    *,
    what: str,
    serializer_class: type[serializers.Serializer],
    values: Mapping[str, Any],
    recorded: Callable[[], Any] | None,
    as_posted: Callable[[Any], Mapping[str, Any]],
    create: Callable[[], Any],
    answer: Callable[[Any], Any],
    context: Mapping[str, Any] | None = None,
) -> Response:
    """Record a fact once. `recorded()`: the fact this post names, if any; `as_posted(record)`: it in
    the request's form; `create()`: records it; `answer(record)`: the body answered. Without
    `recorded`, `create()` looks the fact up itself and returns (the record, whether it recorded it
    now): one read of the natural key instead of two."""
    if recorded is None:
        # The service tells a record it wrote now (from these values: nothing to compare) from one
        # recorded before, by this post's earlier send or by a concurrent post.
        record, created = create()
        code: int = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        compare = not created
    else:
        existing = recorded()
        code = status.HTTP_201_CREATED if existing is None else status.HTTP_200_OK
        record = create() if existing is None else existing
        # After a create too: a concurrent post may have recorded the fact first (the service then
        # returns that one), and what it holds must be what this post says.
        compare = True
    found = differences(serializer_class, values, as_posted(record), context=context) if compare else {}
    if found:
        raise Conflict(
            gettext("{what} is recorded already with other values ({names}); a recorded fact is never changed.").format(
                what=what, names=", ".join(found)
            ),
            errors=found,
            existing_id=getattr(record, "pk", None),
        )
    return Response(answer(record), status=code)


def post_kind(kind: PostKind):
    """Declare what a view's POST is (the class decorator every POST view of the API carries)."""

    def declare(view_class):
        view_class.post_kind = kind
        return view_class

    return declare
