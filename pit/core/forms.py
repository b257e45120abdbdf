"""Form fields every back-office form shares: money as a person types it.

People type money in the currency's units with its decimals ("500" is $500.00, "12.50" is $12.50),
never in minor units. `MoneyField` is the one field for it, in every admin form and action form; a
test (tests/admin/test_money_fields.py) enumerates every admin form and fails on a money column
(`is_money_column`) or an amount typed any other way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.core.validators import DecimalValidator
from django.db import models
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy

from pit.core.money import MoneyError, exponent, from_minor, minor_unit, to_minor

# The most decimals any currency has (ISO 4217: BHD, KWD ... have three): a field whose currency is
# known only once the form is filled (the table chosen on it) accepts that many, and the caller's
# conversion with the currency refuses what that currency does not allow.
MAX_DECIMALS = 3
MAX_DIGITS = 18


class MoneyField(forms.DecimalField):
    """An amount of money typed in units of its currency, with the currency's decimals.

    With `minor=True` (a form over a `*_minor` column) the cleaned value is the integer in minor
    units and an initial value (minor units, as stored) shows in units: 50000 shows as 500.00.
    Otherwise the cleaned value is the Decimal typed, for a service that takes units. The currency
    is given, or set when the form learns it (`set_currency`); until then up to `MAX_DECIMALS`
    decimals are accepted and the caller converts with the currency (`money_minor`)."""

    def __init__(self, *, currency: str | None = None, minor: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("max_digits", MAX_DIGITS)
        kwargs.setdefault("decimal_places", MAX_DECIMALS)
        self.minor = minor
        self.currency: str | None = None
        super().__init__(**kwargs)
        if currency:
            self.set_currency(currency)

    def set_currency(self, currency: str) -> None:
        self.currency = currency
        self.decimal_places = exponent(currency)
        self.widget.attrs["step"] = str(Decimal(1).scaleb(-self.decimal_places)) if self.decimal_places else "1"
        example = str(Decimal(500).quantize(minor_unit(currency)))
        # Lazy: a form declared at import shows it in the reader's language.
        units = format_lazy(gettext_lazy("In {currency}, e.g. 500 for {example}."), currency=currency, example=example)
        self.help_text = format_lazy("{} {}", self.help_text, units) if self.help_text else units
        self.validators = [
            *(validator for validator in self.validators if not isinstance(validator, DecimalValidator)),
            DecimalValidator(self.max_digits, self.decimal_places),
        ]

    def prepare_value(self, value: Any) -> Any:
        if self.minor and self.currency and isinstance(value, int) and not isinstance(value, bool):
            return from_minor(value, self.currency)
        return super().prepare_value(value)

    def clean(self, value: Any) -> Any:
        amount = super().clean(value)
        if amount is None or not self.minor:
            return amount
        if self.currency is None:
            raise forms.ValidationError(gettext("The currency of this amount is not known."))
        try:
            return to_minor(amount, self.currency)
        except MoneyError as error:
            raise forms.ValidationError(str(error)) from None

    def has_changed(self, initial: Any, data: Any) -> bool:
        return super().has_changed(self.prepare_value(initial), data)


def money_minor(amount: Decimal, currency: str, field: str) -> int:
    """An amount a `MoneyField` cleaned in units, in minor units of `currency`; too many decimals
    for the currency is a form error naming `field`."""
    try:
        return to_minor(amount, currency)
    except MoneyError as error:
        raise forms.ValidationError({field: str(error)}) from None


def is_money_column(db_field: models.Field[Any, Any]) -> bool:
    """A column holding money: an integer field named `*_minor` (minor units of its row's currency)."""
    return db_field.name.endswith("_minor") and isinstance(db_field, models.IntegerField)
