"""The back-office forms of table accounting: each records a fact through its service, for the roles
that may, and shows a refusal on the form with nothing written."""

import pytest
from django.urls import reverse

from pit.accounting.models import DropCount, InventoryCount, Slip, SlipStep
from pit.accounting.services import slip_request
from tests.accounting.conftest import DAY, PASSWORD

pytestmark = pytest.mark.django_db


def post(client, model, data):
    return client.post(reverse(f"admin:accounting_{model}_add"), data)


def test_pit_boss_records_an_opener_in_the_admin(client, pit):
    client.force_login(pit.boss)
    response = post(
        client,
        "inventorycount",
        {
            "table": "BB1",
            "gaming_day": DAY,
            "shift": 1,
            "kind": "opener",
            "chips": "25.00 x 40\n$100 x 30",
            "dealer": "dealer",
            "dealer_password": PASSWORD,
            "pit_boss": "boss",
        },
    )
    count = InventoryCount.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:accounting_inventorycount_change", args=[count.pk])
    assert (count.chips, count.total_minor, count.recorded_by_user) == ({"2500": 40, "10000": 30}, 400000, pit.boss)
    page = client.get(response["Location"]).content.decode()
    assert "$25.00 x 40, $100.00 x 30" in page and "$4,000.00" in page


def test_refusals_show_on_the_form_and_write_nothing(client, pit):
    client.force_login(pit.boss)
    response = post(
        client,
        "inventorycount",
        {
            "table": "BB1",
            "gaming_day": DAY,
            "shift": 1,
            "kind": "opener",
            "chips": "25.00 x 40",
            "dealer": "boss",
            "pit_boss": "boss",
        },
    )
    assert response.status_code == 200
    assert "The dealer and the pit boss must be two different people." in response.content.decode()
    response = post(
        client,
        "inventorycount",
        {
            "table": "BB1",
            "gaming_day": DAY,
            "shift": 1,
            "kind": "opener",
            "chips": "25.005 x 40",
            "dealer": "dealer",
            "pit_boss": "boss",
        },
    )
    assert "&#x27;25.005&#x27; is not a denomination in USD." in response.content.decode()
    assert not InventoryCount.objects.exists()


def test_fill_requested_by_the_pit_issued_by_the_cage_received_at_the_table(client, pit):
    client.force_login(pit.boss)
    post(
        client,
        "slip",
        {
            "kind": "fill",
            "number": "F-77",
            "table": "BB1",
            "gaming_day": DAY,
            "shift": 1,
            "reason": "low",
            "chips": "25 x 40",
        },
    )
    slip = Slip.objects.get()
    # The pit boss may not issue: the step is not offered.
    response = post(client, "slipstep", {"slip": slip.pk, "step": "issued", "chips": "25 x 40"})
    assert response.status_code == 200 and not SlipStep.objects.exists()
    client.force_login(pit.cashier)
    assert post(client, "slipstep", {"slip": slip.pk, "step": "issued", "chips": "25 x 40"}).status_code == 302
    client.force_login(pit.dealer)  # another pit boss: who requested the fill does not sign for it
    assert post(client, "slipstep", {"slip": slip.pk, "step": "received", "chips": "25 x 40"}).status_code == 302
    assert list(SlipStep.objects.values_list("step", "signed_by__username", "total_minor")) == [
        ("issued", "cashier", 100000),
        ("received", "dealer", 100000),
    ]


def test_receipt_before_issue_is_shown_as_an_error(client, pit):
    slip = slip_request(
        kind="fill", number="F-1", table=pit.bb1, gaming_day=DAY, reason="low", chips={"2500": 4}, actor=pit.actor
    )
    client.force_login(pit.boss)
    response = post(client, "slipstep", {"slip": slip.pk, "step": "received", "chips": "25 x 4"})
    assert "has not been issued by the cage yet" in response.content.decode()
    assert not SlipStep.objects.exists()


