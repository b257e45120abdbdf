"""The paytables app's named constraints are held by the database."""

import pytest

from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_create_from_preset
from tests.dbcheck import refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def configuration():
    return paytable_create_from_preset(preset="commission_box")


def test_paytable_version_unique(configuration):
    with refused("paytable_version_unique"):
        PaytableConfiguration.objects.create(
            code=configuration.code, version=1, name="again", rules=configuration.rules
        )


def test_paytable_version_positive(configuration):
    with refused("paytable_version_positive"):
        PaytableConfiguration.objects.create(code="other", version=0, name="zero", rules=configuration.rules)


def test_supersedes_is_one_to_one(configuration):
    PaytableConfiguration.objects.create(
        code=configuration.code, version=2, name="v2", rules=configuration.rules, supersedes=configuration
    )
    with refused("supersedes"):
        PaytableConfiguration.objects.create(
            code=configuration.code, version=3, name="v3", rules=configuration.rules, supersedes=configuration
        )
