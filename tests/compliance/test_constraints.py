"""The compliance app's named constraints are held by the database itself."""

import datetime as dt

import pytest
from django.utils import timezone

from pit.compliance.models import RuleViolation
from tests import factories
from tests.dbcheck import refused

pytestmark = pytest.mark.django_db


def violation(table, **fields):
    values = {
        "code": "box_variance",
        "message": "short",
        "severity": "high",
        "fingerprint": "fp",
        "table": table,
        "gaming_day": dt.date(2026, 3, 1),
        "found_by": "test",
        **fields,
    }
    return RuleViolation.objects.create(**values)


@pytest.fixture
def table():
    return factories.table()


def test_fingerprint_unique(table):
    violation(table)
    with refused("fingerprint"):
        violation(table)


def test_violation_severity_valid(table):
    with refused("violation_severity_valid"):
        violation(table, severity="dire")


def test_violation_status_valid(table):
    with refused("violation_status_valid", "violation_review_has_note"):
        violation(table, status="lost")
    with refused("violation_status_valid"):
        violation(table, status="lost", status_note="n", status_changed_at=timezone.now())


def test_violation_review_has_note(table):
    with refused("violation_review_has_note"):
        violation(table, status="resolved", status_changed_at=timezone.now())
    with refused("violation_review_has_note"):
        violation(table, status="dismissed", status_note="why")
