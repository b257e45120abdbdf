"""The audit trail of access and limits: devices (created and revoked, by whom), staff tokens, table
limits; the device behind an API request and the user behind a task carried into the events; on
PostgreSQL even a raw statement of a request is attributed."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse
from rest_framework.test import APIClient

from pit.accounts.audit import TASK_HEADER, PitHistoryMiddleware, _task_published, audit_context
from pit.accounts.models import Device
from pit.accounts.services import device_create, staff_token_create, staff_token_revoke, user_create_with_role
from pit.tables.models import Table, TableLimit
from pit.tables.services import table_limits_set
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss():
    return user_create_with_role(username="boss", password="a-long-pass-phrase", role="pit boss")


def test_a_device_revoked_in_the_admin_is_recorded_with_who_revoked_it(client, boss):
    root = get_user_model().objects.create_superuser("root", password="a-long-pass-phrase")
    with audit_context(user=boss):
        device, _ = device_create(table=factories.table(), name="shoe reader", user=boss)
    client.force_login(root)
    response = client.post(
        reverse("admin:accounts_device_changelist"),
        {"action": "revoke", "_selected_action": [device.pk]},
        REMOTE_ADDR="10.7.7.7",
    )
    assert response.status_code == 302
    device.refresh_from_db()
    assert device.revoked_by == root and device.revoked_at is not None
    events = list(device.audit_events.order_by("pgh_id"))
    assert [(event.pgh_label, event.created_by_id, event.revoked_by_id) for event in events] == [
        ("insert", boss.pk, None),
        ("update", boss.pk, root.pk),
    ]
    assert events[0].pgh_context["user"] == boss.pk
    assert (events[1].pgh_context["user"], events[1].pgh_context["address"]) == (root.pk, "10.7.7.7")
    assert not hasattr(events[0], "key_hash")  # the key's hash stays out of the trail


def test_staff_tokens_are_in_the_trail_without_their_hash(boss):
    with audit_context(user=boss):
        token, _ = staff_token_create(user=boss, name="reports", created_by=boss)
        staff_token_revoke(token=token, user=boss)
    events = list(token.audit_events.order_by("pgh_id").values("pgh_label", "revoked_by", "pgh_context"))
    assert [(event["pgh_label"], event["revoked_by"], event["pgh_context"]["user"]) for event in events] == [
        ("insert", None, boss.pk),
        ("update", boss.pk, boss.pk),
    ]
    assert "key_hash" not in {field.name for field in token.pgh_event_model._meta.fields}


def test_table_limit_changes_are_recorded_with_the_user(boss):
    table = factories.table()
    with audit_context(user=boss):
        table_limits_set(table=table, limits={"banker": (Decimal("50"), Decimal("5000"))})
    new = TableLimit.pgh_event_model.objects.get(bet="banker", minimum_minor=5000, maximum_minor=500000)
    assert (new.pgh_label, new.table_id, new.pgh_context["user"]) == ("insert", table.pk, boss.pk)


def test_a_device_request_is_attributed_to_the_device(db):
    table = factories.table(open_=False)
    device, key = device_create(table=table, name="terminal")
    client = APIClient(REMOTE_ADDR="10.8.8.8")
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    assert client.post(f"/api/v1/tables/{table.code}/open/", {}, format="json").status_code == 200
    event = Table.pgh_event_model.objects.filter(pgh_obj_id=table.pk, pgh_label="update").get()
    assert (event.status, event.pgh_context["device"], event.pgh_context["address"]) == ("open", device.pk, "10.8.8.8")
    assert event.pgh_context["url"] == f"/api/v1/tables/{table.code}/open/"


def test_a_task_carries_who_enqueued_it_into_its_events(boss):
    from celery.signals import task_postrun, task_prerun

    from pit.ledger.tasks import shoe_reconcile as task

    headers = {}
    with audit_context(user=boss):
        _task_published(headers=headers)
    assert headers == {TASK_HEADER: {"user": boss.pk}}
    _task_published(headers=(outside := {}))
    assert outside == {}  # nobody acting: nothing to carry

    table = factories.table(open_=False)
    task.request.update(**headers)  # as the worker sees the message's headers
    try:
        task_prerun.send(sender=task, task_id="task-h5", task=task, args=(), kwargs={})
        try:
            table.squeeze = not table.squeeze
            table.save()
        finally:
            task_postrun.send(sender=task, task_id="task-h5", task=task, args=(), kwargs={}, retval=None)
    finally:
        task.request.update(**{TASK_HEADER: None})
    assert table.audit_events.filter(pgh_label="update").last().pgh_context == {
        "actor": "system",
        "task": "ledger.shoe_reconcile",
        "on_behalf_of": {"user": boss.pk},
    }


@pytest.mark.postgres
def test_on_postgresql_a_raw_statement_of_a_request_is_attributed(boss):
    table = factories.table(open_=False)

    def view(request):
        request.user = boss  # as DRF sets it, after the middleware
        with connection.cursor() as cursor:
            cursor.execute("UPDATE tables_table SET squeeze = NOT squeeze WHERE id = %s", [table.pk])
        return HttpResponse("done")

    request = RequestFactory().post("/api/v1/tables/BB1/", REMOTE_ADDR="10.9.9.9")
    assert PitHistoryMiddleware(view)(request).status_code == 200
    context = table.audit_events.get(pgh_label="update").pgh_context
    assert (context["user"], context["url"], context["address"]) == (boss.pk, "/api/v1/tables/BB1/", "10.9.9.9")
    assert Device.objects.count() == 0


def test_the_audit_event_tables_are_listed_for_the_insert_only_triggers():
    from pit.accounts.audit import audit_event_tables

    assert audit_event_tables() == [
        "accounts_deviceauditevent",
        "accounts_stafftokenauditevent",
        "accounts_userauditevent",
        "cash_cashfindingauditevent",
        "compliance_ruleviolationauditevent",
        "controls_sensitivekeyauditevent",
        "controls_storageplaceauditevent",
        "ledger_reconciliationauditevent",
        "paytables_paytableconfigurationauditevent",
        "shoes_shoeauditevent",
        "tables_tableauditevent",
        "tables_tablelimitauditevent",
    ]
