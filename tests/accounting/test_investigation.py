"""Win-to-drop investigation: the configurable rule (points from the table's base, or outside an
interval of its prior days), the table-days it flags (once), and the written findings."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import HoldFinding, HoldFlag
from pit.accounting.services import hold_finding_write, holds_investigate
from tests.accounting.conftest import DAY, day_of_play

pytestmark = pytest.mark.django_db


def before(days: int) -> dt.date:
    return DAY - dt.timedelta(days=days)


def hold_day(pit, day, percent: int):
    """A day of BB1 with a $10,000 drop and a win of `percent` % of it (in $100 chips)."""
    day_of_play(pit, pit.bb1, day, opener=100, closer=percent, drop=100)


def test_points_from_base(pit, settings):
    settings.PIT_HOLD_RULE, settings.PIT_HOLD_RULE_VALUE = "points", "3"
    hold_day(pit, before(3), 20)
    hold_day(pit, before(2), 20)
    assert not HoldFlag.objects.exists()  # the first day has no base; the second is on it
    hold_day(pit, before(1), 23)  # 3 points from 20: within
    hold_day(pit, DAY, 27)  # base over the three prior days: 63 / 300 = 21 %; 27 is 6 points off
    flag = HoldFlag.objects.get()
    assert (flag.table, flag.gaming_day, flag.hold_percent, flag.low_percent, flag.high_percent) == (
        pit.bb1,
        DAY,
        Decimal("27.0000"),
        Decimal("18.0000"),
        Decimal("24.0000"),
    )
    assert (flag.win_minor, flag.drop_minor, flag.rule) == (270000, 1000000, "points 3 over 365 prior days")
    assert holds_investigate(gaming_day=DAY) == 1
    assert HoldFlag.objects.count() == 1


def test_outside_the_prior_interval(pit, settings):
    settings.PIT_HOLD_RULE, settings.PIT_HOLD_RULE_VALUE = "interval", "95"
    for days, percent in ((3, 20), (2, 24), (1, 22)):
        hold_day(pit, before(days), percent)
    hold_day(pit, DAY, 26)  # mean 22, sd 2: 95 % is 22 +/- 1.959964 x 2 = 18.08 to 25.92
    flag = HoldFlag.objects.get()
    assert (flag.low_percent, flag.high_percent) == (Decimal("18.0801"), Decimal("25.9199"))


def test_interval_only_over_the_configured_prior_days(pit, settings):
    settings.PIT_HOLD_RULE, settings.PIT_HOLD_RULE_VALUE, settings.PIT_HOLD_RULE_PRIOR_DAYS = "interval", "95", 2
    hold_day(pit, before(3), 90)  # outside the two prior days: not in the base
    hold_day(pit, before(2), 20)
    hold_day(pit, before(1), 24)
    hold_day(pit, DAY, 25)  # mean 22, sd 2.83: 16.46 to 27.54
    assert not HoldFlag.objects.exists()


def test_findings_record_who_and_when(pit, settings):
    settings.PIT_HOLD_RULE_VALUE = "1"
    hold_day(pit, before(2), 20)
    hold_day(pit, before(1), 20)
    hold_day(pit, DAY, 40)
    flag = HoldFlag.objects.get()
    with pytest.raises(ValidationError) as error:
        hold_finding_write(flag=flag, text="  ", user=pit.accountant)
    assert error.value.message_dict == {"text": ["Write what the investigation found."]}
    text = "A player's big win on coup 40; surveillance reviewed."
    finding = hold_finding_write(flag=flag, text=text, user=pit.accountant)
    assert (finding.written_by, finding.text) == (pit.accountant, text)
    assert finding.written_at is not None
    assert HoldFinding.objects.count() == 1


def test_the_command_flags_a_range_under_the_rule_as_it_stands(pit, settings):
    from io import StringIO

    from django.core.management import CommandError, call_command

    for days, percent in ((3, 20), (2, 20), (1, 30)):
        hold_day(pit, before(days), percent)
    hold_day(pit, DAY, 23)  # the base over the three days before: 70 / 300 = 23.33 %
    assert HoldFlag.objects.count() == 1  # 30 % on the day before: 10 points off
    settings.PIT_HOLD_RULE_VALUE = "12"
    out = StringIO()
    call_command("investigate_holds", "--from", str(before(3)), "--to", str(DAY), stdout=out)
    assert out.getvalue() == "0 table-day(s) outside the rule from 2026-11-17 to 2026-11-20.\n"
    settings.PIT_HOLD_RULE_VALUE = "2"
    call_command("investigate_holds", "--from", str(before(3)), "--to", str(DAY), stdout=out)
    assert "1 table-day(s) outside the rule" in out.getvalue()
    assert sorted(HoldFlag.objects.values_list("gaming_day", "rule")) == [
        (before(1), "points 2 over 365 prior days"),
        (before(1), "points 3 over 365 prior days"),
    ]
    with pytest.raises(CommandError):
        call_command("investigate_holds", "--from", str(DAY), "--to", str(before(1)))
