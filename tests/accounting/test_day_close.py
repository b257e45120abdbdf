"""The gaming-day close: refused (naming why) until every shoe is closed and reconciled, every
variance explained and every table's figures recorded; a closed day is locked, later changes are
adjustments (listed in the master game report, and monthly above the threshold); close and re-open
are kept as events (who, when, why)."""

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import Adjustment, GamingDayEvent, HoldFlag, InventoryCount, Slip
from pit.accounting.selectors import day_is_closed
from pit.accounting.services import (
    adjustment_record,
    drop_record,
    gaming_day_close,
    gaming_day_reopen,
    hold_finding_write,
    inventory_record,
    slip_issue,
    slip_receive,
    slip_request,
)
from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_acknowledge
from pit.core.errors import Conflict
from pit.ledger.models import Reconciliation
from pit.ledger.services import reconciliation_explain
from pit.reports.accounting import ADJUSTMENTS, MASTER_GAME
from pit.reports.definitions import ReportFilters, report_lines
from pit.shoes.services import shoe_close
from tests import factories
from tests.accounting.conftest import DAY, day_of_play

pytestmark = pytest.mark.django_db


@pytest.fixture
def day(pit, django_capture_on_commit_callbacks):
    """BB1 dealt one coup on DAY (Banker 100 wins: $5 commission owed at seat 1), shoe still dealing."""
    with django_capture_on_commit_callbacks(execute=True):
        pit.shoe = factories.shoe(pit.bb1)
        noon = dt.datetime.combine(DAY, dt.time(12), tzinfo=dt.UTC)
        factories.coup(
            pit.shoe, 1, ["2H", "KD"], ["8C", "KS"], dealt_at=noon, wagers=[factories.wager(1, "banker", "100")]
        )
    return pit


def close_shoe(pit, counted, capture):
    with capture(execute=True):
        shoe_close(shoe=pit.shoe, box_counts=[(1, Decimal(counted))])


def test_close_is_refused_naming_every_reason_then_goes_through(day, django_capture_on_commit_callbacks):
    inventory_record(
        table=day.mb1,
        gaming_day=DAY,
        kind="opener",
        chips={"10000": 5},
        dealer=day.dealer,
        pit_boss=day.boss,
        secrets=day.secrets,
        actor=day.actor,
    )
    slip_request(
        kind="fill", number="F-9", table=day.mb1, gaming_day=DAY, reason="low", chips={"10000": 1}, actor=day.actor
    )
    with pytest.raises(ValidationError) as error:
        gaming_day_close(gaming_day=DAY, user=day.accountant)
    assert error.value.message_dict == {
        "gaming_day": [
            "Shoe " + str(day.shoe) + " is still dealing.",
            "Table BB1 has no opener, closer, drop recorded for every shift.",
            "Table MB1 has no closer, drop recorded for every shift.",
            "Fill F-9 MB1 was never received at the table.",
        ]
    }
    close_shoe(day, "4.00", django_capture_on_commit_callbacks)  # a dollar short: a variance
    with pytest.raises(ValidationError) as error:
        gaming_day_close(gaming_day=DAY, user=day.accountant)
    assert error.value.message_dict["gaming_day"][0] == (
        f"The commission box variance of shoe {day.shoe} is not explained."
    )
    assert not GamingDayEvent.objects.exists()

    reconciliation_explain(reconciliation=Reconciliation.objects.get(), user=day.accountant, note="dealer short")
    slip = Slip.objects.get(number="F-9")
    slip_issue(slip=slip, chips={"10000": 1}, actor=day.cage_actor)
    slip_receive(slip=slip, chips={"10000": 1}, actor=day.table_actor)
    inventory_record(
        table=day.mb1,
        gaming_day=DAY,
        kind="closer",
        chips={"10000": 6},
        dealer=day.dealer,
        pit_boss=day.boss,
        secrets=day.secrets,
        actor=day.actor,
    )
    drop_record(table=day.mb1, gaming_day=DAY, cash={}, actor=day.actor)
    day_of_play(day, day.bb1, DAY, opener=50, closer=51, drop=0)
    HoldFlag.objects.create(
        table=day.bb1,
        gaming_day=DAY,
        rule="points 3",
        win_minor=10000,
        drop_minor=1,
        hold_percent=1,
        low_percent=2,
        high_percent=3,
        currency="USD",
    )
    # BB1's statutory win ($100.00) is not what its wagers won (-$95.00): a pit boss reviews it first.
    variance = RuleViolation.objects.get(code="win_reconciliation_variance")
    with pytest.raises(ValidationError) as error:
        gaming_day_close(gaming_day=DAY, user=day.accountant)
    assert error.value.message_dict == {
        "gaming_day": [
            f"The statutory win of BB1 differs from its wagers (violation {variance.pk}) "
            "and awaits a pit boss's review.",
            "The win-to-drop of BB1 (1.00 %) awaits a finding.",
        ]
    }
    violation_acknowledge(violation=variance, user=day.boss, note="a payout made short; dealer retrained")
    hold_finding_write(flag=HoldFlag.objects.get(), text="checked", user=day.accountant)

    event = gaming_day_close(gaming_day=DAY, user=day.accountant, note="all counted")
    assert (event.action, event.by, event.note) == ("closed", day.accountant, "all counted")
    assert day_is_closed(DAY)
    with pytest.raises(Conflict):
        gaming_day_close(gaming_day=DAY, user=day.accountant)
    assert GamingDayEvent.objects.count() == 1


