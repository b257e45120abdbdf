"""Money for people in templates, in the reader's language (pit.core.money.money_display):
`{% load pit_money %}{{ amount|money:currency }}` for a Decimal, `{{ minor|money_minor:currency }}`
for integer minor units as the database keeps them."""

from decimal import Decimal

from django import template

from pit.core.money import format_money, money_display

register = template.Library()


@register.filter
def money(amount: Decimal | None, currency: str) -> str:
    return money_display(amount, currency)


@register.filter
def money_minor(minor: int | None, currency: str) -> str:
    return format_money(minor, currency)
