from unittest import mock

import pytest

from pit.core.health import CheckResult


@pytest.mark.django_db
def test_healthz_is_200_when_database_and_broker_answer(client):
    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_is_503_and_names_the_broker_when_it_is_down(client):
    down = CheckResult("broker", False, "OperationalError: connection refused")
    with mock.patch("pit.core.health.check_broker", return_value=down):
        response = client.get("/healthz")

    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == {
        "ok": False,
        "detail": "OperationalError: connection refused",
    }
    assert response.json()["status"] == "unavailable"
