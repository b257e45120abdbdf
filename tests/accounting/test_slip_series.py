"""Fill and credit slips from one numbered series: every number used, voided (reason, witness) or
unused; a gap below a number used is a finding (Louisiana LAC 42:III.2717)."""

import pytest
from django.core.exceptions import ValidationError

from pit.accounting.models import Slip, SlipVoid
from pit.accounting.selectors import slip_series
from pit.accounting.services import slip_book_record, slip_number_void, slip_request, slip_series_check
from pit.compliance.models import RuleViolation

from .conftest import DAY

CHIPS = {"10000": 10}


def request(pit, kind, number):
    return slip_request(
        kind=kind, number=number, table=pit.bb1, gaming_day=DAY, reason="tray", chips=CHIPS, actor=pit.actor
    )


def gaps():
    return sorted(
        RuleViolation.objects.filter(code="slip_number_gap", cleared_at__isnull=True).values_list(
            "fingerprint", flat=True
        )
    )


def test_numbers_before_any_book_stay_free_form(pit):
    assert request(pit, "fill", "F-BB1-1").number == "F-BB1-1"


def test_one_series_for_fills_and_credits(pit):
    slip_book_record(first=1000, last=1009, actor=pit.actor)
    request(pit, "fill", "1000")
    slips = Slip.objects.count()
    for number, field in (("1000", "number"), ("2000", "number"), ("F-1", "number")):
        with pytest.raises(ValidationError) as refused:
            request(pit, "credit", number)
        assert field in refused.value.message_dict
    assert Slip.objects.count() == slips
    assert request(pit, "fill", "1000").number == "1000"  # a replay answers the slip recorded


def test_a_gap_is_a_finding_until_the_number_is_voided(pit):
    slip_book_record(first=1000, last=1009, actor=pit.actor)
    request(pit, "fill", "1000")
    request(pit, "credit", "1001")
    slip_number_void(number=1003, reason="spoiled", witness=pit.accountant, actor=pit.actor)
    request(pit, "fill", "1004")
    assert slip_series_check() == 1
    assert gaps() == ["slip_gap:1002"]
    violation = RuleViolation.objects.get(fingerprint="slip_gap:1002")
    assert (violation.table, violation.gaming_day) == (pit.bb1, DAY)
    (book,) = slip_series()
    assert sorted(book.used) == [1000, 1001, 1004]
    assert sorted(book.voided) == [1003]
    assert book.unused == [(1005, 1009)]
    assert [gap.number for gap in book.gaps] == [1002]

    slip_number_void(number=1002, reason="torn", witness=pit.accountant, actor=pit.actor)
    assert gaps() == []
    with pytest.raises(ValidationError):
        request(pit, "fill", "1002")  # a voided number is never used


def test_a_void_needs_a_reason_and_another_witness_and_an_unused_number(pit):
    slip_book_record(first=1000, last=1009, actor=pit.actor)
    request(pit, "fill", "1000")
    for kwargs, field in (
        ({"number": 1001, "reason": " ", "witness": pit.accountant}, "reason"),
        ({"number": 1001, "reason": "spoiled", "witness": pit.boss}, "witness"),
        ({"number": 1000, "reason": "spoiled", "witness": pit.accountant}, "number"),
        ({"number": 5000, "reason": "spoiled", "witness": pit.accountant}, "number"),
    ):
        with pytest.raises(ValidationError) as refused:
            slip_number_void(actor=pit.actor, **kwargs)
        assert field in refused.value.message_dict
    assert not SlipVoid.objects.exists()


def test_books_do_not_overlap(pit):
    slip_book_record(first=1000, last=1009, actor=pit.actor)
    with pytest.raises(ValidationError):
        slip_book_record(first=1005, last=1020, actor=pit.actor)
