"""Fills and credits: requested by the pit, issued by the cage, received at the table, each step
attributable and insert-only; other chips than requested, or a slip never received, is a violation."""

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import Slip, SlipStep
from pit.accounting.services import inventory_record, slip_issue, slip_receive, slip_request, slips_flag_unreceived
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.core.errors import Conflict
from tests.accounting.conftest import DAY, PASSWORD

pytestmark = pytest.mark.django_db

FILL = {"2500": 40, "10000": 20}  # $1,000 + $2,000


def request(pit, number="F-1001", kind="fill", chips=FILL, **kwargs):
    return slip_request(
        kind=kind,
        number=number,
        table=pit.bb1,
        gaming_day=DAY,
        reason="tray low on $25",
        chips=chips,
        actor=pit.actor,
        **kwargs,
    )


def test_a_fill_goes_through_request_issue_and_receipt(pit):
    slip = request(pit)
    cashier = Actor(user=pit.accountant)
    issued = slip_issue(slip=slip, chips=FILL, actor=cashier, signed_by=pit.accountant)
    received = slip_receive(
        slip=slip, chips=FILL, actor=pit.actor, signed_by=pit.dealer, secrets={"signed_by": PASSWORD}
    )
    assert (slip.total_minor, slip.currency, slip.recorded_by_user) == (300000, "USD", pit.boss)
    assert [(s.step, s.total_minor, s.recorded_by_user, s.signed_by) for s in (issued, received)] == [
        ("issued", 300000, pit.accountant, pit.accountant),
        ("received", 300000, pit.boss, pit.dealer),
    ]
    # Replays return the recorded facts; other chips for a recorded step are refused.
    assert request(pit).pk == slip.pk
    assert slip_receive(slip=slip, chips=FILL, actor=pit.table_actor).pk == received.pk
    with pytest.raises(Conflict):
        slip_receive(slip=slip, chips={"2500": 40}, actor=pit.table_actor)
    assert SlipStep.objects.count() == 2
    assert not RuleViolation.objects.exists()


def test_slip_number_reused_with_other_figures_is_a_conflict(pit):
    request(pit)
    with pytest.raises(Conflict):
        request(pit, chips={"2500": 1})
    # The same number on a credit is another slip.
    assert request(pit, kind="credit").kind == "credit"
    assert Slip.objects.count() == 2


def test_bad_requests_name_the_field_and_write_nothing(pit):
    for kwargs, field in (
        ({"number": " "}, "number"),
        ({"kind": "loan"}, "kind"),
        ({"chips": {}}, "chips"),
        ({"chips": {"2500": "x"}}, "chips"),
    ):
        with pytest.raises(ValidationError) as error:
            request(pit, **kwargs)
        assert list(error.value.message_dict) == [field]
    with pytest.raises(ValidationError) as error:
        slip_request(kind="fill", number="F-9", table=pit.bb1, gaming_day=DAY, reason="", chips=FILL, actor=pit.actor)
    assert list(error.value.message_dict) == ["reason"]
    assert not Slip.objects.exists()


def test_receipt_before_issue_is_refused(pit):
    slip = request(pit)
    with pytest.raises(Conflict):
        slip_receive(slip=slip, chips=FILL, actor=pit.table_actor)
    assert not SlipStep.objects.exists()


def test_short_fill_received_is_a_violation_once(pit):
    slip = request(pit)
    slip_issue(slip=slip, chips=FILL, actor=pit.cage_actor)
    slip_receive(slip=slip, chips={"2500": 36, "10000": 20}, actor=pit.table_actor)
    violation = RuleViolation.objects.get()
    assert (violation.code, violation.table, violation.gaming_day, violation.fingerprint) == (
        "slip_amount_mismatch",
        pit.bb1,
        DAY,
        f"slip_mismatch:{slip.pk}:received",
    )
    assert violation.message == (
        "Fill F-1001 BB1 was received with $2,900.00 against $3,000.00 requested: $25.00 x 36 instead of 40."
    )
    slip_receive(slip=slip, chips={"2500": 36, "10000": 20}, actor=pit.table_actor)
    assert RuleViolation.objects.count() == 1


def test_cage_issuing_other_chips_is_a_violation(pit):
    slip = request(pit, kind="credit", number="C-7")
    slip_issue(slip=slip, chips={"10000": 20}, actor=pit.cage_actor)
    assert RuleViolation.objects.get().fingerprint == f"slip_mismatch:{slip.pk}:issued"


def test_requested_never_received_is_flagged_at_the_closer_and_by_the_check(pit):
    unreceived = request(pit)
    slip_issue(slip=unreceived, chips=FILL, actor=pit.cage_actor)
    done = request(pit, number="F-1002")
    slip_issue(slip=done, chips=FILL, actor=pit.cage_actor)
    slip_receive(slip=done, chips=FILL, actor=pit.table_actor)
    inventory_record(
        table=pit.bb1,
        gaming_day=DAY,
        kind="closer",
        chips={"2500": 1},
        dealer=pit.dealer,
        pit_boss=pit.boss,
        secrets=pit.secrets,
        actor=pit.actor,
    )
    violation = RuleViolation.objects.get()
    assert (violation.code, violation.fingerprint) == ("slip_not_received", f"slip_not_received:{unreceived.pk}")
    assert violation.message == (
        "Fill F-1001 BB1 ($3,000.00, requested for 2026-11-20 shift 1) was never received at the table."
    )
    assert slips_flag_unreceived(gaming_day=DAY) == 1
    assert RuleViolation.objects.count() == 1
