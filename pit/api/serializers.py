"""The serializer kit every resource of the API builds on: the strict reader of request bodies, the
field types of money, ASCII numbers and dates, and the base of the response serializers whose answers
plain functions build (docs/design/api.md)."""

import datetime as dt
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.core.validators import RegexValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from pit import game
from pit.core.money import exponent, from_minor

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise

# The enums SPECTACULAR_SETTINGS names (ENUM_NAME_OVERRIDES), by their path here.
FACT_CHOICES = sorted(game.FACTS)
ROUNDING_MODES = [mode.value for mode in game.RoundingMode]


# ------------------------------------------------------------------------------------------- inputs
# The one set of field types every input of the API is read with (docs/design/api.md, "Field types"):
# tests/api/test_strict_fields.py fails when an input serializer declares a field not from this kit.
SHOWN_CHARACTERS = 40
# Control characters but the line breaks (\n, \r) and the tab; and lone surrogates, which UTF-8 cannot hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def shown(value) -> str:
    """A posted value as an error message quotes it: at most 40 characters of it, and its length."""
    if isinstance(value, str):
        if len(value) > SHOWN_CHARACTERS:
            return f"{value[:SHOWN_CHARACTERS]!r}... ({len(value)} characters)"
        return repr(value)
    return gettext("a JSON {type}").format(type=json_type(value))


def json_type(value) -> str:
    """The JSON name of a parsed value's type, for messages ("a JSON number")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class KitField:
    """Marks a field of the kit; every field of an input serializer is one (or a StrictSerializer)."""


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so that a typo ("amout") is a 400, not a silent default."""

    def to_internal_value(self, data):
        unknown = {}
        if isinstance(data, dict):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            unknown = {name[:SHOWN_CHARACTERS]: [gettext("Unknown field.")] for name in data if name not in writable}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                exc.detail.update(unknown)
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


INTEGER_TYPE = _("Send a whole number as a JSON integer (e.g. 5), not {shown}.")
INTEGER_MIN = _("Ensure this value is greater than or equal to {low}.")
INTEGER_MAX = _("Ensure this value is less than or equal to {high}.")


def integer_problem(value, low: int, high: int) -> str | None:
    """What is wrong with `value` as an integer from `low` to `high`; None when nothing is.
    A JSON integer only: not a string of digits (" 5", "５"), not 5.0, not a boolean."""
    if isinstance(value, bool) or not isinstance(value, int):
        return INTEGER_TYPE.format(shown=shown(value))
    if value < low:
        return INTEGER_MIN.format(low=low)
    if value > high:
        return INTEGER_MAX.format(high=high)
    return None


class IntegerField(KitField, serializers.IntegerField):
    """A whole number, sent as a JSON integer, within declared bounds (both required)."""

    def __init__(self, *, min_value: int, max_value: int, **kwargs):
        super().__init__(min_value=min_value, max_value=max_value, **kwargs)

    def to_internal_value(self, data) -> int:
        problem = integer_problem(data, self.min_value, self.max_value)  # type: ignore[arg-type]
        if problem:
            raise serializers.ValidationError(problem, code="invalid")
        return data

    def run_validators(self, value) -> None:
        """The bounds are checked above, with the messages `coup_values` gives."""


# What the server takes for money: ASCII digits, at most 15 before the point and at most 3 after it
# (the most any currency has; a table's currency may allow fewer), never a sign. Answers may be negative.
MONEY_PATTERN = r"^[0-9]{1,15}(\.[0-9]{1,3})?$"
SIGNED_MONEY_PATTERN = r"^-?[0-9]{1,15}(\.[0-9]{1,3})?$"
_MONEY = re.compile(r"[0-9]{1,15}(\.[0-9]+)?", re.ASCII)
CURRENCY_CODE = re.compile(r"[A-Z]{3}", re.ASCII)  # ISO 4217
MONEY_TYPE = _('Send the amount as a decimal string, e.g. "125.50"; JSON numbers are not accepted for money.')
MONEY_FORMAT = _(
    "{shown} is not a decimal amount: ASCII digits, at most 15 before the point and {decimals} after it, "
    'no sign, e.g. "125.50".'
)
MONEY_POSITIVE = _("The amount must be more than zero.")


def money_decimals(currency: str | None) -> int:
    return MAX_MONEY_DECIMALS if currency is None else exponent(currency)


MAX_MONEY_DECIMALS = 3


