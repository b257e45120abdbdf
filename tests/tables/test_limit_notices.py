"""A limit change while players are seated takes the jurisdiction's notice; grandfathered seats are
judged by the minimum they sat down under: when their seat session began, or without one, when
their continuous play began."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from pit.compliance.checks import coups_check
from pit.compliance.models import RuleViolation
from pit.core.jurisdictions import PRESETS, jurisdiction
from pit.players.services import session_pause, session_resume, session_sit, session_stand
from pit.tables.models import LimitChange, TableLimit, TableLimitVersion
from pit.tables.services import table_limits_apply_due, table_limits_set
from tests import factories as f

pytestmark = pytest.mark.django_db

LIMITS = {"player": (Decimal("25"), Decimal("10000")), "banker": (Decimal("25"), Decimal("10000"))}
RAISED = {"player": (Decimal("100"), Decimal("10000")), "banker": (Decimal("100"), Decimal("10000"))}


def minimums(table):
    return {limit.bet: limit.minimum_minor for limit in TableLimit.objects.filter(table=table)}


def test_every_preset_cites_its_rules():
    for preset in PRESETS.values():
        assert preset.limit_notice_rule and preset.slip_series_rule
        for rule in preset.regulator_rules:
            assert rule.rule and rule.threshold > 0 and rule.deadline_hours > 0
    assert PRESETS["us-md"].limit_notice_minutes == 30
    assert PRESETS["us-oh"].grandfathering is True
    assert [(r.threshold, r.deadline_hours) for r in PRESETS["us-wa"].regulator_rules][0] == (Decimal("200"), 24)
    assert PRESETS["us-nj"].regulator_rules[0].threshold == Decimal("100")


def test_a_setting_overrides_the_preset(settings):
    settings.PIT_JURISDICTION = "us-md"
    settings.PIT_LIMIT_NOTICE_MINUTES = 45
    assert jurisdiction().limit_notice_minutes == 45
    assert jurisdiction().code == "us-md"


def test_raising_the_minimum_while_players_are_seated_waits_for_the_notice(settings):
    settings.PIT_JURISDICTION = "us-md"
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    now = timezone.now()
    f.coup(
        f.shoe(table),
        1,
        ["9S", "KH"],
        ["8D", "QC"],
        wagers=[f.wager(1, "player", "25")],
        dealt_at=now - dt.timedelta(minutes=5),
    )
    before = LimitChange.objects.count()
    # Earlier than the notice allows: refused, nothing written.
    with pytest.raises(ValidationError) as refused:
        table_limits_set(table=table, limits=RAISED, effective_from=now + dt.timedelta(minutes=10), now=now)
    assert "effective_from" in refused.value.message_dict
    assert LimitChange.objects.count() == before
    assert not TableLimitVersion.objects.filter(table=table, minimum_minor=10000).exists()

    table_limits_set(table=table, limits=RAISED, now=now)
    change = LimitChange.objects.filter(table=table).latest("announced_at")
    assert (change.tightens, change.players_seated, change.notice_minutes) == (True, True, 30)
    assert change.effective_from == now + dt.timedelta(minutes=30)
    assert minimums(table) == {"player": 2500, "banker": 2500}  # the old limits hold until then
    assert table_limits_apply_due(now=now + dt.timedelta(minutes=29)) == 0
    assert table_limits_apply_due(now=now + dt.timedelta(minutes=30)) == 1
    assert minimums(table) == {"player": 10000, "banker": 10000}
    assert table_limits_apply_due(now=now + dt.timedelta(minutes=31)) == 0  # safe to run twice


def test_no_notice_when_nobody_is_seated_or_the_limits_loosen(settings):
    settings.PIT_JURISDICTION = "us-md"
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    now = timezone.now()
    table_limits_set(table=table, limits=RAISED, now=now)  # nobody has played: at once
    assert minimums(table) == {"player": 10000, "banker": 10000}
    f.coup(f.shoe(table), 1, ["9S", "KH"], ["8D", "QC"], wagers=[f.wager(1, "player", "100")], dealt_at=now)
    later = now + dt.timedelta(minutes=1)
    table_limits_set(table=table, limits=LIMITS, now=later)  # lowering a minimum tightens nothing
    change = LimitChange.objects.filter(table=table).latest("announced_at")
    assert (change.tightens, change.players_seated, change.notice_minutes) == (False, True, 0)
    assert minimums(table) == {"player": 2500, "banker": 2500}


def _session(table, start, change_at, grandfathering, settings):
    """Seat 1 plays $25 every 5 minutes across a raise of the minimum to $100; seat 2 sits down after
    it; seat 3 played before it, left for 40 minutes and came back. Returns the under-minimum seats."""
    settings.PIT_JURISDICTION = "us-oh"
    settings.PIT_LIMIT_NOTICE_MINUTES = 0
    settings.PIT_LIMIT_GRANDFATHERING = grandfathering
    shoe = f.shoe(table)
    before = start - dt.timedelta(hours=1)  # the table was made now: its limits as they stood before play
    table_limits_set(table=table, limits=LIMITS, effective_from=before, now=before)
    table_limits_set(table=table, limits=RAISED, effective_from=change_at, now=change_at)
    coups = []
    for number in range(1, 13):
        at = start + dt.timedelta(minutes=5 * (number - 1))
        wagers = [f.wager(1, "player", "25")]
        if at > change_at:
            wagers.append(f.wager(2, "player", "25"))
        if at <= start + dt.timedelta(minutes=5) or at >= start + dt.timedelta(minutes=50):
            wagers.append(f.wager(3, "player", "25"))
        coups.append(f.coup(shoe, number, ["9S", "KH"], ["8D", "QC"], wagers=wagers, dealt_at=at))
    coups_check(coup_ids=[coup.pk for coup in coups])
    found = RuleViolation.objects.filter(code="wager_under_minimum", table=table, cleared_at__isnull=True)
    return sorted(set(found.values_list("seat", flat=True))), found.filter(seat=1).count()


def test_a_seated_player_keeps_the_minimum_they_sat_down_under(settings):
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    start = timezone.now() - dt.timedelta(hours=2)
    seats, seat_one = _session(table, start, start + dt.timedelta(minutes=22), True, settings)
    assert seats == [2, 3]
    assert seat_one == 0


def test_without_grandfathering_every_seat_is_under_the_new_minimum(settings):
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    start = timezone.now() - dt.timedelta(hours=2)
    seats, seat_one = _session(table, start, start + dt.timedelta(minutes=22), False, settings)
    assert seats == [1, 2, 3]
    assert seat_one == 7  # the coups dealt after 22 minutes: 25, 30 ... 55


def test_a_seat_session_says_when_its_player_sat_down(settings):
    """Seat 1's first player stands up after the raise and the next sits down at once: continuous
    play would keep the old minimum for both, the sessions keep it for the first only. Seat 3's
    40 minutes away were a break of its session: it keeps its seat and its minimum."""
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    start = timezone.now() - dt.timedelta(hours=2)
    minute = dt.timedelta(minutes=1)
    first = session_sit(table=table, seat=1, at=start - minute, description="man, grey suit")
    session_stand(session=first, at=start + 34 * minute)
    session_sit(table=table, seat=1, at=start + 34 * minute, description="woman, red scarf")
    third = session_sit(table=table, seat=3, at=start - minute, description="man, blue cap")
    session_pause(session=third, at=start + 6 * minute)
    session_resume(session=third, at=start + 49 * minute)
    seats, seat_one = _session(table, start, start + 22 * minute, True, settings)
    assert seats == [1, 2]
    assert seat_one == 5  # the second player's coups: dealt at 35, 40 ... 55 minutes


def test_a_player_seated_on_a_break_takes_notice_and_one_stood_up_does_not(settings):
    """No wager for an hour: by the play alone nobody is seated. A session on a break still holds
    its seat, so a raise waits for the notice; once it stood up, a raise is at once."""
    settings.PIT_JURISDICTION = "us-md"
    table = f.table("BB1", limits={"player": ("25", "10000"), "banker": ("25", "10000")})
    now = timezone.now()
    seated = session_sit(table=table, seat=2, at=now - dt.timedelta(hours=1), description="man, grey suit")
    session_pause(session=seated, at=now - dt.timedelta(minutes=50))
    table_limits_set(table=table, limits=RAISED, now=now)
    change = LimitChange.objects.filter(table=table).latest("announced_at")
    assert (change.players_seated, change.notice_minutes) == (True, 30)
    assert minimums(table) == {"player": 2500, "banker": 2500}
    session_stand(session=seated, at=now + dt.timedelta(minutes=1))
    later = now + dt.timedelta(minutes=2)
    table_limits_set(table=table, limits=LIMITS, now=later)
    table_limits_set(table=table, limits=RAISED, now=later + dt.timedelta(seconds=1))
    last = LimitChange.objects.filter(table=table).latest("announced_at")
    assert (last.players_seated, last.notice_minutes) == (False, 0)
