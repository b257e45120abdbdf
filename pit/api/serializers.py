"""The serializer kit every resource of the API builds on: the strict reader of request bodies, the
field types of money, ASCII numbers and dates, and the base of the response serializers whose answers
plain functions build (docs/design/api.md)."""

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pit import game
from pit.core.money import from_minor

# What the server takes for money: ASCII digits, at most 15 before the point and 3 after it (the most
# any currency has; the table's currency may allow fewer), never a sign. Answers may be negative.
MONEY_PATTERN = r"^[0-9]{1,15}(\.[0-9]{1,3})?$"
SIGNED_MONEY_PATTERN = r"^-?[0-9]{1,15}(\.[0-9]{1,3})?$"
# Read a little wider than the pattern, so that a sign or a fourth decimal gets its own message.
_MONEY = re.compile(r"^-?[0-9]{1,15}(\.[0-9]{1,6})?$")
ASCII_DIGITS = re.compile(r"[0-9]+")
NOT_ASCII_NUMBER = "Numbers are ASCII digits (0-9) only; {value!r} holds other characters."
# The enums SPECTACULAR_SETTINGS names (ENUM_NAME_OVERRIDES), by their path here.
FACT_CHOICES = sorted(game.FACTS)
ROUNDING_MODES = [mode.value for mode in game.RoundingMode]


# ------------------------------------------------------------------------------------------- inputs
class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so that a typo ("amout") is a 400, not a silent default."""

    def to_internal_value(self, data):
        unknown = {}
        if isinstance(data, dict):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            unknown = {name: ["Unknown field."] for name in data if name not in writable}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                exc.detail.update(unknown)
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


@extend_schema_field(
    {
        "type": "string",
        "pattern": MONEY_PATTERN,
        "example": "125.50",
        "description": "A decimal string in the table's currency; JSON numbers are refused.",
    }
)
class MoneyField(serializers.Field):
    """Money as a decimal string ("125.50"). JSON numbers are refused, floats and integers alike:
    a float cannot hold money exactly, and one rule for every amount is easier to get right."""

    default_error_messages = {
        "type": 'Send the amount as a decimal string, e.g. "125.50"; JSON numbers are not accepted for money.',
        "format": "{value!r} is not a decimal amount (ASCII digits with an optional decimal point and at most "
        '3 decimals, e.g. "125.50").',
        "positive": "The amount must be more than zero.",
        "negative": "The amount cannot be negative.",
    }

    def __init__(self, *, positive: bool = False, **kwargs):
        self.positive = positive
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> Decimal:
        if not isinstance(data, str):
            self.fail("type")
        if not _MONEY.match(data):
            self.fail("format", value=data[:40])
        amount = Decimal(data)
        if self.positive and amount <= 0:
            self.fail("positive")
        if amount < 0:
            self.fail("negative")
        return amount

    def to_representation(self, value) -> str:
        return str(value)


@extend_schema_field(
    {"type": "string", "pattern": SIGNED_MONEY_PATTERN, "example": "-2.50", "description": "A decimal string."}
)
class SignedMoneyField(MoneyField):
    """Money in an answer that may be below zero (a variance, a balance)."""


class AsciiIntegerField(serializers.IntegerField):
    """An integer whose text, if sent as a string, is ASCII digits: int() reads "٣" as 3 and fails on
    "²", so anything else is refused before it gets there."""

    default_error_messages = {"ascii": NOT_ASCII_NUMBER}

    def to_internal_value(self, data):
        if isinstance(data, str) and not ASCII_DIGITS.fullmatch(data.strip()):
            if not data.isascii():
                self.fail("ascii", value=data[:40])
            self.fail("invalid")
        return super().to_internal_value(data)


class AsciiDateTimeField(serializers.DateTimeField):
    """An ISO 8601 moment in ASCII: Django's parser would read other digits ("２０２６") too."""

    default_error_messages = {"ascii": "Dates and times are ASCII ISO 8601 only; {value!r} holds other characters."}

    def to_internal_value(self, value):
        if isinstance(value, str) and not value.isascii():
            self.fail("ascii", value=value[:40])
        return super().to_internal_value(value)


class AsciiDateField(serializers.DateField):
    """A gaming day as ASCII YYYY-MM-DD: Django's parser would read other digits ("２０２６") too."""

    default_error_messages = {"ascii": "Dates are ASCII YYYY-MM-DD only; {value!r} holds other characters."}

    def to_internal_value(self, value):
        if isinstance(value, str) and not value.isascii():
            self.fail("ascii", value=value[:40])
        return super().to_internal_value(value)


class CardsField(serializers.ListField):
    """Card codes in dealt order: rank A,2-9,T (or 10),J,Q,K then suit S,H,D,C, e.g. ["5H", "KD"]."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField(max_length=3, min_length=2))
        kwargs.setdefault("min_length", 2)
        kwargs.setdefault("max_length", 3)
        super().__init__(**kwargs)


def validated(serializer_class, request, **kwargs) -> dict:
    """The request's body as `serializer_class` reads it; a 400 naming each field otherwise."""
    serializer = serializer_class(data=request.data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


# ------------------------------------------------------------------------------------------ outputs
def money(minor, currency) -> str | None:
    value = from_minor(minor, currency)
    return None if value is None else str(value)


def iso(moment) -> str | None:
    if moment is None:
        return None
    value = moment.isoformat()
    return value[:-6] + "Z" if value.endswith("+00:00") else value


def recorded_by(row) -> str:
    return row.recorded_by


class OutputSerializer(serializers.Serializer):
    """A response serializer whose fields document the answer; `data_function` builds it."""

    data_function: Callable[[Any], dict[str, Any]]  # each response serializer sets its own (a staticmethod)

    def to_representation(self, instance):
        return type(self).data_function(instance)