def money_problem(value, *, positive: bool, currency: str | None = None) -> tuple[Decimal | None, str | None]:
    """`value` as an amount, or what is wrong with it. `currency`: its decimals are the most taken
    (without one, 3: the most any currency has; the table's currency is checked when it is known)."""
    if not isinstance(value, str):
        return None, str(MONEY_TYPE)
    decimals = money_decimals(currency)
    allowed = (
        gettext("at most {decimals} ({currency})").format(decimals=decimals, currency=currency)
        if currency
        else gettext("at most {decimals} (fewer where the table's currency has fewer: EUR 2, JPY 0)").format(
            decimals=decimals
        )
    )
    if not _MONEY.fullmatch(value) or ("." in value and len(value.partition(".")[2]) > decimals):
        return None, MONEY_FORMAT.format(shown=shown(value), decimals=allowed)
    amount = Decimal(value)
    if positive and amount <= 0:
        return None, str(MONEY_POSITIVE)
    return amount, None


@extend_schema_field(
    {
        "type": "string",
        "pattern": MONEY_PATTERN,
        "maxLength": 19,
        "example": "125.50",
        "description": "A decimal string in the table's currency, with at most its decimals (EUR 2, JPY 0, "
        "BHD 3); no sign; JSON numbers are refused.",
    }
)
class MoneyField(KitField, serializers.Field):
    """Money as a decimal string ("125.50"). JSON numbers are refused, floats and integers alike:
    a float cannot hold money exactly, and one rule for every amount is easier to get right. The
    currency whose decimals are the most taken is the serializer's context's `currency` or, in a body
    that names its own (a `currency` field beside the amount), that one: one pass reads both."""

    def __init__(self, *, positive: bool = False, **kwargs):
        self.positive = positive
        super().__init__(**kwargs)

    def _currency(self) -> str | None:
        named = self.context.get("currency")
        if named is None:
            body = getattr(self.parent, "initial_data", None)
            sent = body.get("currency") if isinstance(body, Mapping) else None
            named = sent if isinstance(sent, str) and CURRENCY_CODE.fullmatch(sent) else None
        return named

    def to_internal_value(self, data) -> Decimal:
        amount, problem = money_problem(data, positive=self.positive, currency=self._currency())
        if problem:
            raise serializers.ValidationError(problem, code="invalid")
        return amount  # type: ignore[return-value]

    def to_representation(self, value) -> str:
        return str(value)


@extend_schema_field(
    {"type": "string", "pattern": SIGNED_MONEY_PATTERN, "example": "-2.50", "description": "A decimal string."}
)
class SignedMoneyField(MoneyField):
    """Money in an answer that may be below zero (a variance, a balance)."""


IDENTIFIER_TYPE = _("Send {what} as a JSON string, not {shown}.")
IDENTIFIER_FORMAT = _("{shown} is not {what}: {rule}.")


class IdentifierField(KitField, serializers.CharField):
    """A name something is known by (a slip number, a table code, a username): a string matching a
    declared ASCII pattern exactly, nothing trimmed, so that two that look the same are the same."""

    def __init__(self, *, pattern: str, rule: "StrOrPromise", what: "StrOrPromise", max_length: int, **kwargs):
        self.pattern = re.compile(pattern, re.ASCII)
        self.rule, self.what = rule, what
        kwargs.setdefault("help_text", f"{str(what)[0].upper()}{str(what)[1:]}: {rule}.")
        super().__init__(max_length=max_length, trim_whitespace=False, **kwargs)
        # Checked in `problem` with one message; declared here too, for the schema's pattern.
        self.validators.append(RegexValidator(f"^{pattern}$"))

    def to_internal_value(self, data) -> str:
        problem = self.problem(data)
        if problem:
            raise serializers.ValidationError(problem, code="invalid")
        return data

    def problem(self, data) -> str | None:
        if not isinstance(data, str):
            return IDENTIFIER_TYPE.format(what=self.what, shown=shown(data))
        if len(data) > self.max_length or not self.pattern.fullmatch(data):  # type: ignore[operator]
            return IDENTIFIER_FORMAT.format(shown=shown(data), what=self.what, rule=self.rule)
        return None


def currency_field(**kwargs) -> IdentifierField:
    """A currency's ISO 4217 code, as a body names the currency of its amounts."""
    return IdentifierField(
        pattern=CURRENCY_CODE.pattern,
        rule="three capital letters (ISO 4217), e.g. HKD",
        what="a currency code",
        max_length=3,
        **kwargs,
    )


