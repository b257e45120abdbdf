"""Money a person types in the back-office is in the currency's units with its decimals: "500" is
$500.00, never $5.00. Every admin form is enumerated: a money column (`*_minor`) on an admin model
form, and an amount on an action or record form, is a `MoneyField`; limits are changed on a page
that shows the limits in force beside the new ones before saving, the bet a choice of the game's."""

import importlib
import inspect
from decimal import Decimal

import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import resolve, reverse

from pit.core.forms import MoneyField, is_money_column
from pit.tables.models import TableLimit, TableLimitVersion
from tests import factories

pytestmark = pytest.mark.django_db

# Integers that are counts or numbers, not money: a period's shift, a seat, a coup id, a slip book's
# and a voided form's numbers, decks.
NOT_MONEY = {"shift", "seat", "coup", "first", "last", "number", "decks"}


def _superuser_request():
    request = RequestFactory().get("/admin/")
    request.resolver_match = resolve("/admin/")  # some admins (pghistory's) read the URL's arguments
    request.user = get_user_model().objects.create_superuser("root", password="a-long-password-0123")
    return request


def _admin_model_forms(request, obj_of):
    """(where, form class) of every admin add and change form and every inline's, as a superuser sees it."""
    for model in apps.get_models():
        if not admin.site.is_registered(model):
            continue
        model_admin = admin.site.get_model_admin(model)
        for obj in (None, obj_of(model_admin)):
            if obj is None and not model_admin.has_add_permission(request):
                continue
            where = f"{model._meta.label} {'change' if obj else 'add'}"
            yield where, model_admin.get_form(request, obj, change=obj is not None)
            for inline in model_admin.get_inline_instances(request, obj):
                yield f"{where} inline {inline.model._meta.label}", inline.get_formset(request, obj).form


def test_every_money_column_on_an_admin_form_is_typed_in_units():
    factories.table("BB1")
    request = _superuser_request()

    def obj_of(model_admin):
        return model_admin.get_queryset(request).order_by("pk").first()

    forms_seen, offenders = 0, []
    for where, form_class in _admin_model_forms(request, obj_of):
        forms_seen += 1
        model_fields = {field.name: field for field in form_class._meta.model._meta.concrete_fields}
        for name, field in form_class.base_fields.items():
            money = name in model_fields and is_money_column(model_fields[name])
            if money and not isinstance(field, MoneyField):
                offenders.append(f"{where}: {name} is a {type(field).__name__}")
    assert offenders == []
    assert forms_seen > 40  # every registered admin's add and change forms and their inlines were looked at


def _admin_modules():
    for config in apps.get_app_configs():
        if config.name.startswith("pit."):
            try:
                yield importlib.import_module(f"{config.name}.admin")
            except ModuleNotFoundError:
                continue


def test_every_amount_on_an_admin_action_form_is_a_money_field():
    """A Decimal typed on an admin form is money (the back-office has no other decimals to type),
    and an integer is a count: each is checked, so a new amount typed in cents fails here."""
    seen, offenders = set(), []
    for module in _admin_modules():
        for _, form_class in inspect.getmembers(module, inspect.isclass):
            if not issubclass(form_class, forms.BaseForm) or issubclass(form_class, forms.BaseModelForm):
                continue
            for name, field in form_class.base_fields.items():
                if isinstance(field, MoneyField):
                    seen.add(f"{form_class.__name__}.{name}")
                elif isinstance(field, forms.DecimalField):
                    offenders.append(f"{form_class.__name__}.{name}: a DecimalField, not a MoneyField")
                elif isinstance(field, forms.IntegerField) and name not in NOT_MONEY:
                    offenders.append(f"{form_class.__name__}.{name}: an integer typed on an admin form")
    assert offenders == []
    assert {"LimitForm.minimum", "LimitForm.maximum", "DropForm.chips", "AdjustmentForm.amount"} <= seen


@pytest.mark.parametrize(
    ("currency", "typed", "minor"),
    [("USD", "500", 50000), ("USD", "12.5", 1250), ("JPY", "500", 500), ("KWD", "1.234", 1234)],
)
def test_a_money_field_reads_units(currency, typed, minor):
    field = MoneyField(minor=True, currency=currency)
    assert field.clean(typed) == minor
    assert field.prepare_value(minor) == Decimal(typed).quantize(Decimal(1).scaleb(-field.decimal_places))


def test_a_money_field_refuses_decimals_its_currency_has_not():
    with pytest.raises(forms.ValidationError):
        MoneyField(minor=True, currency="JPY").clean("500.5")
    with pytest.raises(forms.ValidationError):
        MoneyField(minor=True, currency="USD").clean("5.001")


def _limits_post(rows, **extra):
    data = {"limits-TOTAL_FORMS": str(len(rows)), "limits-INITIAL_FORMS": "0", **extra}
    for index, (bet, minimum, maximum) in enumerate(rows):
        data |= {f"limits-{index}-bet": bet, f"limits-{index}-minimum": minimum, f"limits-{index}-maximum": maximum}
    return data


def test_a_tie_maximum_typed_500_is_500_and_shown_beside_the_old_before_saving(admin_client):
    table = factories.table("BB1")
    url = reverse("admin:tables_table_limits", args=[table.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'value="1000.00"' in html and 'value="25.00"' in html  # in force, in units
    rows = [("banker", "25", "10000"), ("player", "25", "10000"), ("tie", "5", "500")]

    check = admin_client.post(url, _limits_post(rows))
    assert check.status_code == 200
    assert [(c["bet"], c["changed"]) for c in check.context["changes"]] == [
        ("banker", False),
        ("player", False),
        ("tie", True),
    ]
    tie = check.context["changes"][2]
    assert (tie["old"][1], tie["new"][1]) == (
        '<span class="pit-money">$1,000.00</span>',
        '<span class="pit-money">$500.00</span>',
    )
    assert TableLimit.objects.get(table=table, bet="tie").maximum_minor == 100000  # nothing saved yet
    assert TableLimitVersion.objects.filter(table=table).values("effective_from").distinct().count() == 1

    saved = admin_client.post(url, _limits_post(rows, confirm="yes"))
    assert saved.status_code == 302
    assert TableLimit.objects.get(table=table, bet="tie").maximum_minor == 50000
    versions = TableLimitVersion.objects.filter(table=table, bet="tie").order_by("effective_from")
    assert [v.maximum_minor for v in versions] == [100000, 50000]


def test_a_bet_is_one_of_the_games_and_a_bad_row_saves_nothing(admin_client):
    table = factories.table("BB1")
    url = reverse("admin:tables_table_limits", args=[table.pk])
    response = admin_client.post(url, _limits_post([("tiee", "5", "500"), ("tie", "5.001", "500")], confirm="yes"))
    assert response.status_code == 200
    forms_ = response.context["formset"].forms
    assert "bet" in forms_[0].errors and "minimum" in forms_[1].errors
    assert sorted(TableLimit.objects.filter(table=table).values_list("bet", "maximum_minor")) == [
        ("banker", 1000000),
        ("player", 1000000),
        ("tie", 100000),
    ]


def test_only_a_superuser_opens_the_limits_page(client, pit_boss):
    table = factories.table("BB1")
    client.force_login(pit_boss)
    assert client.get(reverse("admin:tables_table_limits", args=[table.pk])).status_code == 403
