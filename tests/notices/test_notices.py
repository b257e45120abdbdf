"""Notices to surveillance (acknowledged in time, or a finding) and to the regulator (filed by the
deadline, alarmed before it passes)."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from pit import game
from pit.accounting.services import inventory_record, slip_issue, slip_receive, slip_request
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record
from pit.notices.models import NotificationKind, RegulatorNotice, SurveillanceNotification
from pit.notices.services import (
    drop_notify,
    notices_gather,
    regulator_notice_file,
    surveillance_acknowledge,
)
from pit.protection.selectors import alarms_unreviewed
from tests.accounting.conftest import DAY, TRAY

pytestmark = pytest.mark.django_db


def findings(code):
    return RuleViolation.objects.filter(code=code, cleared_at__isnull=True)


def test_a_large_fill_and_a_live_alarm_reach_surveillance(pit, settings):
    settings.PIT_SURVEILLANCE_LARGE_FILL = "1000"
    small = slip_request(
        kind="fill", number="F1", table=pit.bb1, gaming_day=DAY, reason="low", chips={"10000": 9}, actor=pit.actor
    )
    large = slip_request(
        kind="fill", number="F2", table=pit.bb1, gaming_day=DAY, reason="low", chips={"10000": 10}, actor=pit.actor
    )
    alarm = violation_record(
        finding=game.violation("stale_feed", "silent"),
        fingerprint="test:stale",
        table=pit.bb1,
        gaming_day=DAY,
        found_by="test",
    )
    now = timezone.now()
    assert notices_gather(now=now)["notifications"] == 2
    made = {n.source: n for n in SurveillanceNotification.objects.all()}
    assert set(made) == {f"fill:{large.pk}", f"alarm:{alarm.pk}"}
    assert f"fill:{small.pk}" not in made
    assert made[f"alarm:{alarm.pk}"].kind == NotificationKind.ALARM
    assert made[f"alarm:{alarm.pk}"].due_by == now + dt.timedelta(minutes=15)
    assert notices_gather(now=now)["notifications"] == 0  # once


def test_unacknowledged_in_time_is_a_finding(pit):
    now = timezone.now()
    on_time = drop_notify(table=pit.bb1, gaming_day=DAY, shift=1, at=now)
    late = drop_notify(table=pit.mb1, gaming_day=DAY, shift=1, at=now)
    assert drop_notify(table=pit.bb1, gaming_day=DAY, shift=1, at=now) == on_time
    surveillance_acknowledge(notification=on_time, user=pit.accountant, at=now + dt.timedelta(minutes=10))
    notices_gather(now=now + dt.timedelta(minutes=14))
    assert not findings("surveillance_unacknowledged").exists()
    notices_gather(now=now + dt.timedelta(minutes=16))
    assert list(findings("surveillance_unacknowledged").values_list("fingerprint", flat=True)) == [
        f"surveillance_late:{late.pk}"
    ]
    with pytest.raises(ValidationError):
        surveillance_acknowledge(notification=late, user=None)


def _discrepancy(pit, closer_total_chips, opener_chips):
    day_before = DAY - dt.timedelta(days=1)
    inventory_record(
        table=pit.bb1,
        gaming_day=day_before,
        kind="closer",
        chips=closer_total_chips,
        dealer=pit.dealer,
        pit_boss=pit.boss,
        actor=pit.actor,
        secrets=pit.secrets,
    )
    return inventory_record(
        table=pit.bb1,
        gaming_day=DAY,
        kind="opener",
        chips=opener_chips,
        dealer=pit.dealer,
        pit_boss=pit.boss,
        actor=pit.actor,
        secrets=pit.secrets,
    )


def test_a_discrepancy_over_the_threshold_is_owed_to_the_regulator(pit, settings):
    settings.PIT_JURISDICTION = "us-wa"
    opener = _discrepancy(pit, TRAY, {**TRAY, "10000": TRAY["10000"] - 3})  # $300 short
    now = timezone.now()
    assert notices_gather(now=now)["regulator_notices"] == 1
    notice = RegulatorNotice.objects.get()
    assert (notice.rule_code, notice.amount_minor, notice.gaming_day) == ("wa_opener_closer", 30000, DAY)
    assert notice.due_at == opener.recorded_at + dt.timedelta(hours=24)
    assert not alarms_unreviewed().filter(code__startswith="regulator_").exists()

    notices_gather(now=notice.due_at - dt.timedelta(hours=3))  # within the 4 hours' warning
    assert list(alarms_unreviewed().values_list("code", flat=True)) == ["regulator_notice_due"]
    with pytest.raises(ValidationError):
        regulator_notice_file(notice=notice, reference=" ", user=pit.accountant)
    regulator_notice_file(notice=notice, reference="WSGC-2026-118", user=pit.accountant)
    assert not findings("regulator_notice_due").exists()
    notices_gather(now=notice.due_at + dt.timedelta(hours=1))
    assert not findings("regulator_notice_overdue").exists()  # filed in time


def test_an_unfiled_notice_past_its_deadline_is_overdue(pit, settings):
    settings.PIT_JURISDICTION = "us-wa"
    _discrepancy(pit, TRAY, {**TRAY, "10000": TRAY["10000"] - 3})
    notices_gather(now=timezone.now())
    notice = RegulatorNotice.objects.get()
    notices_gather(now=notice.due_at + dt.timedelta(minutes=1))
    assert list(alarms_unreviewed().values_list("code", flat=True)) == ["regulator_notice_overdue"]


def test_a_discrepancy_at_or_under_the_threshold_is_not_owed(pit, settings):
    settings.PIT_JURISDICTION = "us-wa"
    _discrepancy(pit, TRAY, {**TRAY, "10000": TRAY["10000"] - 2})  # $200: not over
    notices_gather(now=timezone.now())
    assert not RegulatorNotice.objects.exists()
    settings.PIT_JURISDICTION = "house"
    assert notices_gather(now=timezone.now())["regulator_notices"] == 0


def test_a_slip_counted_short_over_the_threshold_is_owed(pit, settings):
    settings.PIT_JURISDICTION = "us-wa"
    slip = slip_request(
        kind="fill", number="F9", table=pit.bb1, gaming_day=DAY, reason="low", chips={"10000": 10}, actor=pit.actor
    )
    slip_issue(slip=slip, chips={"10000": 10}, actor=pit.cage_actor)
    slip_receive(slip=slip, chips={"10000": 7}, actor=pit.table_actor)
    notices_gather(now=timezone.now())
    assert list(RegulatorNotice.objects.values_list("rule_code", "amount_minor")) == [("wa_slip", 30000)]
