"""Idempotency-Key: a retry gets the first answer and writes nothing; a different body is 422; a
crashed request's key is freed; keys are purged after the TTL."""

import datetime as dt

import pytest
from django.utils import timezone

from pit.api import idempotency
from pit.api.models import IdempotencyKey
from pit.api.tasks import idempotency_keys_purge
from tests.api.conftest import counts, coup_body

pytestmark = pytest.mark.django_db


def post(client, shoe, body, key="k-1", suffix=""):
    return client.post(f"/api/v1/shoes/{shoe.pk}/coups/{suffix}", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_retry_gets_the_first_answer_and_writes_nothing(device, shoe, django_capture_on_commit_callbacks):
    first = post(device, shoe, coup_body())
    assert first.status_code == 201
    record = IdempotencyKey.objects.get()
    assert (
        record.key,
        record.device,
        record.user,
        record.method,
        record.path,
        record.status,
        record.response_status,
    ) == ("k-1", device.device, None, "POST", f"/api/v1/shoes/{shoe.pk}/coups/", "completed", 201)
    assert record.expires_at - record.created_at >= dt.timedelta(hours=24) - dt.timedelta(seconds=1)
    before = counts()
    with django_capture_on_commit_callbacks() as callbacks:
        again = post(device, shoe, coup_body())
    assert again.status_code == 201  # the original status, not the 200 of a replayed coup
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert counts() == before and callbacks == []


def test_the_same_key_with_another_body_is_422_and_writes_nothing(device, shoe):
    post(device, shoe, coup_body())
    before = counts()
    response = post(device, shoe, coup_body(2))
    assert response.status_code == 422
    assert response.json()["code"] == "unprocessable"
    assert "used for a different request" in response.json()["message"]
    assert counts() == before
    other_path = device.post("/api/v1/tables/BB1/open/", {}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert other_path.status_code == 422


def test_keys_belong_to_their_owner(device, shoe, table):
    from rest_framework.test import APIClient

    from pit.accounts.services import device_create

    post(device, shoe, coup_body())
    _, key = device_create(table=table, name="second reader")
    second = APIClient()
    second.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    response = post(second, shoe, coup_body(2))  # the same key string, another device: its own key
    assert response.status_code == 201
    assert IdempotencyKey.objects.count() == 2


def test_a_key_left_taken_by_a_request_that_died_is_taken_again(device, shoe):
    """A key committed as taken and never answered (a version that took keys before running left it
    so when its process died): the retry runs. Today a request takes its key in its own transaction,
    so a running request's key is never seen (a retry waits for it: tests/api/test_concurrency.py)."""
    now = timezone.now()
    IdempotencyKey.objects.create(
        key="k-1",
        device=device.device,
        method="POST",
        path=f"/api/v1/shoes/{shoe.pk}/coups/",
        request_hash=idempotency.request_hash("POST", f"/api/v1/shoes/{shoe.pk}/coups/", coup_body()),
        locked_at=now,
        expires_at=now + dt.timedelta(hours=24),
    )
    response = post(device, shoe, coup_body())
    assert response.status_code == 201
    assert IdempotencyKey.objects.get().status == "completed"
    assert post(device, shoe, coup_body()).status_code == 201  # and is replayed from then on
    assert IdempotencyKey.objects.get().response_status == 201
    assert counts()["Coup"] == 1


def test_an_error_answer_is_kept_too_and_a_crash_frees_the_key(device, shoe, monkeypatch):
    bad = coup_body(wagers=[{"seat": 4, "bet": "player", "amount": "10.00"}])
    first = post(device, shoe, bad, key="k-bad")
    assert first.status_code == 400
    assert post(device, shoe, bad, key="k-bad").json() == first.json()

    def crash(**kwargs):
        raise RuntimeError("worker died")

    monkeypatch.setattr("pit.shoes.services.coup_record", crash)
    before = counts()
    response = post(device, shoe, coup_body(), key="k-crash")
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"
    assert counts() == before  # the key was freed with the effect: a retry runs again
    monkeypatch.undo()
    assert post(device, shoe, coup_body(), key="k-crash").status_code == 201


def test_the_conflict_answer_keeps_its_violation(device, shoe):
    post(device, shoe, coup_body(), key="a")
    response = post(device, shoe, coup_body(player=["5H", "KD", "3C"]), key="b")
    assert response.status_code == 409
    assert counts()["RuleViolation"] == 1
    assert post(device, shoe, coup_body(player=["5H", "KD", "3C"]), key="b").json() == response.json()


def test_batches_and_other_posts_honour_the_key(device, shoe):
    body = {"coups": [coup_body(1), coup_body(2)]}
    first = post(device, shoe, body, key="batch", suffix="batch/")
    before = counts()
    assert post(device, shoe, body, key="batch", suffix="batch/").json() == first.json()
    assert counts() == before
    opened = device.post("/api/v1/tables/BB1/close/", {}, format="json", HTTP_IDEMPOTENCY_KEY="close-1")
    before = counts()
    assert (
        device.post("/api/v1/tables/BB1/close/", {}, format="json", HTTP_IDEMPOTENCY_KEY="close-1").json()
        == opened.json()
    )
    assert counts() == before


def test_a_malformed_key_is_400(device, shoe):
    before = counts()
    response = post(device, shoe, coup_body(), key="x" * 256)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["Idempotency-Key"]
    assert counts() == before


def test_expired_keys_are_purged_and_an_expired_key_runs_again(device, shoe, settings):
    post(device, shoe, coup_body(), key="old")
    post(device, shoe, coup_body(2), key="new")
    IdempotencyKey.objects.filter(key="old").update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert idempotency_keys_purge.delay().get() == 1
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["new"]
    assert settings.CELERY_BEAT_SCHEDULE["api.idempotency_keys_purge"]["task"] == "api.idempotency_keys_purge"
    assert settings.PIT_IDEMPOTENCY_TTL_HOURS == 24
    IdempotencyKey.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert post(device, shoe, coup_body(2), key="new").status_code == 200  # the coup exists: a replay


def test_an_answer_echoing_a_nul_character_is_stored_and_replayed(device, table):
    body = {"cut_card_position": 300, "bad\u0000name": 1}
    first = device.post("/api/v1/tables/BB1/shoes/", body, format="json", HTTP_IDEMPOTENCY_KEY="nul")
    assert first.status_code == 400
    assert first.json()["errors"] == {"bad\u0000name": ["Unknown field."]}
    again = device.post("/api/v1/tables/BB1/shoes/", body, format="json", HTTP_IDEMPOTENCY_KEY="nul")
    assert (again.status_code, again.json(), again["Idempotent-Replayed"]) == (400, first.json(), "true")
