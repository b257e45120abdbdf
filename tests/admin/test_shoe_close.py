"""A pit boss closes a shoe from the admin with each seat's commission box count (in units)."""

from django.urls import reverse

from pit.ledger.models import BoxCount
from pit.shoes.models import ShoeStatus
from tests.admin.conftest import PASSWORD


def test_a_pit_boss_closes_a_shoe_with_its_box_counts(pit, pit_boss, client, django_capture_on_commit_callbacks):
    client.login(username=pit_boss.username, password=PASSWORD)
    page = client.get(reverse("admin:shoes_shoe_change", args=[pit.shoe2.pk])).content.decode()
    assert reverse("admin:shoes_shoe_close", args=[pit.shoe2.pk]) in page
    form = client.get(reverse("admin:shoes_shoe_close", args=[pit.shoe2.pk])).content.decode()
    assert 'name="seat_1"' in form
    seats = {f"seat_{seat}": "0" for seat in pit.bb1.seats} | {"seat_2": "3.75"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:shoes_shoe_close", args=[pit.shoe2.pk]), seats)
    assert response.status_code == 302
    pit.shoe2.refresh_from_db()
    assert pit.shoe2.status == ShoeStatus.CLOSED
    assert dict(BoxCount.objects.filter(shoe=pit.shoe2).values_list("seat", "counted_minor"))[2] == 375


def test_a_count_in_cents_or_negative_is_refused_and_nothing_closes(pit, pit_boss, client):
    client.login(username=pit_boss.username, password=PASSWORD)
    seats = {f"seat_{seat}": "0" for seat in pit.bb1.seats} | {"seat_2": "3.755", "seat_3": "-1"}
    response = client.post(reverse("admin:shoes_shoe_close", args=[pit.shoe2.pk]), seats)
    assert response.status_code == 200
    assert "seat_2" in response.context["form"].errors and "seat_3" in response.context["form"].errors
    pit.shoe2.refresh_from_db()
    assert pit.shoe2.status == ShoeStatus.DEALING
    assert not BoxCount.objects.filter(shoe=pit.shoe2).exists()


def test_who_does_not_run_tables_cannot_close_a_shoe(pit, accountant, client):
    client.login(username=accountant.username, password=PASSWORD)
    assert client.post(reverse("admin:shoes_shoe_close", args=[pit.shoe2.pk]), {}).status_code == 403
    pit.shoe2.refresh_from_db()
    assert pit.shoe2.status == ShoeStatus.DEALING
