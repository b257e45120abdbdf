"""Celery tasks of the patrons' cash: the day's check (worksheets and patterns), kept current."""

import datetime as dt

from pit.cash.services import cash_check_day, cash_deadlines_check
from pit.core.gaming_day import current_gaming_day
from pit.core.tasks import pit_task


@pit_task("cash.cash_check_days")
def cash_check_days() -> dict[str, dict[str, int]]:
    """Beat, every 5 minutes: the current and the previous gaming day checked again (a transaction
    recorded late lands on its own day), then every open finding's filing deadline (its alarm when
    near or passed); safe to run twice."""
    today = current_gaming_day()
    counts = {day.isoformat(): cash_check_day(day=day) for day in (today - dt.timedelta(days=1), today)}
    counts["deadlines"] = {"alarms": cash_deadlines_check(today=today)}
    return counts
