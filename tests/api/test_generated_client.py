"""The schema is one a generated client can trust (issue 17 item 6): openapi-spec-validator accepts it,
openapi-python-client generates a client from it with warnings as errors, and that client, with no
hand-written HTTP, drives a floor day against a live server: open the table, start a shoe, post
coups (one and a batch), collect from a seat, close the shoe with its box count, read the
reconciliation, close the table. Every answer is a typed model."""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator
from openapi_spec_validator import validate

from pit.accounts.services import device_create
from pit.api.resources.coups import COUP_EXAMPLE, SECOND_COUP_EXAMPLE
from tests import factories

VENV_BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generated(tmp_path_factory, django_db_setup, django_db_blocker):
    """The client package generated from the schema, imported (module `pit_api_client`)."""
    with django_db_blocker.unblock():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    folder = tmp_path_factory.mktemp("client")
    path = folder / "schema.json"
    path.write_text(json.dumps(schema))
    validate(json.loads(path.read_text()))  # openapi-spec-validator: raises on any error
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        [
            str(VENV_BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(path),
            "--meta",
            "none",
            "--fail-on-warning",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Warning" not in output, output
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("pit_api_client")
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.startswith("pit_api_client")]:
            del sys.modules[name]


def _module(package, dotted):
    return importlib.import_module(f"{package.__name__}.{dotted}")


@pytest.mark.django_db(transaction=True)
def test_a_floor_day_through_the_generated_client(generated, live_server):
    # No commission box: the live server's flush after the test meets no append-only ledger rows.
    table = factories.table("BB1", preset="no_commission", open_=False)
    _, key = device_create(table=table, name="generated client")
    api = generated.AuthenticatedClient(
        base_url=live_server.url, token=key, prefix="Api-Key", raise_on_unexpected_status=True
    )
    models = _module(generated, "models")

    def call(operation, *args, **kwargs):
        return _module(generated, f"api.{operation}").sync_detailed(*args, client=api, **kwargs)

    opened = call("tables.tables_open_create", "BB1", body=models.TableEventInputRequest(), idempotency_key="open-1")
    assert opened.status_code == 200
    assert isinstance(opened.parsed, models.Table) and opened.parsed.status == models.TableStatusEnum.OPEN

    started = call("shoes.tables_shoes_create", "BB1", body=models.ShoeStartRequest(cut_card_position=300))
    assert started.status_code == 201 and isinstance(started.parsed, models.Shoe)
    shoe_id = started.parsed.id

    pending = call("shoes.shoes_reconciliation_retrieve", shoe_id)
    assert pending.status_code == 202 and isinstance(pending.parsed, models.ReconciliationPending)
    assert pending.parsed.status == models.ReconciliationPendingStatusEnum.DEALING
    assert pending.headers["Retry-After"] == "60"

    coup = call(
        "coups.shoes_coups_create",
        shoe_id,
        body=models.CoupInputRequest.from_dict(COUP_EXAMPLE),
        idempotency_key="coup-1",
    )
    assert coup.status_code == 201 and isinstance(coup.parsed, models.Coup)
    assert (coup.parsed.winner, coup.parsed.player_total, coup.parsed.banker_total) == (models.WinnerEnum.PLAYER, 7, 6)
    assert [(w.seat, w.result, w.payout) for w in coup.parsed.wagers] == [
        (1, models.ResultEnum.WIN, "100.00"),
        (2, models.ResultEnum.LOSE, "0.00"),
        (3, models.ResultEnum.LOSE, "0.00"),
    ]
    assert coup.parsed.violations == []
    replayed = call(
        "coups.shoes_coups_create",
        shoe_id,
        body=models.CoupInputRequest.from_dict(COUP_EXAMPLE),
        idempotency_key="coup-1",
    )
    assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"

    batch = call(
        "coups.shoes_coups_batch_create",
        shoe_id,
        body=models.CoupBatchInputRequest.from_dict({"coups": [COUP_EXAMPLE, SECOND_COUP_EXAMPLE]}),
        answer=models.ShoesCoupsBatchCreateAnswer.FULL,
    )
    assert batch.status_code == 200 and isinstance(batch.parsed, models.CoupBatchResult)
    assert [item.status for item in batch.parsed.results] == [
        models.CoupBatchItemStatusEnum.EXISTING,
        models.CoupBatchItemStatusEnum.CREATED,
    ]
    assert (batch.parsed.results[1].coup.wagers[0].payout, batch.parsed.results[1].coup.wagers[0].commission) == (
        "100.00",
        "0.00",
    )

    listed = call("coups.shoes_coups_list", shoe_id)
    assert [c.number for c in listed.parsed.results] == [1, 2]

    collected = call("ledger.shoes_seats_collect_create", shoe_id, 2, body=models.CollectInputRequest())
    assert collected.status_code == 200 and (collected.parsed.collected, collected.parsed.entry) == ("0.00", None)

    refused = call("tables.tables_close_create", "BB1", body=models.TableEventInputRequest())
    assert refused.status_code == 409 and isinstance(refused.parsed, models.Error)
    assert refused.parsed.code == models.ErrorCodeEnum.CONFLICT
    assert refused.parsed.details.additional_properties == {"shoe_id": shoe_id, "sequence": 1}

    closed = call(
        "shoes.shoes_close_create",
        shoe_id,
        body=models.ShoeCloseRequest(commission_box=[models.BoxCountInputRequest(seat=2, counted="0.00")]),
    )
    assert closed.status_code == 200 and closed.parsed.status == models.ShoeStatusEnum.CLOSED

    reconciliation = call("shoes.shoes_reconciliation_retrieve", shoe_id)
    assert reconciliation.status_code == 200 and isinstance(reconciliation.parsed, models.Reconciliation)
    assert (reconciliation.parsed.status, reconciliation.parsed.expected, reconciliation.parsed.variance) == (
        models.ReconciliationStatusEnum.BALANCED,
        "0.00",
        "0.00",
    )

    table_closed = call("tables.tables_close_create", "BB1", body=models.TableEventInputRequest())
    assert table_closed.status_code == 200 and table_closed.parsed.status == models.TableStatusEnum.CLOSED

    missing = call("shoes.shoes_reconciliation_retrieve", 999999)
    assert missing.status_code == 404 and missing.parsed.code == models.ErrorCodeEnum.NOT_FOUND
