"""One event is one alarm: a shoe's run of findings (one per coup) is one alarm with its count."""

import datetime as dt

import pytest

from pit import game
from pit.compliance.services import violation_record
from tests import factories

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 29)


def test_an_unshuffled_shoes_31_findings_are_one_alarm_with_its_count(table, pit_boss):
    shoe = factories.shoe(table)
    for number in range(1, 32):
        violation_record(
            finding=game.violation("new_deck_order_run", f"coup {number} follows a new deck's order"),
            fingerprint=f"run:{shoe.pk}:{number}",
            table=table,
            shoe=shoe,
            gaming_day=DAY,
            found_by="test",
        )
    stale = violation_record(
        finding=game.violation("stale_feed", "no coup for 20 minutes"),
        fingerprint="stale:1",
        table=table,
        gaming_day=DAY,
        found_by="test",
    )
    body = pit_boss.get("/api/v1/alarms/?table=BB1").json()
    assert body["count"] == 2
    silent, run = body["results"]  # the stale feed was found last
    assert (silent["id"], silent["count"]) == (stale.pk, 1)
    assert (run["code"], run["shoe"], run["count"], run["message"]) == (
        "new_deck_order_run",
        shoe.pk,
        31,
        "coup 31 follows a new deck's order",
    )
    assert run["first_found_at"] <= run["last_found_at"] == run["found_at"]
