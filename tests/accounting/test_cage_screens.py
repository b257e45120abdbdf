"""The cage's screens: the queue of slips waiting to be issued, the issue form with the requested
chips, the printable slip with a Code 128 barcode of its number, and the cage's balance."""

import pytest
from django.urls import reverse

from pit.accounting.admin_cage import cage_balance
from pit.accounting.barcode import BarcodeError, code128_modules, code128_svg, code128_values
from pit.accounting.models import SlipStep
from pit.accounting.services import slip_issue, slip_request
from pit.accounts.services import user_create_with_role
from pit.core.actors import Actor
from pit.core.gaming_day import current_gaming_day
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-pass-phrase"


@pytest.fixture
def slips():
    table = factories.table("BB1")
    day = current_gaming_day()
    fill = slip_request(
        kind="fill",
        number="F-17",
        table=table,
        gaming_day=day,
        reason="low",
        chips={"2500": 4, "10000": 2},
        actor=Actor(),
    )
    credit = slip_request(
        kind="credit", number="C-3", table=table, gaming_day=day, reason="full", chips={"500": 10}, actor=Actor()
    )
    done = slip_request(
        kind="fill", number="F-16", table=table, gaming_day=day, reason="low", chips={"2500": 2}, actor=Actor()
    )
    slip_issue(slip=done, chips={"2500": 2}, actor=Actor())
    return fill, credit, done


@pytest.fixture
def cage(client):
    user = user_create_with_role(username="cash", password=PASSWORD, role="cage")
    client.force_login(user)
    return user


def test_the_queue_lists_the_slips_waiting_oldest_first(slips, cage, client):
    html = client.get(reverse("cage")).content.decode()
    queue = html.split('id="pit-cage-queue"', 1)[1].split("</table>", 1)[0]
    assert queue.index('data-slip="F-17"') < queue.index('data-slip="C-3"')
    assert 'data-slip="F-16"' not in queue
    assert "$25.00 x 4, $100.00 x 2" in queue or "25.00 x 4, 100.00 x 2" in queue


def test_the_issue_form_carries_the_requested_chips_and_issues_through_the_service(slips, cage, client):
    fill, credit, done = slips
    form = client.get(reverse("cage-issue", args=[fill.pk]))
    assert form.context["form"].initial["chips"] == form.context["requested"]
    response = client.post(reverse("cage-issue", args=[fill.pk]), {"chips": form.context["requested"]})
    assert response.status_code == 302 and response["Location"] == reverse("slip-print", args=[fill.pk])
    step = SlipStep.objects.get(slip=fill)
    assert (step.step, step.chips, step.total_minor, step.signed_by_id) == (
        "issued",
        {"2500": 4, "10000": 2},
        30000,
        cage.pk,
    )


def test_a_bad_count_is_refused_and_nothing_is_issued(slips, cage, client):
    fill, credit, done = slips
    response = client.post(reverse("cage-issue", args=[fill.pk]), {"chips": "25 x many"})
    assert response.status_code == 200 and "chips" in response.context["form"].errors
    assert not SlipStep.objects.filter(slip=fill).exists()


def test_only_the_cage_issues(slips, client):
    fill, credit, done = slips
    client.force_login(user_create_with_role(username="acc", password=PASSWORD, role="accountant"))
    assert client.get(reverse("cage")).status_code == 403
    assert client.post(reverse("cage-issue", args=[fill.pk]), {"chips": "25 x 4"}).status_code == 403
    assert not SlipStep.objects.filter(slip=fill).exists()
    assert client.get(reverse("slip-print", args=[fill.pk])).status_code == 200  # accountants see slips


def test_the_printed_slip_carries_its_number_as_a_code128_barcode(slips, cage, client):
    fill, credit, done = slips
    html = client.get(reverse("slip-print", args=[fill.pk])).content.decode()
    assert code128_svg("F-17") in html
    assert 'id="pit-slip-total">$300.00<' in html or 'id="pit-slip-total">300.00' in html


def test_code128_b_symbols_check_character_and_widths():
    # "PJJ123C": start B 104; P=48, J=42, J=42, 1=17, 2=18, 3=19, C=35; check (104 + 48 + 84 + 126
    # + 68 + 90 + 114 + 245) mod 103 = 879 mod 103 = 55.
    assert code128_values("PJJ123C") == [104, 48, 42, 42, 17, 18, 19, 35, 55, 106]
    runs = code128_modules("PJJ123C")
    assert sum(width for _, width in runs) == 11 * 9 + 13  # 9 symbols of 11 modules and the 13-module stop
    assert runs[:6] == [(True, 2), (False, 1), (True, 1), (False, 2), (True, 1), (False, 4)]  # start B: 211214
    with pytest.raises(BarcodeError):
        code128_values("F-1é")


def test_the_cage_balance_of_the_day(slips):
    fill, credit, done = slips
    slip_issue(slip=credit, chips={"500": 10}, actor=Actor())
    [usd] = cage_balance(gaming_day=fill.gaming_day)
    assert (usd["out"], usd["in"], usd["net"], usd["fills"], usd["credits"]) == (5000, 5000, 0, 1, 1)
