"""Derived checks follow their inputs: a void, a correction or a late coup re-runs the win
reconciliation of its table-day through the outbox, and the day close re-checks everything before it
locks (pit.core.derived)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import GamingDayEvent
from pit.accounting.services import gaming_day_close, inventory_record
from pit.compliance.models import RuleViolation
from pit.core.models import OutboxMessage
from pit.core.queues import WIN_RECHECK_TASK
from pit.ledger.models import ReconciliationSupplement
from pit.shoes.services import coup_record, coup_void, shoe_close
from pit.shoes.services.values import CoupInput
from tests import factories
from tests.accounting.conftest import DAY
from tests.shoes import hands

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
    from pit.accounting.services import drop_record  # noqa: PLC0415 - beside the counts it completes

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
