"""Derived checks follow their inputs: a void, a correction or a late coup re-runs the win
reconciliation of its table-day through the outbox, and the day close re-checks everything before it
locks (pit.core.derived)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import GamingDayEvent
from pit.accounting.services import drop_record, gaming_day_close, inventory_record, win_reconcile
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_resolve
from pit.core.models import OutboxMessage
from pit.core.queues import WIN_RECHECK_TASK
from pit.ledger.models import CommissionEntry, Reconciliation, ReconciliationSupplement
from pit.ledger.services import shoe_reconcile
from pit.records.services import records_verify
from pit.rollups.services import rollups_shoe_refresh
from pit.shoes.services import coup_record, coup_void, shoe_close
from pit.shoes.services.values import CoupInput
from tests import factories
from tests.accounting.conftest import DAY
from tests.records.test_chain import tamper
from tests.shoes import hands


@pytest.fixture(autouse=True)
def _one_person_may_sign(settings):
    # What this module tests is not who signs: segregation of duties has its own tests
    # (tests/api/test_segregation_of_duties.py), so one test user may take every step here.
    settings.PIT_SEGREGATION_OF_DUTIES = False


pytestmark = pytest.mark.django_db
NOON = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)


@pytest.fixture
def checked(pit, django_capture_on_commit_callbacks):
    """BB1 on DAY: one coup (seat 1 Banker 100 wins: the wagers won -$95), the shoe closed with $5
    in the box, and a tray from $100 to $5 with no drop: a statutory win of -$95, as the wagers say."""
    with django_capture_on_commit_callbacks(execute=True):
        pit.shoe = factories.shoe(pit.bb1)
        pit.coup = factories.coup(
            pit.shoe, 1, *hands.BANKER_NATURAL, dealt_at=NOON, wagers=[factories.wager(1, "banker", "100")]
        )
        shoe_close(shoe=pit.shoe, box_counts=[(1, Decimal("5"))])
    for kind, chips in (("opener", {"10000": 1}), ("closer", {"500": 1})):
        inventory_record(
            table=pit.bb1,
            gaming_day=DAY,
            kind=kind,
            chips=chips,
            dealer=pit.dealer,
            pit_boss=pit.boss,
            actor=pit.actor,
        )
    drop_record(table=pit.bb1, gaming_day=DAY, cash={}, actor=pit.actor)
    assert not RuleViolation.objects.filter(code="win_reconciliation_variance").exists()
    return pit


def variances():
    return list(
        RuleViolation.objects.filter(code="win_reconciliation_variance").values_list("table__code", "gaming_day")
    )


def test_a_void_after_the_check_ran_raises_the_variance(checked, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        coup_void(coup=checked.coup, reason="misdeal")
    assert variances() == [("BB1", DAY)]
    assert RuleViolation.objects.get(code="win_reconciliation_variance").message == (
        "The statutory win of BB1 on 2026-11-20 is -$95.00; its recorded wagers won $0.00: $95.00 less in the "
        "tray and drop than the wagers account for."
    )


def test_a_late_coup_owes_the_recheck_of_its_table_day(checked, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        coup_record(
            shoe=checked.shoe,
            coup=CoupInput(number=2, player=["2H", "5D"], banker=["4C", "5S"], dealt_at=NOON, wagers=()),
        )
    owed = OutboxMessage.objects.filter(task_name=WIN_RECHECK_TASK).values_list("args", flat=True)
    assert list(owed) == [[checked.bb1.pk, "2026-11-20"]]


def test_the_close_rechecks_what_a_lost_task_left_unchecked(checked, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # the re-runs it owes are lost
        coup_void(coup=checked.coup, reason="misdeal")
    assert variances() == []
    with pytest.raises(ValidationError) as error:
        gaming_day_close(gaming_day=DAY, user=checked.accountant)
    variance = RuleViolation.objects.get(code="win_reconciliation_variance")
    box = RuleViolation.objects.get(code="box_variance")
    assert error.value.message_dict == {
        "gaming_day": [
            f"The commission box of shoe {checked.shoe} differs from its ledger at seat 1 since a supplement "
            f"(violation {box.pk}) and awaits a pit boss's review.",
            f"The statutory win of BB1 differs from its wagers (violation {variance.pk}) and awaits a pit boss's "
            "review.",
        ]
    }
    # What the re-check found is kept, though the close was refused.
    assert (box.shoe_id, ReconciliationSupplement.objects.get().variance_minor) == (checked.shoe.pk, 500)
    assert not GamingDayEvent.objects.exists()


def test_a_broken_chain_quarantines_its_shoe_until_a_person_clears_it(checked):
    """A forged accrual ($50 instead of $5) leaves seat 1 owing $45: a supplement would collect it, on
    top of the forgery, validly chained. Quarantined, nothing is derived from the shoe."""
    entry = CommissionEntry.objects.get(kind="accrued")
    tamper(f"UPDATE {CommissionEntry._meta.db_table} SET amount_minor = 5000 WHERE id = %s", [entry.pk])
    records_verify(first_day=DAY, last_day=DAY)
    broken = RuleViolation.objects.get(code="record_chain_broken")
    assert broken.message.endswith(
        "The shoe is quarantined: nothing is derived from it until a person resolves or dismisses this violation."
    )
    reconciliation = Reconciliation.objects.get()
    assert shoe_reconcile(shoe_id=checked.shoe.pk) == reconciliation
    assert win_reconcile(table=checked.bb1, gaming_day=DAY) is None
    assert rollups_shoe_refresh(shoe_id=checked.shoe.pk) == 0
    assert not ReconciliationSupplement.objects.exists()
    assert not CommissionEntry.objects.filter(collection_reason="supplement").exists()
    held = dict(RuleViolation.objects.filter(code="derivation_quarantined").values_list("found_by", "message"))
    because = (
        f"shoe {checked.shoe} is quarantined, its record chain is broken (violation {broken.pk}). Nothing is "
        "derived from it until a person resolves or dismisses that violation."
    )
    assert held == {
        "reconciliation": f"The supplement of the commission box of {checked.shoe} was not derived: {because}",
        "win_reconciliation": f"The win reconciliation of BB1 on {DAY} was not derived: {because}",
        "rollups": f"The rollups' refresh of {checked.shoe} was not derived: {because}",
    }
    with pytest.raises(ValidationError) as error:
        gaming_day_close(gaming_day=DAY, user=checked.accountant)
    assert (
        f"Shoe {checked.shoe} is quarantined: its record chain is broken (violation {broken.pk}) and awaits a "
        "person's review."
    ) in error.value.message_dict["gaming_day"]

    # A person clears it, with a note kept in the violation's review (who, when, why): derivation resumes.
    violation_resolve(violation=broken, user=checked.boss, note="accrual restored from the signed export")
    assert shoe_reconcile(shoe_id=checked.shoe.pk) == reconciliation
    assert ReconciliationSupplement.objects.get().change_minor == 4500
