"""Game protection, item 5: a dealing shoe gone silent (stale_feed) and more coups an hour than a
dealer can deal (coup_rate_high)."""

import datetime as dt
import random

import pytest
from django.utils import timezone

from pit import game
from pit.compliance.checks import coups_check
from pit.compliance.models import RuleViolation
from pit.protection.services import stale_feeds_check
from pit.protection.tasks import stale_feeds_check_task
from pit.shoes.models import Shoe
from pit.shoes.services import shoe_close
from tests import factories

pytestmark = pytest.mark.django_db


def coups(seed, count):
    shoe = game.new_shoe(8, random.Random(seed))
    return [([c.code for c in k.player], [c.code for c in k.banker]) for k in (shoe.deal_coup() for _ in range(count))]


def found(code):
    return list(RuleViolation.objects.filter(code=code).order_by("pk"))


def test_a_silent_shoe_is_flagged_once_per_silence():
    shoe = factories.shoe(factories.table("BB1"))
    ((player, banker),) = coups(1, 1)
    first = factories.coup(shoe, 1, player, banker)
    assert stale_feeds_check(now=first.recorded_at + dt.timedelta(minutes=10)) == 0
    assert found("stale_feed") == []

    later = first.recorded_at + dt.timedelta(minutes=11)
    assert stale_feeds_check(now=later) == 1
    assert stale_feeds_check(now=later + dt.timedelta(minutes=5)) == 1  # still silent: no second finding
    [violation] = found("stale_feed")
    assert (violation.table.code, violation.shoe_id, violation.coup_id, violation.severity) == (
        "BB1",
        shoe.pk,
        first.pk,
        "medium",
    )
    assert violation.fingerprint == f"stale_feed:shoe{shoe.pk}:after{first.pk}"
    assert violation.message.startswith("An open table's dealing shoe has sent no coup for 11 minutes (since coup 1)")

    # The reader comes back, then goes silent again: a new silence, a new finding.
    ((player, banker),) = coups(2, 1)
    second = factories.coup(shoe, 2, player, banker)
    assert stale_feeds_check(now=second.recorded_at + dt.timedelta(minutes=1)) == 0
    assert stale_feeds_check(now=second.recorded_at + dt.timedelta(minutes=30)) == 1
    assert [v.coup_id for v in found("stale_feed")] == [first.pk, second.pk]


def test_a_shoe_that_never_sent_a_coup_counts_from_its_start_and_a_closed_shoe_not_at_all():
    shoe = factories.shoe(factories.table("BB1"))
    closed = factories.shoe(factories.table("BB2"))
    shoe_close(shoe=closed, box_counts=[])
    assert stale_feeds_check(now=timezone.now() + dt.timedelta(minutes=60)) == 1
    [violation] = found("stale_feed")
    assert violation.shoe_id == shoe.pk and violation.coup_id is None
    assert violation.fingerprint == f"stale_feed:shoe{shoe.pk}:afterstart"
    assert Shoe.objects.get(pk=closed.pk).status == "closed"


def test_the_beat_task_runs_the_check():
    factories.shoe(factories.table("BB1"))
    assert stale_feeds_check_task.apply().get() == 0  # just started: not silent


@pytest.mark.parametrize(("spacing_minutes", "expected"), [(1, 1), (13, 0)])
def test_coup_rate_above_the_maximum(settings, spacing_minutes, expected):
    settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR = 5
    shoe = factories.shoe(factories.table("BB1"))
    start = (timezone.now() - dt.timedelta(hours=3)).replace(minute=0, second=0, microsecond=0)  # one clock hour
    recorded = [
        factories.coup(shoe, number, player, banker, dealt_at=start + dt.timedelta(minutes=spacing_minutes * number))
        for number, (player, banker) in enumerate(coups(3, 8), start=1)
    ]
    coups_check(coup_ids=[coup.pk for coup in recorded])
    coups_check(coup_ids=[coup.pk for coup in recorded])  # again: nothing more
    violations = found("coup_rate_high")
    assert len(violations) == expected
    if expected:
        assert violations[0].coup_id == recorded[5].pk  # the sixth coup within the hour
        assert violations[0].message.startswith("6 coups dealt at this table within one hour, more than the 5")
