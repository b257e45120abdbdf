"""Every fact of record in a hash chain: the registry of streams and their canonical form.

A *stream* is one chain. The six kinds of a shoe's rows (pit.records.canonical.SPECS) share their
shoe's chain, linked as each row is inserted. Every other fact model (every model of
`pit.core.immutable.protected_models()`: the `Fact` models and the audit trail's event models) is a
stream of its own, linked after the fact by the sealer (`pit.records.services.streams_seal`): its
rows in the order they are sealed, each link an insert-only `StreamLink` carrying
SHA-256(the previous link's hash + "\\n" + the row's canonical form).

Nothing declares a stream: its spec is derived from the model (its concrete fields except the
primary key, the shoe chain's fields and the model's `fact_updatable` ones, in declaration order),
so a fact model added later is chained the day it exists. A fact model that is not chained is in
`EXEMPT`, with the reason. Design: docs/design/records.md.
"""

import datetime as dt
import decimal
import hashlib
import json
import uuid
from dataclasses import dataclass
from functools import cache

from django.apps import apps
from django.db import models

from pit.core.immutable import protected_models
from pit.records.canonical import SPEC_BY_LABEL, _utc

FORMAT = "pit-stream-1"
# Columns of the shoe chain: a row of a shoe-chained model carries its link itself.
CHAIN_COLUMNS = ("chain_seq", "chain_hash")

# Fact models that are not a stream, and why. Every other protected model is chained (the six shoe
# kinds in their shoe's chain, the rest in a stream of their own); tests/records/test_streams.py
# fails when a fact model is neither.
EXEMPT: dict[str, str] = {
    "records.StreamLink": (
        "the links themselves: each link is bound by the hash it carries, which the next link chains "
        "from, and the stream's rows are recomputed against them"
    ),
}

# The updatable columns (`fact_updatable`) of a fact model are left out of its hash; what shows a
# change to them made around the services is the audit trail: the model is tracked (`audit_track`)
# and verification compares each row with its latest event, itself chained. The columns that are
# not tracked, per model, and why; tests/records/test_streams.py fails on any other.
UNTRACKED_UPDATABLE: dict[str, dict[str, str]] = {
    "shoes.Shoe": dict.fromkeys(
        ("cards_seen", "cards_dealt", "coups_recorded"),
        "a running counter of the shoe's coups, moved by every batch of coups (an audit event per batch "
        "would cost the batch path); it follows from the shoe's chained coups, their number and cards",
    ),
}


@dataclass(frozen=True)
class StreamSpec:
    stream: str  # app_label.Model: the stream's name, in its links and its canonical form
    fields: tuple[str, ...]  # attnames, in declaration order
    updatable: tuple[str, ...]  # attnames of the fact_updatable fields (left out of the hash)

    @property
    def model(self) -> type[models.Model]:
        return apps.get_model(self.stream)


def spec_for(model: type[models.Model]) -> StreamSpec:
    """A fact model's stream, derived from its fields."""
    updatable = set(getattr(model, "fact_updatable", ()))
    fields: list[str] = []
    updatable_columns: list[str] = []
    for field in model._meta.concrete_fields:
        if field.primary_key or field.name in CHAIN_COLUMNS:
            continue
        (updatable_columns if field.name in updatable else fields).append(field.attname)
    return StreamSpec(model._meta.label, tuple(fields), tuple(updatable_columns))


@cache
def stream_specs() -> tuple[StreamSpec, ...]:
    """Every stream other than the shoes' chains: each protected model neither shoe-chained nor
    exempt, in label order."""
    return tuple(
        spec_for(model)
        for model in protected_models()
        if model._meta.label not in SPEC_BY_LABEL and model._meta.label not in EXEMPT
    )


def chained_labels() -> dict[str, str]:
    """Every protected model's label -> how it is kept: "shoe chain", "stream" or "exempt: <reason>"."""
    streams = {spec.stream for spec in stream_specs()}
    kept = {}
    for model in protected_models():
        label = model._meta.label
        if label in SPEC_BY_LABEL:
            kept[label] = "shoe chain"
        elif label in streams:
            kept[label] = "stream"
        else:
            kept[label] = f"exempt: {EXEMPT[label]}"
    return kept


def genesis(stream: str) -> str:
    """The 'previous hash' of a stream's first link: binds the chain to its stream."""
    return hashlib.sha256(f"{FORMAT}:stream:{stream}".encode()).hexdigest()


def _value(value):
    if isinstance(value, dt.datetime):
        return _utc(value)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, dt.timedelta):
        return round(value.total_seconds() * 1_000_000)
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    raise TypeError(f"{type(value).__name__} has no canonical form in a stream: {value!r}")


# Keys sorted: a JSON column read back from PostgreSQL (jsonb) has its keys in its own order.
_encode = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True, default=_value
).encode


def canonical(spec: StreamSpec, seq: int, row_id: int, values) -> str:
    """[format, stream, position, row id, [field, value], ...] over the fields that are not NULL: a
    nullable column added to a fact table later leaves the hashes of the rows before it as they were."""
    pairs = [[name, value] for name, value in zip(spec.fields, values, strict=True) if value is not None]
    return _encode([FORMAT, spec.stream, seq, row_id, pairs])


def link_hash(previous: str, spec: StreamSpec, seq: int, row_id: int, values) -> str:
    return hashlib.sha256((previous + "\n" + canonical(spec, seq, row_id, values)).encode()).hexdigest()
