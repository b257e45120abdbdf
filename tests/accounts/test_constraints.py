"""The accounts app's named constraints are held by the database itself."""

import pytest

from pit.accounts.models import Device
from tests import factories
from tests.dbcheck import refused

pytestmark = pytest.mark.django_db


def test_device_name_unique_per_table():
    table = factories.table()
    Device.objects.create(table=table, name="shoe reader", key_prefix="aaaa1111", key_hash="0" * 64)
    with refused("device_name_unique_per_table"):
        Device.objects.create(table=table, name="shoe reader", key_prefix="bbbb2222", key_hash="1" * 64)
    Device.objects.create(table=factories.table("BB2"), name="shoe reader", key_prefix="cccc3333", key_hash="2" * 64)


def test_device_key_prefix_unique():
    table = factories.table()
    Device.objects.create(table=table, name="one", key_prefix="aaaa1111", key_hash="0" * 64)
    with refused("key_prefix"):
        Device.objects.create(table=table, name="two", key_prefix="aaaa1111", key_hash="1" * 64)
