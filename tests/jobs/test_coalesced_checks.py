"""Coup checks coalesced per shoe: the task of one posted coup checks the checks still owed for the
other coups of its shoe, and theirs then do nothing; nothing is lost (a check not yet at the broker, a
coup of another shoe, a check that fails), and a check runs on the urgent queue."""

from unittest import mock

import pytest
from django.utils import timezone

from pit.compliance import checks
from pit.compliance.models import RuleViolation
from pit.compliance.tasks import coups_verify
from pit.core.models import OutboxMessage
from pit.core.queues import URGENT, VERIFY_TASK, task_queue
from tests import factories
from tests.jobs.conftest import PLAYER_NATURAL

pytestmark = pytest.mark.django_db


def _misreported(shoe, number):
    """A coup whose reported winner is wrong: one finding, reported_winner_mismatch."""
    return factories.coup(shoe, number, *PLAYER_NATURAL, reported_winner="banker")


def _owed(coup, *, sent=True) -> OutboxMessage:
    """The check the coup's posting owes (the services stored it in the outbox), as the broker took it."""
    row = OutboxMessage.objects.get(task_name=VERIFY_TASK, args=[[coup.pk]])
    if sent:
        OutboxMessage.objects.filter(pk=row.pk).update(dispatched_at=timezone.now(), attempts=1)
    row.refresh_from_db()
    return row


def _checked() -> set[int]:
    return set(RuleViolation.objects.values_list("coup_id", flat=True))


@pytest.fixture
def other_shoe():
    return factories.shoe(factories.table("BB2"))


def test_one_task_checks_its_shoe_s_pending_coups_and_theirs_then_do_nothing(box_shoe, other_shoe):
    first, second, third = (_misreported(box_shoe, number) for number in (1, 2, 3))
    elsewhere = _misreported(other_shoe, 1)
    rows = [_owed(coup) for coup in (first, second, third, elsewhere)]

    with mock.patch.object(checks, "coups_check", wraps=checks.coups_check) as check:
        assert coups_verify.apply(args=[[first.pk]], task_id=rows[0].task_id).get() == 3
    check.assert_called_once_with(coup_ids={first.pk, second.pk, third.pk})
    assert _checked() == {first.pk, second.pk, third.pk}
    assert not OutboxMessage.objects.filter(pk=rows[0].pk).exists()  # done
    assert [list(OutboxMessage.objects.get(pk=row.pk).args) for row in rows[1:]] == [[[]], [[]], [[elsewhere.pk]]]

    # The second coup's own task, when the broker hands it out: nothing left, nothing checked.
    with mock.patch.object(checks, "coups_check") as check:
        assert coups_verify.apply(args=[[second.pk]], task_id=rows[1].task_id).get() == 0
    check.assert_not_called()
    assert not OutboxMessage.objects.filter(pk=rows[1].pk).exists()
    # The other shoe's coup is checked by its own task.
    assert coups_verify.apply(args=[[elsewhere.pk]], task_id=rows[3].task_id).get() == 1
    assert _checked() == {first.pk, second.pk, third.pk, elsewhere.pk}
    assert RuleViolation.objects.count() == 4  # once each


def test_a_check_not_yet_at_the_broker_is_left_to_its_own_task(box_shoe):
    """A coup posted while the shoe's task runs: its row is not marked sent yet (its send is on its
    way), so the running task leaves it, and its own task checks it."""
    first, late = _misreported(box_shoe, 1), _misreported(box_shoe, 2)
    row, late_row = _owed(first), _owed(late, sent=False)

    assert coups_verify.apply(args=[[first.pk]], task_id=row.task_id).get() == 1
    assert _checked() == {first.pk}
    assert OutboxMessage.objects.get(pk=late_row.pk).args == [[late.pk]]
    assert coups_verify.apply(args=[[late.pk]], task_id=late_row.task_id).get() == 1
    assert _checked() == {first.pk, late.pk}


def test_a_failed_check_gives_every_coup_back_to_its_own_task(box_shoe):
    first, second = _misreported(box_shoe, 1), _misreported(box_shoe, 2)
    row, second_row = _owed(first), _owed(second)

    with mock.patch.object(checks, "coups_check", side_effect=RuntimeError("boom")), pytest.raises(RuntimeError):
        checks.coups_check_owed(coup_ids=[first.pk], task_id=row.task_id)
    assert OutboxMessage.objects.get(pk=second_row.pk).args == [[second.pk]]
    assert RuleViolation.objects.count() == 0


def test_a_check_sent_without_the_outbox_checks_its_coups(box_shoe):
    coup = _misreported(box_shoe, 1)
    assert coups_verify.apply(args=[[coup.pk]]).get() == 1
    assert _checked() == {coup.pk}
    assert task_queue(VERIFY_TASK, [[coup.pk]]) == URGENT
