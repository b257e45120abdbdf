"""The simulator over the REST API, as a floor device plays: the same game as through the services."""

from collections import Counter

import pytest
from django.test import Client

from pit.accounts.services import device_create
from pit.compliance.models import RuleViolation
from pit.floor.clients import HttpFloorClient, ServicesFloorClient
from pit.floor.simulator import FAULT_KINDS, SimulationError, simulate
from pit.ledger.models import Reconciliation, ReconciliationSeat, ReconciliationStatus
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import Table
from tests.floor.conftest import NOW


class InProcessHttpClient(HttpFloorClient):
    """The HTTP client with Django's test client as its transport: the API's views, no sockets."""

    def __init__(self, key: str):
        super().__init__("http://testserver", key)
        self.client = Client(HTTP_AUTHORIZATION=f"Api-Key {key}")
        self.calls = Counter()

    def _call(self, method, path, body=None):
        url = f"/api/v1{path}"
        self.calls[(method, path.split("/")[1])] += 1
        if method == "GET":
            response = self.client.get(url)
        else:
            response = self.client.post(url, body or {}, content_type="application/json")
        if response.status_code >= 400:
            raise SimulationError(f"{method} {path}: HTTP {response.status_code}: {response.content[:500]!r}")
        return response.json()


@pytest.fixture
def device_key(pit_tables):
    _, key = device_create(table=Table.objects.get(code="BB1"), name="shoe reader")
    return key


def test_over_the_api_a_device_plays_the_same_game_and_every_fault_is_found(
    device_key, django_capture_on_commit_callbacks
):
    faults = dict.fromkeys(FAULT_KINDS, 0.04) | {"miscounted_box": 1.0}
    client = InProcessHttpClient(device_key)
    with django_capture_on_commit_callbacks(execute=True):
        over_http = simulate(client, tables=["BB1"], seed=21, faults=faults, now=NOW, shoes_per_day=2)
    assert client.calls[("POST", "shoes")] > 2  # batches, collections, closes went through the API
    assert over_http.faults

    shoes = Shoe.objects.filter(pk__in=over_http.shoe_ids)
    assert [shoe.status for shoe in shoes] == [ShoeStatus.CLOSED, ShoeStatus.CLOSED]
    assert {shoe.recorded_by_device_id for shoe in shoes} == {shoes[0].table.devices.get().pk}
    assert Coup.objects.filter(shoe__in=shoes).count() == over_http.coups
    for fault in over_http.faults:
        if fault.kind == "miscounted_box":
            seat = ReconciliationSeat.objects.get(reconciliation__shoe_id=fault.shoe_id, seat=fault.seat)
            assert seat.variance_minor != 0
        else:
            assert RuleViolation.objects.filter(code=fault.code, coup_id=fault.coup_id).exists(), str(fault)
    variances = Reconciliation.objects.filter(status=ReconciliationStatus.VARIANCE).count()
    assert variances == 2

    # The transport changes nothing of the game: the same seed through the services deals the same.
    with django_capture_on_commit_callbacks(execute=True):
        in_process = simulate(ServicesFloorClient(), tables=["BB1"], seed=21, faults=faults, now=NOW, shoes_per_day=2)
    assert in_process.digest == over_http.digest


def test_over_the_api_a_shoe_left_dealing_stops_the_run_with_what_to_do(device_key, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        simulate(ServicesFloorClient(), tables=["BB1"], seed=1, now=NOW, shoes_per_day=0, leave_open=True)
    dealing = Shoe.objects.get(status=ShoeStatus.DEALING)
    with pytest.raises(SimulationError, match=f"Shoe id {dealing.pk} is still dealing at table BB1"):
        simulate(InProcessHttpClient(device_key), tables=["BB1"], seed=1, now=NOW)
    assert Shoe.objects.count() == 1


def test_over_http_to_a_live_server(live_server, transactional_db):
    """The real transport (urllib) against a running server: a table with no commission box, so the
    live server's flush after the test meets no append-only ledger rows."""
    from decimal import Decimal

    from pit.paytables.services import paytable_create_from_preset
    from pit.tables.services import table_create

    table = table_create(
        code="MD1",
        name="Midi",
        game="midi",
        paytable=paytable_create_from_preset(preset="no_commission"),
        limits={"player": (Decimal(50), Decimal(5000)), "banker": (Decimal(50), Decimal(5000))},
    )
    _, key = device_create(table=table, name="terminal")
    result = simulate(
        HttpFloorClient(live_server.url, key),
        tables=["MD1"],
        seed=3,
        now=NOW,
        faults={"misreported_winner": 0.05},
    )
    assert result.coups == Coup.objects.filter(shoe__table=table).count() > 60
    assert Shoe.objects.get().status == ShoeStatus.CLOSED
    assert result.faults
    found = set(RuleViolation.objects.values_list("coup_id", flat=True))
    assert found == {fault.coup_id for fault in result.faults}
    with pytest.raises(SimulationError, match="HTTP 401"):
        HttpFloorClient(live_server.url, "00000000.wrong").table_setup("MD1")
