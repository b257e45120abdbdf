import datetime as dt
from types import SimpleNamespace

import pytest

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.controls.models import KeyKind, SensitiveKey, StoragePlace
from pit.core.gaming_day import current_gaming_day, gaming_day_bounds
from tests import factories

PASSWORD = "a-long-test-password-0123"


@pytest.fixture
def pit(db):
    """Two days ago, from its start: the card room CR1, two pit bosses and a card-room clerk, BB1
    open, a drop box release key whose access list holds the pit bosses."""
    day = current_gaming_day() - dt.timedelta(days=2)
    start = gaming_day_bounds(day)[0]
    ann, ben, cal = (
        user_create_with_role(username=name, password=PASSWORD, role=Role.PIT_BOSS.value)
        for name in ("ann", "ben", "cal")
    )
    bb1 = factories.table("BB1", open_=False)
    return SimpleNamespace(
        day=day,
        start=start,
        ann=ann,
        ben=ben,
        cal=cal,
        bb1=bb1,
        room=StoragePlace.objects.create(code="CR1", name="Card room"),
        key=SensitiveKey.objects.create(code="DBR-1", kind=KeyKind.DROP_BOX_RELEASE, name="Drop box release 1"),
    )
