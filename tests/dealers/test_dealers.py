"""Dealers: rotations, who dealt each coup, whose fault a violation was, and each dealer's figures."""

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from pit.accounts.models import Role
from pit.accounts.services import device_create
from pit.compliance.models import RuleViolation
from pit.core.errors import Conflict
from pit.dealers.models import DealerRotation, ViolationFault
from pit.dealers.selectors import coup_dealers, dealer_at, dealer_statistics
from pit.dealers.services import dealer_create, dealer_rotate, violation_attribute
from pit.shoes.models import Coup
from tests import factories as f
from tests.admin.conftest import BANKER_WINS, make_user

pytestmark = pytest.mark.django_db
T0 = (timezone.now() - dt.timedelta(hours=3)).replace(microsecond=0)


def at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


@pytest.fixture
def shift(django_capture_on_commit_callbacks):
    """BB1: Ana deals from T0, Ben from T0+1h, nobody from T0+2h. Ana's third coup is mispaid by
    10.00; Ben's second has a wrong reported winner, put down to the card reader."""
    ana, ben = dealer_create(code="D1", name="Ana"), dealer_create(code="D2", name="Ben")
    with django_capture_on_commit_callbacks(execute=True):
        table = f.table("BB1")
        shoe = f.shoe(table, shuffled_at=at(-5))
        for started, dealer in ((0, ana), (60, ben), (120, None)):
            dealer_rotate(table=table, dealer=dealer, started_at=at(started))
        f.coup(shoe, 1, *BANKER_WINS, dealt_at=at(10), wagers=[f.wager(1, "banker", "100", paid="100")])
        f.coup(shoe, 2, *BANKER_WINS, dealt_at=at(20))
        f.coup(shoe, 3, *BANKER_WINS, dealt_at=at(30), wagers=[f.wager(2, "banker", "100", paid="90")])
        f.coup(shoe, 4, *BANKER_WINS, dealt_at=at(70))
        f.coup(shoe, 5, *BANKER_WINS, dealt_at=at(80), reported_winner="player")
        f.coup(shoe, 6, *BANKER_WINS, dealt_at=at(130))
    boss = make_user(Role.PIT_BOSS.value, username="boss")
    misread = RuleViolation.objects.get(code="reported_winner_mismatch")
    violation_attribute(violation=misread, fault="dealer", user=boss, note="first look")
    violation_attribute(violation=misread, fault="device", user=boss, note="the reader misread the 7")
    return {"table": table, "ana": ana, "ben": ben, "boss": boss}


def test_every_coup_has_the_dealer_dealing_when_it_was_dealt(shift):
    dealers = coup_dealers(Coup.objects.all())
    by_number = {Coup.objects.get(pk=pk).number: dealer for pk, dealer in dealers.items()}

    ana, ben = shift["ana"].pk, shift["ben"].pk
    assert by_number == {1: ana, 2: ana, 3: ana, 4: ben, 5: ben, 6: None}
    assert dealer_at(table=shift["table"], moment=at(-1)) is None
    assert dealer_at(table=shift["table"], moment=at(60)) == shift["ben"]


def test_dealer_figures_count_only_dealer_errors(shift):
    figures = {
        row.dealer.code: row
        for row in dealer_statistics(
            first_day=T0.date() - dt.timedelta(days=1), last_day=timezone.now().date() + dt.timedelta(days=1)
        )
    }
    ana, ben = figures["D1"], figures["D2"]

    assert (ana.coups, ana.hours, ana.coups_per_hour) == (3, Decimal("1.00"), Decimal("3.0"))
    assert dict(ana.errors) == {"payout_mismatch": 1}
    assert ana.errors_per_1000_coups == {"payout_mismatch": Decimal("333.33")}
    assert (ana.mispays, ana.mispaid, ana.device_faults) == (1, {"USD": Decimal("10.00")}, 0)
    # Ben's misread winner: the latest attribution (a device fault) stands, so it is not his error.
    assert (ben.coups, ben.hours, ben.coups_per_hour) == (2, Decimal("1.00"), Decimal("2.0"))
    assert (dict(ben.errors), ben.device_faults, ben.mispays, ben.mispaid) == ({}, 1, 0, {})


def test_a_rotation_posted_again_is_a_replay_and_another_dealer_at_that_moment_a_conflict(shift):
    rotation, created = dealer_rotate(table=shift["table"], dealer=shift["ben"], started_at=at(60))
    assert (created, rotation.dealer, DealerRotation.objects.count()) == (False, shift["ben"], 3)

    with pytest.raises(Conflict, match="already has D2 coming in"):
        dealer_rotate(table=shift["table"], dealer=shift["ana"], started_at=at(60))
    assert DealerRotation.objects.count() == 3


