"""Surveillance's room: the notifications not yet acknowledged, acknowledged from the list; the pit
boss notifies a drop; an accountant records a filing. Every write through the services."""

import pytest
from django.urls import reverse

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.core.admin_site import PAGE_LINKS
from pit.notices.models import SurveillanceAcknowledgement, SurveillanceNotification
from pit.notices.services import drop_notify
from tests.accounting.conftest import DAY, PASSWORD

pytestmark = pytest.mark.django_db
LIST = reverse("admin:notices_surveillancenotification_changelist")


@pytest.fixture
def watcher(db):
    return user_create_with_role(username="watcher", password=PASSWORD, role=Role.SURVEILLANCE.value)


def test_surveillance_acknowledges_from_its_room(client, pit, watcher):
    notification = drop_notify(table=pit.bb1, gaming_day=DAY, shift=1)
    client.force_login(watcher)
    page = client.get(LIST, {"acknowledged": "no"})
    assert page.status_code == 200 and notification.message in page.content.decode()
    response = client.post(
        LIST,
        {
            "action": "acknowledge_with_note",
            "_selected_action": [notification.pk],
            "post": "yes",
            "note": "on camera 12",
        },
    )
    assert response.status_code == 302
    acknowledgement = SurveillanceAcknowledgement.objects.get()
    assert (acknowledgement.notification, acknowledgement.acknowledged_by, acknowledgement.note) == (
        notification,
        watcher,
        "on camera 12",
    )
    assert "surveillance" in PAGE_LINKS


def test_a_pit_boss_notifies_but_does_not_acknowledge(client, pit):
    client.force_login(pit.boss)
    response = client.post(reverse("admin:notices_surveillancenotification_add"), {"kind": "drop", "table": pit.bb1.pk})
    assert response.status_code == 302
    notification = SurveillanceNotification.objects.get()
    assert (notification.kind, notification.table, notification.recorded_by_user) == ("drop", pit.bb1, pit.boss)
    client.post(
        LIST, {"action": "acknowledge_with_note", "_selected_action": [notification.pk], "post": "yes", "note": "x"}
    )
    assert not SurveillanceAcknowledgement.objects.exists()


def test_surveillance_sees_no_ledger_and_no_regulator_notices(client, watcher):
    client.force_login(watcher)
    assert client.get(reverse("admin:ledger_commissionentry_changelist")).status_code == 403
    assert client.get(reverse("admin:notices_regulatornotice_changelist")).status_code == 403
