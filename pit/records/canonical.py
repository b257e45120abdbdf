"""The hash chain's format: which rows are chained, their canonical form, their hash.

Frozen: a new field of a chained model goes under a new format version. Design: docs/design/records.md."""

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.utils import timezone

FORMAT = "pit-chain-1"
_RECORDED = ("recorded_at", "recorded_by_user_id", "recorded_by_device_id")


@dataclass(frozen=True)
class ChainSpec:
    kind: str  # the row's kind in the canonical form and in reports of a mismatch
    label: str  # app_label.Model
    fields: tuple[str, ...]  # attnames, in canonical order
    shoe_path: str  # the lookup from a row to its shoe's id, for reading chains in bulk
    shoe_of: Callable  # the shoe id of an instance about to be inserted


def _shoe_of_wager(wager) -> int:
    return wager.coup.shoe_id


def _shoe_of_seat(seat) -> int:
    return seat.reconciliation.shoe_id


SPECS: tuple[ChainSpec, ...] = (
    ChainSpec(
        "coup",
        "shoes.Coup",
        (
            "shoe_id",
            "number",
            "dealt_at",
            "gaming_day",
            "player_cards",
            "banker_cards",
            "player_total",
            "banker_total",
            "winner",
            "natural",
            "player_pair",
            "banker_pair",
            "reported_winner",
            "paytable_id",
            *_RECORDED,
        ),
        "shoe_id",
        lambda coup: coup.shoe_id,
    ),
    ChainSpec(
        "wager",
        "shoes.Wager",
        (
            "coup_id",
            "seat",
            "bet",
            "currency",
            "amount_minor",
            "result",
            "payout_minor",
            "commission_minor",
            "paid_minor",
        ),
        "coup__shoe_id",
        _shoe_of_wager,
    ),
    ChainSpec(
        "commission_entry",
        "ledger.CommissionEntry",
        (
            "shoe_id",
            "seat",
            "kind",
            "currency",
            "amount_minor",
            "wager_id",
            "collection_reason",
            "reverses_id",
            "note",
            *_RECORDED,
        ),
        "shoe_id",
        lambda entry: entry.shoe_id,
    ),
    ChainSpec(
        "box_count",
        "ledger.BoxCount",
        (
            "shoe_id",
            "seat",
            "currency",
            "counted_minor",
            *_RECORDED,
        ),
        "shoe_id",
        lambda count: count.shoe_id,
    ),
    ChainSpec(
        "reconciliation",
        "ledger.Reconciliation",
        (
            "shoe_id",
            "currency",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
            "reconciled_at",
        ),
        "shoe_id",
        lambda reconciliation: reconciliation.shoe_id,
    ),
    ChainSpec(
        "reconciliation_seat",
        "ledger.ReconciliationSeat",
        (
            "reconciliation_id",
            "seat",
            "accrued_minor",
            "collected_earlier_minor",
            "expected_minor",
            "counted_minor",
            "variance_minor",
        ),
        "reconciliation__shoe_id",
        _shoe_of_seat,
    ),
)
SPEC_BY_LABEL = {spec.label: spec for spec in SPECS}


def genesis(shoe_id: int) -> str:
    """The 'previous hash' of a shoe's first row: binds the chain to its shoe."""
    return hashlib.sha256(f"{FORMAT}:shoe:{shoe_id}".encode()).hexdigest()


_UTC = dt.UTC


def _not_canonical(value):
    raise TypeError(f"{type(value).__name__} has no canonical form in the chain: {value!r}")


# CPython's C encoder factory (json.encoder.c_make_encoder: not declared in typeshed).
_c_make_encoder: Callable[..., Callable[[object, int], Sequence[str]]] | None = getattr(
    json.encoder, "c_make_encoder", None
)
_dumps: Callable[[list[Any]], str]
if _c_make_encoder is not None:
    # json.dumps builds its C encoder at every call; built once, a row encodes in about half the time.
    _encode = _c_make_encoder(
        None,
        _not_canonical,
        json.encoder.encode_basestring,
        None,
        ":",
        ",",
        False,
        False,
        False,
    )

    def _dumps_c(values: list[Any]) -> str:
        return "".join(_encode(values, 0))

    _dumps = _dumps_c
else:  # pragma: no cover (CPython always has it)
    _dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_not_canonical).encode


def _utc(value: dt.datetime) -> str:
    if value.tzinfo is not _UTC:  # rows read back from the database are in UTC already
        if value.tzinfo is None:
            value = timezone.make_aware(value, timezone.get_default_timezone())
        value = value.astimezone(_UTC)
    return value.isoformat(timespec="microseconds")[:-6] + "Z"


def _layout(spec: ChainSpec) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Positions (in the canonical array) of the spec's datetime and date fields, found once."""
    layout = _LAYOUTS.get(spec.kind)
    if layout is None:
        from django.apps import apps

        model = apps.get_model(spec.label)
        fields = [model._meta.get_field(attname.removesuffix("_id")) for attname in spec.fields]
        layout = _LAYOUTS[spec.kind] = (
            tuple(index + 3 for index, field in enumerate(fields) if isinstance(field, models.DateTimeField)),
            tuple(
                index + 3
                for index, field in enumerate(fields)
                if isinstance(field, models.DateField) and not isinstance(field, models.DateTimeField)
            ),
        )
    return layout


_LAYOUTS: dict[str, tuple] = {}


def _canonical_text(spec: ChainSpec, seq: int, values: Sequence) -> str:
    out = [FORMAT, spec.kind, seq, *values]
    datetimes, dates = _layout(spec)
    for index in datetimes:
        if out[index] is not None:
            out[index] = _utc(out[index])
    for index in dates:
        if out[index] is not None:
            out[index] = out[index].isoformat()
    return _dumps(out)


def canonical(spec: ChainSpec, seq: int, values: Sequence) -> bytes:
    """The canonical bytes of a row: [format, kind, position, *fields]."""
    return _canonical_text(spec, seq, values).encode()


def row_hasher(spec: ChainSpec) -> Callable[[str, int, Sequence], str]:
    """`row_hash` for one kind of row, its layout looked up once: what verification calls per row.
    Kinds with no date or time (wagers, reconciliation seats: most rows) skip the conversions."""
    hasher = _HASHERS.get(spec.kind)
    if hasher is None:
        datetimes, dates = _layout(spec)
        sha256, dumps, kind = hashlib.sha256, _dumps, spec.kind
        if datetimes or dates:

            def hasher(previous: str, seq: int, values: Sequence) -> str:
                return sha256((previous + "\n" + _canonical_text(spec, seq, values)).encode()).hexdigest()
        else:

            def hasher(previous: str, seq: int, values: Sequence) -> str:
                return sha256((previous + "\n" + dumps([FORMAT, kind, seq, *values])).encode()).hexdigest()

        _HASHERS[spec.kind] = hasher
    return hasher


_HASHERS: dict[str, Callable] = {}


def row_hash(previous: str, spec: ChainSpec, seq: int, values: Sequence) -> str:
    """SHA-256 of the previous row's hash, a newline and the row's canonical form, in hex."""
    return row_hasher(spec)(previous, seq, values)


def values_of(spec: ChainSpec, instance) -> list:
    """A row's canonical field values as it is about to be inserted (strings parsed as the database would)."""
    values = []
    for attname in spec.fields:
        value = getattr(instance, attname)
        if isinstance(value, str):
            field = instance._meta.get_field(attname.removesuffix("_id"))
            if isinstance(field, models.DateField | models.DateTimeField):
                value = field.to_python(value)
        values.append(value)
    return values