@pytest.fixture
def closed(pit):
    day_of_play(pit, pit.bb1, DAY, opener=50, closer=40, fills=[20], drop=30)  # win $0
    gaming_day_close(gaming_day=DAY, user=pit.accountant)
    return pit


def test_a_closed_day_is_locked(closed):
    with pytest.raises(Conflict) as error:
        inventory_record(
            table=closed.mb1,
            gaming_day=DAY,
            kind="opener",
            chips={"10000": 5},
            dealer=closed.dealer,
            pit_boss=closed.boss,
            secrets=closed.secrets,
            actor=closed.actor,
        )
    assert error.value.message.startswith("Gaming day 2026-11-20 is closed: its records are locked.")
    with pytest.raises(Conflict):
        slip_request(
            kind="fill",
            number="F-late",
            table=closed.bb1,
            gaming_day=DAY,
            reason="x",
            chips={"10000": 1},
            actor=closed.actor,
        )
    # The next day is open.
    inventory_record(
        table=closed.bb1,
        gaming_day=DAY + dt.timedelta(days=1),
        kind="opener",
        chips={"10000": 40},
        dealer=closed.dealer,
        pit_boss=closed.boss,
        secrets=closed.secrets,
        actor=closed.actor,
    )
    assert InventoryCount.objects.filter(table=closed.mb1).count() == 0
    assert not Slip.objects.filter(number="F-late").exists()


def test_adjustments_change_the_win_and_are_listed(closed, settings):
    adjustment_record(
        table=closed.bb1,
        gaming_day=DAY,
        figure="drop",
        amount_minor=250000,
        reason="a drop box found in the count room",
        actor=closed.actor,
    )
    adjustment_record(
        table=closed.bb1,
        gaming_day=DAY,
        figure="fills",
        amount_minor=10000,
        reason="fill slip F-3 keyed late",
        actor=closed.actor,
    )
    row = next(line.values for line in report_lines(MASTER_GAME, ReportFilters(date_from=DAY, date_to=DAY)))
    # Win: (3,000 + 2,500) + 4,000 - 5,000 - (2,000 + 100) = 2,400; the adjustments move it by 2,400.
    assert (row["drop"], row["fills"], row["win"], row["adjustments"]) == (
        Decimal("5500.00"),
        Decimal("2100.00"),
        Decimal("2400.00"),
        Decimal("2400.00"),
    )
    assert row["adjustment_notes"] == (
        "drop +2500.00: a drop box found in the count room (user boss); fills +100.00: fill slip F-3 keyed late "
        "(user boss)"
    )
    # The monthly report lists only those of at least $2,000.
    listed = [line.values for line in report_lines(ADJUSTMENTS, ReportFilters(date_from=DAY, date_to=DAY))]
    assert [(line["month"], line.get("table"), line["amount"]) for line in listed] == [
        ("2026-11", "BB1", Decimal("2500.00")),
        ("2026-11", None, Decimal("2500.00")),
        (None, None, Decimal("2500.00")),
    ]


def test_bad_adjustments_write_nothing(closed, pit):
    for kwargs, field in (({"amount_minor": 0}, "amount"), ({"reason": " "}, "reason"), ({"figure": "x"}, "figure")):
        values = {"figure": "drop", "amount_minor": 100, "reason": "r", **kwargs}
        with pytest.raises(ValidationError) as error:
            adjustment_record(table=pit.bb1, gaming_day=DAY, actor=pit.actor, **values)
        assert list(error.value.message_dict) == [field]
    with pytest.raises(Conflict):  # an open day takes the record itself, not an adjustment
        adjustment_record(
            table=pit.bb1,
            gaming_day=DAY + dt.timedelta(days=1),
            figure="drop",
            amount_minor=100,
            reason="r",
            actor=pit.actor,
        )
    assert not Adjustment.objects.exists()


def test_reopen_needs_a_reason_and_is_kept(closed):
    with pytest.raises(ValidationError):
        gaming_day_reopen(gaming_day=DAY, user=closed.accountant, note="")
    gaming_day_reopen(gaming_day=DAY, user=closed.accountant, note="late drop box")
    assert not day_is_closed(DAY)
    with pytest.raises(Conflict):
        gaming_day_reopen(gaming_day=DAY, user=closed.accountant, note="again")
    slip_request(
        kind="fill",
        number="F-late",
        table=closed.bb1,
        gaming_day=DAY,
        reason="x",
        chips={"10000": 1},
        actor=closed.actor,
    )
    assert list(GamingDayEvent.objects.order_by("id").values_list("action", "by__username", "note")) == [
        ("closed", "accountant", ""),
        ("reopened", "accountant", "late drop box"),
    ]
