"""The chip tray: openers and closers per table and period, two signers, insert-only, and the chain
(the closer of one period is the opener of the next; a difference is a violation, recorded once)."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import InventoryCount
from pit.accounting.services import chips_normalize, inventory_record
from pit.compliance.models import RuleViolation
from pit.core.errors import Conflict
from tests.accounting.conftest import DAY, TRAY

pytestmark = pytest.mark.django_db


def count(pit, kind, chips=TRAY, day=DAY, shift=1, table=None):
    return inventory_record(
        table=table or pit.bb1,
        gaming_day=day,
        shift=shift,
        kind=kind,
        chips=chips,
        dealer=pit.dealer,
        pit_boss=pit.boss,
        secrets=pit.secrets,
        actor=pit.actor,
    )


def test_chips_normalize_totals_by_denomination():
    assert chips_normalize({"10000": 3, 2500: 4, "500": 0}) == ({"2500": 4, "10000": 3}, 40000)
    for bad, message in (
        ({"abc": 1}, "'abc' is not a denomination in minor units."),
        ({"-5": 1}, "Denomination -5 must be positive and at most 1000000000."),
        ({"10000000000": 1}, "Denomination 10000000000 must be positive and at most 1000000000."),
        ({"500": -1}, "Pieces of 500 must be a whole number from 0 to 10000000."),
        ({"500": 1.5}, "Pieces of 500 must be a whole number from 0 to 10000000."),
        ([1, 2], 'Give the pieces counted per denomination, e.g. {"2500": 40}.'),
    ):
        with pytest.raises(ValidationError) as error:
            chips_normalize(bad)
        assert error.value.message_dict == {"chips": [message]}


def test_opener_and_closer_are_recorded_with_total_and_signers(pit):
    opener = count(pit, "opener")
    assert (opener.total_minor, opener.chips, opener.currency) == (900000, TRAY, "USD")
    assert (opener.dealer, opener.pit_boss, opener.recorded_by_user) == (pit.dealer, pit.boss, pit.boss)
    # The same count posted again is the same fact; other chips for the same period are refused.
    assert count(pit, "opener").pk == opener.pk
    with pytest.raises(Conflict):
        count(pit, "opener", chips={"2500": 41})
    assert InventoryCount.objects.count() == 1


def test_two_different_signers_are_required(pit):
    with pytest.raises(ValidationError) as error:
        inventory_record(
            table=pit.bb1,
            gaming_day=DAY,
            kind="opener",
            chips=TRAY,
            dealer=pit.boss,
            pit_boss=pit.boss,
            secrets=pit.secrets,
            actor=pit.actor,
        )
    assert error.value.message_dict == {"pit_boss": ["The dealer and the pit boss must be two different people."]}
    assert not InventoryCount.objects.exists()


def test_shift_outside_the_configured_shifts_is_refused(pit, settings):
    with pytest.raises(ValidationError) as error:
        count(pit, "opener", shift=2)
    assert error.value.message_dict == {"shift": ["Shift must be from 1 to 1 (24 h shifts)."]}
    settings.PIT_ACCOUNTING_SHIFT_HOURS = 8
    assert count(pit, "opener", shift=3).shift == 3
    with pytest.raises(ValidationError):
        count(pit, "opener", shift=4)
    assert InventoryCount.objects.count() == 1


def test_closer_equal_to_next_opener_raises_nothing(pit):
    count(pit, "opener")
    count(pit, "closer", chips={"2500": 20, "10000": 30, "50000": 10})
    count(pit, "opener", chips={"2500": 20, "10000": 30, "50000": 10}, day=DAY + dt.timedelta(days=1))
    assert not RuleViolation.objects.exists()


def test_opener_differing_from_previous_closer_is_a_violation_once(pit):
    count(pit, "closer", chips={"2500": 20, "10000": 30})
    # The next period the table opens is two days later: that opener must match this closer.
    opener = count(pit, "opener", chips={"2500": 18, "10000": 30}, day=DAY + dt.timedelta(days=2))
    count(pit, "opener", chips={"2500": 18, "10000": 30}, day=DAY + dt.timedelta(days=2))
    violation = RuleViolation.objects.get()
    assert (violation.code, violation.severity, violation.table, violation.gaming_day) == (
        "inventory_chain_break",
        "high",
        pit.bb1,
        DAY + dt.timedelta(days=2),
    )
    assert violation.message == (
        "The opener of BB1 for 2026-11-22 shift 1 ($3,450.00) differs from the closer of 2026-11-20 shift 1 "
        "($3,500.00): $25.00 x 18 instead of 20."
    )
    assert violation.fingerprint.startswith(f"inventory_chain:{opener.pk}:")
    # Another table's chain is its own.
    count(pit, "opener", chips={"2500": 1}, table=pit.mb1, day=DAY + dt.timedelta(days=2))
    assert RuleViolation.objects.count() == 1


def test_closer_keyed_after_the_next_opener_is_checked_too(pit, settings):
    settings.PIT_ACCOUNTING_SHIFT_HOURS = 8
    count(pit, "opener", chips={"2500": 10}, shift=2)
    count(pit, "closer", chips={"2500": 12}, shift=1)
    violation = RuleViolation.objects.get()
    assert violation.code == "inventory_chain_break"
    assert "$25.00 x 10 instead of 12" in violation.message
