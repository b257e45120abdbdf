"""Money for people, per language: the currency's sign, thousands separated, its own decimals; the
currencies of the pits in the table with their minor units; machine formats untouched."""

from decimal import Decimal

import pytest
from django.template import Context, Template
from django.utils import translation

from pit.core.money import CURRENCIES, MoneyError, exponent, format_money, money_display, to_minor


@pytest.mark.parametrize(
    ("currency", "places"), [("HKD", 2), ("MOP", 2), ("SGD", 2), ("PHP", 2), ("KRW", 0), ("AUD", 2), ("USD", 2)]
)
def test_the_pits_currencies_and_their_minor_units(currency, places):
    assert currency in CURRENCIES
    assert CURRENCIES[currency].exponent == exponent(currency) == places


@pytest.mark.parametrize(
    ("amount", "currency", "english", "chinese"),
    [
        (Decimal("1234567.5"), "HKD", "HK$1,234,567.50", "HK$1,234,567.50"),
        (Decimal("-98765.40"), "MOP", "-MOP$98,765.40", "-MOP$98,765.40"),
        (Decimal("1250000"), "KRW", "₩1,250,000", "₩1,250,000"),
        (Decimal("2500.25"), "USD", "$2,500.25", "US$2,500.25"),
        (Decimal("10000"), "SGD", "S$10,000.00", "S$10,000.00"),
        (Decimal("75000.5"), "PHP", "₱75,000.50", "₱75,000.50"),
        (Decimal("999.99"), "AUD", "A$999.99", "A$999.99"),
        (Decimal("1000"), "CHF", "1,000.00 CHF", "1,000.00 CHF"),
    ],
)
def test_money_display_per_language(amount, currency, english, chinese):
    assert money_display(amount, currency, language="en-us") == english
    for language in ("zh-hant", "zh-hans"):
        assert money_display(amount, currency, language=language) == chinese
    with translation.override("zh-hant"):
        assert money_display(amount, currency) == chinese
        exact = amount.quantize(Decimal(1).scaleb(-exponent(currency)))
        assert format_money(to_minor(exact, currency), currency) == chinese
    with translation.override("en-us"):
        assert money_display(amount, currency) == english


def test_none_and_floats():
    assert money_display(None, "HKD") == "—"
    with pytest.raises(MoneyError):
        money_display(12.5, "HKD")  # type: ignore[arg-type]


def test_the_template_filters():
    template = Template("{% load pit_money %}{{ amount|money:'USD' }} {{ minor|money_minor:'MOP' }}")
    with translation.override("zh-hant"):
        text = template.render(Context({"amount": Decimal("-1500"), "minor": 123456}))
    assert text == "-US$1,500.00 MOP$1,234.56"


def test_machine_formats_do_not_change_with_the_language():
    """A decimal string stays a decimal string: no separators, no sign but the minus."""
    from pit.api.serializers import money

    with translation.override("zh-hant"):
        assert money(123456789, "HKD") == "1234567.89"