@pytest.mark.parametrize(
    ("started_at", "field"),
    [
        (dt.datetime(2026, 3, 1, 14, 0), "started_at"),  # naive: which zone?
        (timezone.now() + dt.timedelta(hours=1), "started_at"),  # the future
    ],
)
def test_a_rotation_needs_a_real_moment(shift, started_at, field):
    with pytest.raises(ValidationError) as caught:
        dealer_rotate(table=shift["table"], dealer=shift["ana"], started_at=started_at)
    assert list(caught.value.message_dict) == [field]
    assert DealerRotation.objects.count() == 3


def test_an_attribution_needs_a_fault_and_a_note(shift):
    violation = RuleViolation.objects.get(code="payout_mismatch")
    with pytest.raises(ValidationError) as caught:
        violation_attribute(violation=violation, fault="weather", user=shift["boss"], note=" ")
    assert caught.value.message_dict == {
        "fault": ["'weather' is not one of dealer, device, other."],
        "note": ["Say why: the attribution is kept with its note."],
    }
    assert ViolationFault.objects.filter(violation=violation).count() == 0


# ---------------------------------------------------------------------------------------- the API
def test_a_floor_device_posts_who_comes_in_at_its_own_table_only(shift, client):
    _, key = device_create(table=shift["table"], name="dealer terminal")
    other = f.table("BB2")
    headers = {"HTTP_AUTHORIZATION": f"Api-Key {key}"}
    body = {"dealer": "D1", "started_at": at(150).isoformat()}

    first = client.post("/api/v1/tables/BB1/rotations/", body, content_type="application/json", **headers)
    again = client.post("/api/v1/tables/BB1/rotations/", body, content_type="application/json", **headers)
    elsewhere = client.post(f"/api/v1/tables/{other.code}/rotations/", body, content_type="application/json", **headers)
    unknown = client.post(
        "/api/v1/tables/BB1/rotations/", {**body, "dealer": "D9"}, content_type="application/json", **headers
    )
    other_digits = client.post(
        "/api/v1/tables/BB1/rotations/",
        {**body, "started_at": "２０２６-03-01T14:00:00Z"},
        content_type="application/json",
        **headers,
    )

    assert (first.status_code, first.json()["dealer"], first.json()["table"]) == (201, "D1", "BB1")
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])
    assert elsewhere.status_code == 403
    assert unknown.status_code == 400 and list(unknown.json()["errors"]) == ["dealer"]
    assert other_digits.status_code == 400 and list(other_digits.json()["errors"]) == ["started_at"]
    assert DealerRotation.objects.count() == 4


def test_a_pit_boss_attributes_a_violation_and_reads_the_figures(shift, client):
    violation = RuleViolation.objects.get(code="payout_mismatch")
    client.force_login(shift["boss"])

    posted = client.post(
        f"/api/v1/violations/{violation.pk}/fault/",
        {"fault": "device", "note": "pay screen"},
        content_type="application/json",
    )
    first, last = (T0.date() - dt.timedelta(days=1)).isoformat(), (timezone.now().date() + dt.timedelta(days=1))
    figures = client.get(f"/api/v1/dealers/statistics/?from={first}&to={last.isoformat()}")
    backwards = client.get(f"/api/v1/dealers/statistics/?from={last.isoformat()}&to={first}")

    assert posted.status_code == 201 and posted.json()["fault"] == "device"
    ana = next(row for row in figures.json() if row["dealer"] == "D1")
    assert ana == {
        "dealer": "D1",
        "name": "Ana",
        "coups": 3,
        "hours": "1.00",
        "coups_per_hour": "3.0",
        "errors_per_1000_coups": {},
        "errors": {},
        "device_faults": 1,
        "mispays": 0,
        "mispaid": {},
    }
    assert backwards.status_code == 400 and list(backwards.json()["errors"]) == ["to"]


def test_devices_and_accountants_may_not_attribute_violations(shift, client):
    violation = RuleViolation.objects.get(code="payout_mismatch")
    _, key = device_create(table=shift["table"], name="reader")
    by_device = client.post(
        f"/api/v1/violations/{violation.pk}/fault/",
        {"fault": "device", "note": "x"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Api-Key {key}",
    )
    client.force_login(make_user(Role.ACCOUNTANT.value, username="acct"))
    by_accountant = client.post(
        f"/api/v1/violations/{violation.pk}/fault/", {"fault": "device", "note": "x"}, content_type="application/json"
    )

    assert (by_device.status_code, by_accountant.status_code) == (403, 403)
    assert not ViolationFault.objects.filter(violation=violation).exists()
    assert get_user_model().objects.filter(username="acct").exists()
