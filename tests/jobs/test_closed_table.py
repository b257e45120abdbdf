"""Play at a closed table (issue 11 item 4): a table does not close under a dealing shoe, and a coup
recorded while its table was closed is stored and flagged `play_at_closed_table` by the per-coup
check and by the sweep, like every other rule."""

import datetime as dt

import pytest

from pit.compliance.checks import coups_check, coups_sweep
from pit.compliance.models import RuleViolation
from pit.core.errors import Conflict
from pit.shoes.services import shoe_close
from pit.tables.models import Table, TableEvent
from pit.tables.services import table_close, table_open
from tests import factories
from tests.api.conftest import counts, coup_body
from tests.jobs.conftest import PLAYER_NATURAL, findings

pytestmark = pytest.mark.django_db


def test_a_table_does_not_close_while_a_shoe_is_dealing(box_table, box_shoe):
    before = counts()
    with pytest.raises(Conflict) as caught:
        table_close(table=box_table)
    assert caught.value.message == (
        f"Table BB1 cannot close while shoe 1 (id {box_shoe.pk}) is still dealing; close the shoe with its "
        "commission box count first."
    )
    assert caught.value.details == {"shoe_id": box_shoe.pk, "sequence": 1}
    assert Table.objects.get(pk=box_table.pk).status == "open"
    assert counts() == before
    shoe_close(shoe=box_shoe, box_counts=[])
    assert table_close(table=box_table).status == "closed"


def test_the_api_answers_409_naming_the_shoe_and_writes_nothing(box_table, box_shoe):
    from tests.api.conftest import _device_client

    device = _device_client(box_table)
    before = counts()
    response = device.post("/api/v1/tables/BB1/close/", {}, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "status": 409,
        "code": "conflict",
        "message": f"Table BB1 cannot close while shoe 1 (id {box_shoe.pk}) is still dealing; close the shoe "
        "with its commission box count first.",
        "errors": {},
        "details": {"shoe_id": box_shoe.pk, "sequence": 1},
    }
    assert counts() == before


def test_a_coup_at_a_closed_table_is_stored_and_flagged_by_the_coup_check(
    box_table, django_capture_on_commit_callbacks
):
    from tests.api.conftest import _device_client

    first = factories.shoe(box_table)
    open_coup = factories.coup(first, 1, *PLAYER_NATURAL)
    shoe_close(shoe=first, box_counts=[])
    table_close(table=box_table)
    device = _device_client(box_table)
    second = device.post("/api/v1/tables/BB1/shoes/", {"cut_card_position": 300}, format="json").json()
    with django_capture_on_commit_callbacks(execute=True):
        response = device.post(f"/api/v1/shoes/{second['id']}/coups/", coup_body(1, wagers=[]), format="json")
    assert response.status_code == 201
    coup_id = response.json()["id"]
    assert findings(coup_id=coup_id) == [("play_at_closed_table", "Coup 1 was posted while table BB1 was closed.")]
    assert RuleViolation.objects.get(coup_id=coup_id).severity == "medium"
    # Checked again (the task runs twice, or a re-check): still one finding, and none on the coup
    # recorded while the table was open.
    assert coups_check(coup_ids=[coup_id, open_coup.pk]) == 1
    assert findings(coup_id=open_coup.pk) == []
    assert RuleViolation.objects.filter(code="play_at_closed_table").count() == 1
    # Open again: coups from now on are not flagged.
    table_open(table=box_table)
    later = factories.coup(Table.objects.get(pk=box_table.pk).shoes.get(pk=second["id"]), 2, *PLAYER_NATURAL)
    assert coups_check(coup_ids=[later.pk]) == 0


def test_the_sweep_finds_play_at_a_closed_table(box_table, box_shoe):
    shoe_close(shoe=box_shoe, box_counts=[])
    table_close(table=box_table)
    shoe = factories.shoe(box_table)
    coup = factories.coup(shoe, 1, *PLAYER_NATURAL)  # recorded, its check never ran
    assert RuleViolation.objects.count() == 0
    totals = coups_sweep(first_day=coup.gaming_day, last_day=coup.gaming_day)
    assert totals.codes["play_at_closed_table"] == 1
    assert findings(coup=coup) == [("play_at_closed_table", "Coup 1 was posted while table BB1 was closed.")]


def test_a_table_never_opened_takes_its_status_from_the_table(db):
    table = factories.table("MB9", game="mini", open_=False)
    assert not TableEvent.objects.filter(table=table).exists()
    coup = factories.coup(factories.shoe(table), 1, *PLAYER_NATURAL)
    assert coups_check(coup_ids=[coup.pk]) == 1
    assert findings(coup=coup) == [("play_at_closed_table", "Coup 1 was posted while table MB9 was closed.")]


def test_an_event_time_in_the_past_does_not_move_the_recorded_order(box_table, box_shoe):
    """Opens and closes are ordered by when they were recorded, as coups are: a close reported with
    an earlier `at` does not reach back over coups recorded before it."""
    coup = factories.coup(box_shoe, 1, *PLAYER_NATURAL)
    shoe_close(shoe=box_shoe, box_counts=[])
    table_close(table=box_table, at=dt.datetime(2020, 1, 1, tzinfo=dt.UTC))
    assert coups_check(coup_ids=[coup.pk]) == 0
