"""pit.accounts.persistence: the device read by key prefix gives what the ORM gives."""

import pytest

from pit.accounts.models import Device
from pit.accounts.persistence import device_by_prefix
from pit.accounts.services import device_create
from tests import factories

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def test_device_by_prefix_reads_the_device_and_its_table_as_the_orm_reads_them():
    table = factories.table("DP1")
    device, key = device_create(table=table, name="shoe reader")
    factories.table("DP2")
    device_create(table=factories.table("DP3"), name="other")
    found = device_by_prefix(key.split(".", 1)[0])
    expected = Device.objects.select_related("table").get(pk=device.pk)
    assert _fields(found) == _fields(expected)
    assert _fields(found.table) == _fields(expected.table)
    assert found.table.code == "DP1"


def test_an_unknown_prefix_reads_nothing():
    device_create(table=factories.table("DP4"), name="shoe reader")
    assert device_by_prefix("00000000") is None
