"""`manage.py rebuild_rollups`, the tasks' names, and what a refused write owes (nothing)."""

import datetime as dt
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import ManagementUtility, call_command

from pit.core.gaming_day import current_gaming_day
from pit.core.models import OutboxMessage
from pit.core.queues import REFRESH_TASK
from pit.ledger.models import CommissionEntry, EntryKind
from pit.ledger.services import commission_entry_reverse
from pit.rollups.models import RolledUpDay, TableDayRollup
from pit.rollups.selectors import day_segments
from tests import factories
from tests.factories import wager

DAY = current_gaming_day() - dt.timedelta(days=3)
BANKER_NATURAL = (["2H", "KD"], ["8C", "KS"])


def at(day: dt.date, hour: int) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour), tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["rebuild_rollups", "--from", "2026-02-30"],
            "manage.py rebuild_rollups: error: argument --from: '2026-02-30' is not a calendar date (YYYY-MM-DD)",
        ),
        (
            ["rebuild_rollups", "--from", "2026-03-01", "--to", "٢٠٢٦-03-02"],
            "manage.py rebuild_rollups: error: argument --to: '٢٠٢٦-03-02' is not a calendar date (YYYY-MM-DD)",
        ),
    ],
)
def test_a_bad_date_is_one_line_and_exit_status_2(argv, line, capsys, db):
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", *argv]).execute()
    out, err = capsys.readouterr()
    assert (exited.value.code, out, err) == (2, "", line + "\n")
    assert not RolledUpDay.objects.exists()


def test_rebuild_rollups_rolls_up_the_complete_days_of_the_range(db):
    shoe = factories.shoe(factories.table("BB1"), shuffled_at=at(DAY, 9))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY, 10))
    out = StringIO()
    call_command("rebuild_rollups", "--from", str(DAY - dt.timedelta(days=1)), "--to", str(DAY), stdout=out)
    assert out.getvalue().startswith(
        f"Rolled up 2 gaming days (1 table-days) from {DAY - dt.timedelta(days=1)} to {DAY} in "
    )
    rollup = TableDayRollup.objects.get()
    assert (rollup.gaming_day, rollup.coups, rollup.bets.get().handle_minor) == (DAY, 1, 10000)


def test_a_refused_reversal_owes_no_refresh(db):
    shoe = factories.shoe(factories.table("BB1"), shuffled_at=at(DAY, 9))
    factories.coup(shoe, 1, *BANKER_NATURAL, wagers=[wager(1, "banker", "100")], dealt_at=at(DAY, 10))
    OutboxMessage.objects.all().delete()
    accrual = CommissionEntry.objects.get(kind=EntryKind.ACCRUED)
    with pytest.raises(ValidationError):
        commission_entry_reverse(entry=accrual, note="   ")
    assert not OutboxMessage.objects.exists()
    commission_entry_reverse(entry=accrual, note="paid at the table")
    assert list(OutboxMessage.objects.values_list("task_name", "args")) == [(REFRESH_TASK, [shoe.pk])]
    with pytest.raises(ValidationError):
        commission_entry_reverse(entry=accrual, note="again")
    assert OutboxMessage.objects.count() == 1


def test_day_segments_cut_a_range_into_runs():
    days = [dt.date(2026, 1, day) for day in range(1, 8)]
    rolled_up = {days[1], days[2], days[5]}
    assert list(day_segments(date_from=days[0], date_to=days[6], rolled_up=rolled_up)) == [
        (False, days[0], days[0]),
        (True, days[1], days[2]),
        (False, days[3], days[4]),
        (True, days[5], days[5]),
        (False, days[6], days[6]),
    ]