def reference_field(*, what: str, **kwargs) -> IdentifierField:
    """The number a client gives a record of its own (a terminal's transaction, a comp slip): what
    makes a repost the same record, so read exactly as sent."""
    return IdentifierField(
        pattern=r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,59}",
        rule="1 to 60 ASCII letters, digits or . _ : / -, starting with a letter or digit",
        what=what,
        max_length=60,
        **kwargs,
    )


class LookupField(IdentifierField):
    """An identifier that names a row (a dealer by code): the row, or a 400 naming the field."""

    def __init__(self, *, queryset, slug_field: str, **kwargs):
        self.queryset, self.slug_field = queryset, slug_field
        super().__init__(**kwargs)

    def run_validation(self, data=serializers.empty):
        code = super().run_validation(data)  # the identifier's own checks and validators first
        if code is None or code is serializers.empty:
            return code
        row = self.queryset.filter(**{self.slug_field: code}).first()
        if row is None:
            raise serializers.ValidationError(
                gettext("There is no {what} {shown}.").format(what=self.what, shown=shown(code)), code="invalid"
            )
        return row

    def to_representation(self, value):
        return getattr(value, self.slug_field)


def table_code_field(**kwargs) -> IdentifierField:
    return IdentifierField(
        pattern=r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}",
        rule=_("1 to 20 ASCII letters, digits, - or _"),
        what=_("a table code"),
        max_length=20,
        **kwargs,
    )


def username_field(**kwargs) -> IdentifierField:
    return IdentifierField(
        pattern=r"[A-Za-z0-9_.@+-]{1,150}",
        rule=_("1 to 150 ASCII letters, digits and @.+-_"),
        what=_("a username"),
        max_length=150,
        **kwargs,
    )


def bet_field(**kwargs) -> IdentifierField:
    return IdentifierField(
        pattern=r"[a-z][a-z0-9_]{0,19}",
        rule=_("a bet of the table's paytable: 1 to 20 lowercase ASCII letters, digits or _, e.g. banker"),
        what=_("a bet"),
        max_length=20,
        **kwargs,
    )


def card_field(**kwargs) -> IdentifierField:
    return IdentifierField(
        pattern=r"[0-9A-Za-z]{2,3}",
        rule=_('rank A,2-9,T (or 10),J,Q,K then suit S,H,D,C, e.g. "5H"'),
        what=_("a card code"),
        max_length=3,
        **kwargs,
    )


TEXT_TYPE = _("Send text as a JSON string, not {shown}.")
TEXT_CONTROL = _("Text cannot hold control characters (a NUL byte, an escape); only line breaks and tabs.")


class TextField(KitField, serializers.CharField):
    """Free text (a reason, a note): a string of at most `max_length` characters, without NUL or
    other control characters (line breaks and tabs are text); trimmed, as the services store it."""

    def __init__(self, *, max_length: int, **kwargs):
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError(TEXT_TYPE.format(shown=shown(data)), code="invalid")
        if _CONTROL.search(data):
            raise serializers.ValidationError(TEXT_CONTROL, code="invalid")
        return super().to_internal_value(data)


class SecretField(TextField):
    """A password or PIN a person enters at the screen: write-only, never trimmed, never part of the
    recorded fact (a replay does not compare it)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(max_length=200, write_only=True, trim_whitespace=False, **kwargs)


CHOICE_TYPE = _("Send one of {choices} as a JSON string, not {shown}.")
CHOICE_INVALID = _("{shown} is not one of {choices}.")


class ChoiceField(KitField, serializers.ChoiceField):
    """One of a declared set of strings, sent as a JSON string."""

    def to_internal_value(self, data) -> str:
        problem = self.problem(data)
        if problem:
            raise serializers.ValidationError(problem, code="invalid")
        return self.choice_strings_to_values[data]

    def problem(self, data) -> str | None:
        choices = ", ".join(str(choice) for choice in self.choices)
        if not isinstance(data, str):
            return CHOICE_TYPE.format(choices=choices, shown=shown(data))
        if data not in self.choice_strings_to_values:
            return CHOICE_INVALID.format(shown=shown(data), choices=choices)
        return None


# An ISO 8601 moment with its offset: seconds and fractions optional, "Z" or +hh:mm, ASCII only.
MOMENT_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})$"
_MOMENT = re.compile(MOMENT_PATTERN, re.ASCII)
MOMENT_FORMAT = _(
    'Send an ISO 8601 time with its UTC offset, e.g. "2026-11-29T21:14:05Z" or "2026-11-29T22:14:05+01:00"; '
    "{shown} is not one."
)


def moment_problem(value) -> tuple[dt.datetime | None, str | None]:
    if not isinstance(value, str) or not _MOMENT.fullmatch(value):
        return None, MOMENT_FORMAT.format(shown=shown(value))
    try:
        return dt.datetime.fromisoformat(value), None
    except ValueError:
        return None, gettext("{shown} is not a time that exists.").format(shown=shown(value))


@extend_schema_field({"type": "string", "format": "date-time", "pattern": MOMENT_PATTERN, "maxLength": 32})
class MomentField(KitField, serializers.DateTimeField):
    """A moment, as ISO 8601 with its UTC offset: a time without one is refused, not read in the
    server's zone."""

    def to_internal_value(self, value) -> dt.datetime:
        moment, problem = moment_problem(value)
        if problem:
            raise serializers.ValidationError(problem, code="invalid")
        return moment  # type: ignore[return-value]


