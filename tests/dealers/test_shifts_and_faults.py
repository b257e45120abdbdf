"""A rotation nobody ended runs a shift at most and is a finding; the dealers' figures and
`dealer_error_rate` count the dealer's errors only, by one classification of every code; dealers
are added from the admin and by a command."""

import datetime as dt
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.core.gaming_day import gaming_day_for
from pit.dealers.errors import CODE_FAULT, DEALER_ERROR_CODES
from pit.dealers.models import Dealer, Fault
from pit.dealers.selectors import coup_dealers, dealer_at, dealer_days, dealer_statistics
from pit.dealers.services import dealer_create, dealer_rotate, rotations_overdue_record
from pit.game import VIOLATION_CODES, violation
from pit.shoes.models import Coup
from tests import factories as f
from tests.admin.conftest import BANKER_WINS, PLAYER_NATURAL

pytestmark = pytest.mark.django_db
T0 = (timezone.now() - dt.timedelta(hours=20)).replace(microsecond=0)


def at(hours: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=hours)


def test_every_violation_code_is_classified_once():
    assert set(CODE_FAULT) == set(VIOLATION_CODES)
    assert set(CODE_FAULT.values()) == {Fault.DEALER, Fault.DEVICE, Fault.OTHER}
    assert CODE_FAULT["card_over_capacity"] == CODE_FAULT["shoe_sequence_repeat"] == Fault.DEVICE
    assert "card_over_capacity" not in DEALER_ERROR_CODES and "payout_mismatch" in DEALER_ERROR_CODES


@pytest.fixture
def forgotten(settings, django_capture_on_commit_callbacks):
    """Ana comes in at BB1 at T0 and nobody is recorded after her; coups at T0+1h and T0+10h."""
    settings.PIT_DEALER_SHIFT_HOURS = 8
    ana = dealer_create(code="D1", name="Ana")
    with django_capture_on_commit_callbacks(execute=True):
        table = f.table("BB1")
        shoe = f.shoe(table, shuffled_at=at(-0.1))
        dealer_rotate(table=table, dealer=ana, started_at=at(0))
        f.coup(shoe, 1, *BANKER_WINS, dealt_at=at(1))
        f.coup(shoe, 2, *PLAYER_NATURAL, dealt_at=at(10))
    return {"table": table, "ana": ana, "shoe": shoe}


def test_a_rotation_nobody_ended_is_charged_a_shift_at_most(forgotten):
    ana = forgotten["ana"]
    by_number = {Coup.objects.get(pk=pk).number: dealer for pk, dealer in coup_dealers(Coup.objects.all()).items()}
    assert by_number == {1: ana.pk, 2: None}
    assert dealer_at(table=forgotten["table"], moment=at(7.9)) == ana
    assert dealer_at(table=forgotten["table"], moment=at(8)) is None
    days = {gaming_day_for(at(0)), gaming_day_for(at(20))}
    (figures,) = dealer_statistics(first_day=min(days), last_day=max(days))
    assert (figures.coups, str(figures.hours), str(figures.coups_per_hour)) == (1, "8.00", "0.1")


def test_a_rotation_open_past_a_shift_is_a_finding_until_someone_is_recorded(forgotten):
    day = gaming_day_for(at(8))
    assert rotations_overdue_record(day=day) == 1
    (finding,) = RuleViolation.objects.filter(code="dealer_rotation_overdue", cleared_at__isnull=True)
    assert (finding.table, finding.gaming_day, finding.found_by) == (forgotten["table"], day, "dealers")
    assert "Dealer D1 came in at table BB1" in finding.message and "within 8 hours" in finding.message
    assert rotations_overdue_record(day=day) == 1  # once per rotation
    assert RuleViolation.objects.filter(code="dealer_rotation_overdue").count() == 1

    dealer_rotate(table=forgotten["table"], dealer=dealer_create(code="D2", name="Ben"), started_at=at(2))
    dealer_rotate(table=forgotten["table"], dealer=None, started_at=at(3))  # Ben went out, nobody came in
    assert rotations_overdue_record(day=day) == 0
    assert not RuleViolation.objects.filter(code="dealer_rotation_overdue", cleared_at__isnull=True).exists()


def test_a_rotation_ended_in_time_is_no_finding(forgotten):
    dealer_rotate(table=forgotten["table"], dealer=None, started_at=at(7))
    assert rotations_overdue_record(day=gaming_day_for(at(8))) == 0
    assert not RuleViolation.objects.filter(code="dealer_rotation_overdue").exists()


def test_machine_faults_are_not_the_dealers_errors(forgotten):
    """A card the shoe cannot hold and a replayed shoe are the reader's and the feed's: apart in the
    figures, and not counted by dealer_error_rate; a mispay is the dealer's."""
    coup = forgotten["shoe"].coups.get(number=1)
    for code in ("card_over_capacity", "shoe_sequence_repeat", "payout_mismatch"):
        violation_record(
            finding=violation(code, f"{code} here"),
            fingerprint=f"test:{code}",
            table=forgotten["table"],
            shoe=coup.shoe,
            coup=coup,
            gaming_day=coup.gaming_day,
            found_by="test",
        )
    (figures,) = dealer_statistics(first_day=coup.gaming_day, last_day=coup.gaming_day)
    assert dict(figures.errors) == {"payout_mismatch": 1}
    assert figures.device_faults == 2
    (day,) = dealer_days(day=coup.gaming_day, codes=DEALER_ERROR_CODES)
    assert [code for _, _, _, code in day.errors] == ["payout_mismatch"]
    (every_code,) = dealer_days(day=coup.gaming_day, codes=tuple(CODE_FAULT))
    assert [code for _, _, _, code in every_code.errors] == ["payout_mismatch"]


def test_the_create_dealer_command_adds_one_and_refuses_a_taken_code():
    out, err = io.StringIO(), io.StringIO()
    call_command("create_dealer", "--code", "D042", "--name", "Ana Lima", stdout=out, stderr=err)
    assert out.getvalue() == "D042\n"
    assert list(Dealer.objects.values_list("code", "name")) == [("D042", "Ana Lima")]
    with pytest.raises(CommandError, match="code"):
        call_command("create_dealer", "--code", "D042", "--name", "Other", stdout=out, stderr=err)
    assert Dealer.objects.count() == 1


def test_a_dealer_is_added_from_the_admin(admin_client):
    response = admin_client.post(reverse("admin:dealers_dealer_add"), {"code": "D7", "name": "Ben Ito"})
    assert response.status_code == 302
    assert list(Dealer.objects.values_list("code", "name")) == [("D7", "Ben Ito")]
