"""Rule violations: recorded once per fingerprint, cleared not deleted, reviewed with a note."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from pit import game
from pit.compliance.models import RuleViolation
from pit.compliance.services import (
    violation_acknowledge,
    violation_dismiss,
    violation_record,
    violation_resolve,
    violations_clear_missing,
)
from tests import factories

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 3, 1)


@pytest.fixture
def table():
    return factories.table()


@pytest.fixture
def boss(django_user_model):
    return django_user_model.objects.create_user("boss", password="x")


def record(table, fingerprint="box_variance:test", **kwargs):
    finding = game.check_box_count("5.00", "4.00", where="seat 1")
    return violation_record(
        finding=finding, fingerprint=fingerprint, table=table, gaming_day=DAY, found_by="test", **kwargs
    )


def test_record_once_per_fingerprint(table):
    first = record(table, seat=1)
    first.refresh_from_db()
    assert (first.code, first.severity, first.seat, first.gaming_day, first.found_by, first.status) == (
        "box_variance",
        game.check_box_count("5.00", "4.00").severity,
        1,
        DAY,
        "test",
        "open",
    )
    assert "seat 1" in first.message
    again = record(table, seat=1)
    assert again.pk == first.pk
    assert RuleViolation.objects.count() == 1
    assert record(table, fingerprint="box_variance:other").pk != first.pk


def test_cleared_finding_holds_again_when_found_again(table):
    violation = record(table)
    cleared = violations_clear_missing(
        scope=RuleViolation.objects.filter(table=table), found_by="test", fingerprints_found=set()
    )
    assert cleared == 1
    violation.refresh_from_db()
    assert violation.cleared_at is not None
    assert RuleViolation.objects.count() == 1  # cleared, never deleted
    record(table)
    violation.refresh_from_db()
    assert violation.cleared_at is None
    assert (
        violations_clear_missing(
            scope=RuleViolation.objects.all(), found_by="test", fingerprints_found={"box_variance:test"}
        )
        == 0
    )


def test_acknowledge_then_resolve(table, boss):
    violation = record(table)
    acknowledged = violation_acknowledge(violation=violation, user=boss, note=" looking into it ")
    acknowledged.refresh_from_db()
    assert (acknowledged.status, acknowledged.status_note, acknowledged.status_changed_by_id) == (
        "acknowledged",
        "looking into it",
        boss.pk,
    )
    first_change = acknowledged.status_changed_at
    assert first_change is not None
    resolved = violation_resolve(violation=violation, user=boss, note="dealer retrained")
    resolved.refresh_from_db()
    assert (resolved.status, resolved.status_note) == ("resolved", "dealer retrained")
    assert resolved.status_changed_at >= first_change


def test_dismiss_from_open(table, boss):
    dismissed = violation_dismiss(violation=record(table), user=boss, note="count was right; box miscounted")
    assert RuleViolation.objects.get(pk=dismissed.pk).status == "dismissed"


@pytest.mark.parametrize("review", [violation_acknowledge, violation_resolve, violation_dismiss])
def test_every_review_needs_a_note(table, boss, review):
    violation = record(table)
    for note in ("", "   ", None):
        with pytest.raises(ValidationError) as caught:
            review(violation=violation, user=boss, note=note)
        assert list(caught.value.message_dict) == ["note"]
    violation.refresh_from_db()
    assert (violation.status, violation.status_note, violation.status_changed_by_id) == ("open", "", None)


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        ([violation_acknowledge], violation_acknowledge),
        ([violation_resolve], violation_acknowledge),
        ([violation_resolve], violation_resolve),
        ([violation_resolve], violation_dismiss),
        ([violation_dismiss], violation_resolve),
        ([violation_dismiss], violation_acknowledge),
    ],
)
def test_closed_reviews_cannot_move_back(table, boss, path, refused):
    violation = record(table)
    for step in path:
        step(violation=violation, user=boss, note="done")
    before = RuleViolation.objects.values("status", "status_note", "status_changed_at").get(pk=violation.pk)
    with pytest.raises(ValidationError) as caught:
        refused(violation=violation, user=boss, note="again")
    assert list(caught.value.message_dict) == ["status"]
    assert RuleViolation.objects.values("status", "status_note", "status_changed_at").get(pk=violation.pk) == before