DAY_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_DAY = re.compile(DAY_PATTERN, re.ASCII)


@extend_schema_field({"type": "string", "format": "date", "pattern": DAY_PATTERN, "maxLength": 10})
class DayField(KitField, serializers.DateField):
    """A gaming day, as ASCII YYYY-MM-DD."""

    def to_internal_value(self, value) -> dt.date:
        if not isinstance(value, str) or not _DAY.fullmatch(value):
            raise serializers.ValidationError(
                gettext('Send a day as "YYYY-MM-DD"; {shown} is not one.').format(shown=shown(value)), code="invalid"
            )
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise serializers.ValidationError(
                gettext("{shown} is not a day that exists.").format(shown=shown(value)), code="invalid"
            ) from None


class FlagField(KitField, serializers.BooleanField):
    """Yes or no, as JSON true or false (not "yes", 1 or "true")."""

    def to_internal_value(self, data) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError(
                gettext("Send true or false, not {shown}.").format(shown=shown(data)), code="invalid"
            )
        return data


class ListField(KitField, serializers.ListField):
    """A list of kit fields, of a declared most length."""

    def __init__(self, *, max_length: int, **kwargs):
        super().__init__(max_length=max_length, **kwargs)


class CardsField(ListField):
    """Card codes in dealt order: rank A,2-9,T (or 10),J,Q,K then suit S,H,D,C, e.g. ["5H", "KD"]."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", card_field())
        kwargs.setdefault("min_length", 2)
        kwargs.setdefault("max_length", 3)
        super().__init__(**kwargs)


class DenominationsField(KitField, serializers.DictField):
    """Pieces per denomination: {"25.00": 40}; each key money (positive, the currency's decimals),
    each value a JSON integer. The same denomination twice ("25" and "25.00") is refused."""

    def __init__(self, *, max_pieces: int, **kwargs):
        kwargs.setdefault("child", IntegerField(min_value=0, max_value=max_pieces))
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> dict[Decimal, int]:
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                gettext("Send an object of pieces per denomination, not {shown}.").format(shown=shown(data))
            )
        pieces = super().to_internal_value(data)
        values: dict[Decimal, int] = {}
        errors: dict[str, list[str]] = {}
        for key, count in pieces.items():
            amount, problem = money_problem(key, positive=True, currency=self.context.get("currency"))
            if problem is None and amount in values:
                problem = gettext("{shown} is a denomination given twice.").format(shown=shown(key))
            if problem:
                errors[key[:SHOWN_CHARACTERS]] = [problem]
            else:
                values[amount] = count  # type: ignore[index]
        if errors:
            raise serializers.ValidationError(errors)
        return values


def path_day(value: str) -> dt.date:
    """A gaming day in the URL's path; a 400 naming `day` otherwise."""
    try:
        return DayField().run_validation(value)
    except serializers.ValidationError as exc:
        raise serializers.ValidationError({"day": exc.detail}) from None


def query_flag(params, name: str) -> bool:
    """A yes-or-no query parameter: `true` or `false` (left out: false); a 400 naming it otherwise."""
    values = params.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0] not in ("true", "false"):
        raise serializers.ValidationError(
            {name: [gettext("Send true or false, once; not {shown}.").format(shown=shown(values[-1]))]}
        )
    return values[0] == "true"


def validated(serializer_class, request, *, currency: str | None = None, **kwargs) -> dict:
    """The request's body as `serializer_class` reads it; a 400 naming each field otherwise. With a
    `currency`, money is taken with at most its decimals."""
    if currency is not None:
        kwargs["context"] = {**kwargs.get("context", {}), "currency": currency}
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