def test_accountant_enters_the_soft_count_and_pit_boss_may_not(client, pit):
    data = {
        "table": "BB1",
        "gaming_day": DAY,
        "shift": 1,
        "cash": "100 x 52, 20 x 5",
        "chips": "250.00",
        "markers": "0",
    }
    client.force_login(pit.boss)
    assert post(client, "dropcount", data).status_code == 403
    client.force_login(pit.accountant)
    assert post(client, "dropcount", data).status_code == 302
    drop = DropCount.objects.get()
    assert (drop.cash_minor, drop.chips_minor, drop.total_minor, drop.recorded_by_user) == (
        530000,
        25000,
        555000,
        pit.accountant,
    )


def test_accountant_closes_the_day_and_adjusts_it_in_the_admin(client, pit):
    from pit.accounting.models import Adjustment, GamingDayEvent

    client.force_login(pit.accountant)
    inventory = {
        "table": "BB1",
        "gaming_day": DAY,
        "shift": 1,
        "kind": "opener",
        "chips": "100 x 50",
        "dealer": "dealer",
        "dealer_password": PASSWORD,
        "pit_boss": "boss",
    }
    assert post(client, "inventorycount", inventory).status_code == 403  # accountants do not count trays
    # A day with nothing recorded closes at once.
    assert post(client, "gamingdayevent", {"gaming_day": DAY, "action": "closed", "note": ""}).status_code == 302
    day = DAY.replace(day=21)
    client.force_login(pit.boss)
    post(client, "inventorycount", {**inventory, "gaming_day": day})
    client.force_login(pit.accountant)
    refused = post(client, "gamingdayevent", {"gaming_day": day, "action": "closed", "note": ""})
    assert "Table BB1 has no closer, drop recorded for every shift." in refused.content.decode()
    assert list(GamingDayEvent.objects.values_list("gaming_day", "action")) == [(DAY, "closed")]
    adjusted = post(
        client,
        "adjustment",
        {"table": "BB1", "gaming_day": DAY, "shift": 1, "figure": "drop", "amount": "-25.00", "reason": "miscounted"},
    )
    assert adjusted.status_code == 302
    assert Adjustment.objects.get().amount_minor == -2500


def test_segregation_of_duties_in_the_admin(client, pit):
    """The one who requested a fill is refused its receipt, the rule named on the form; the tray
    count's dealer signs with their password at the same screen, or nothing is written."""
    slip = slip_request(
        kind="fill", number="F-9", table=pit.bb1, gaming_day=DAY, reason="low", chips={"2500": 40}, actor=pit.actor
    )
    client.force_login(pit.cashier)
    assert post(client, "slipstep", {"slip": slip.pk, "step": "issued", "chips": "25 x 40"}).status_code == 302
    client.force_login(pit.boss)
    refused = post(client, "slipstep", {"slip": slip.pk, "step": "received", "chips": "25 x 40"})
    assert refused.status_code == 200
    assert "Segregation of duties (PIT_SEGREGATION_OF_DUTIES): boss requested fill slip F-9" in refused.content.decode()
    assert list(SlipStep.objects.values_list("step", flat=True)) == ["issued"]

    count = {
        "table": "BB1",
        "gaming_day": DAY,
        "shift": 1,
        "kind": "opener",
        "chips": "25 x 4",
        "dealer": "dealer",
        "pit_boss": "boss",
    }
    alone = post(client, "inventorycount", count)
    assert alone.status_code == 200
    assert alone.context["form"].errors["dealer_password"] == [
        "Segregation of duties (PIT_SEGREGATION_OF_DUTIES): dealer signs as the dealer; they enter their "
        "password here or sign from their own login."
    ]
    assert not InventoryCount.objects.exists()
    assert post(client, "inventorycount", {**count, "dealer_password": PASSWORD}).status_code == 302
    assert InventoryCount.objects.get().dealer == pit.dealer
