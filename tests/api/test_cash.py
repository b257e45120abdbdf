"""The cage's cash over the API: recorded once by reference, converted at the day's rate, a 400
naming the field and nothing written for bad input; compliance reads and reviews the findings."""

from decimal import Decimal

import pytest

from pit.accounting.models import DeviceGrant
from pit.cash.models import CashFinding, CashTransaction, ExchangeRate
from pit.cash.services import cash_check_day
from pit.players.models import Tier
from pit.players.services import patron_enrol
from tests.api.conftest import _device_client, _staff_client
from tests.cash.conftest import DAY

pytestmark = pytest.mark.django_db


@pytest.fixture
def cage_terminal(other_table):
    client = _device_client(other_table, "cage terminal")
    DeviceGrant.objects.create(device=client.device, scope="cage")
    return client


@pytest.fixture
def patron(db):
    return patron_enrol(
        card_number="100234", name="Li Wei", tier=Tier.objects.create(code="gold", name="Gold"), nationality="MO"
    )


def body(**changes):
    return {
        "reference": "CW3-000123",
        "kind": "chip_redemption",
        "at": "2026-03-02T14:05:00+00:00",
        "currency": "USD",
        "amount": "12500.00",
        "location": "Cage window 3",
        "card_number": "100234",
        **changes,
    }


def test_a_cage_terminal_records_a_redemption_once(cage_terminal, patron):
    first = cage_terminal.post("/api/v1/cash/transactions/", body(), format="json")
    assert first.status_code == 201, first.content
    answer = first.json()
    assert (answer["direction"], answer["gaming_day"], answer["card_number"], answer["rate"]) == (
        "out",
        "2026-03-02",
        "100234",
        "1",
    )
    assert (answer["amount"], answer["reporting_amount"], answer["reporting_currency"]) == ("12500.00", "12500", "USD")
    again = cage_terminal.post("/api/v1/cash/transactions/", body(amount="12500"), format="json")
    assert again.status_code == 200 and again.json() == answer
    changed = cage_terminal.post("/api/v1/cash/transactions/", body(amount="12000.00"), format="json")
    assert changed.status_code == 409 and "amount" in changed.json()["errors"]
    assert CashTransaction.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"amount": 12500}, "amount"),
        ({"amount": "-5.00"}, "amount"),
        ({"amount": "12.345"}, "amount"),
        ({"kind": "laundering"}, "kind"),
        ({"card_number": "999999"}, "card_number"),
        ({"currency": "usd"}, "currency"),
        ({"currency": "EUR"}, "currency"),
        ({"at": "2026-03-02T14:05:00"}, "at"),
        ({"card_number": None}, "description"),
        ({"table": "NOPE"}, "table"),
        ({"reference": ""}, "reference"),
        ({"extra": "1"}, "extra"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_nothing_is_written(cage_terminal, patron, change, field):
    answer = cage_terminal.post("/api/v1/cash/transactions/", body(**change), format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"], answer.json()
    assert not CashTransaction.objects.exists()


def test_a_device_without_the_cage_scope_records_no_cash(device, patron):
    assert device.post("/api/v1/cash/transactions/", body(), format="json").status_code == 403
    assert not CashTransaction.objects.exists()


def test_the_days_rate_converts_exactly(cage_terminal, patron, settings):
    settings.PIT_CASH_JURISDICTION = "mo"
    rate = cage_terminal.post(
        "/api/v1/cash/rates/", {"day": "2026-03-02", "currency": "USD", "rate": "8.0123"}, format="json"
    )
    assert rate.status_code == 201, rate.content
    answer = cage_terminal.post("/api/v1/cash/transactions/", body(amount="100.01"), format="json").json()
    assert (answer["rate"], answer["reporting_amount"], answer["reporting_currency"]) == ("8.0123", "801.310123", "MOP")
    assert ExchangeRate.objects.get().rate == "8.0123"


def test_compliance_reads_and_files_a_worksheet_the_auditor_sees_card_numbers(cage_terminal, patron):
    cage_terminal.post("/api/v1/cash/transactions/", body(), format="json")
    cash_check_day(day=DAY)
    compliance = _staff_client("compliance", "officer")
    auditor = _staff_client("auditor", "reader")
    listed = compliance.get("/api/v1/cash/findings/").json()["findings"]
    assert [(f["kind"], f["card_number"], f["name"], f["cash_out"]) for f in listed] == [
        ("ctr", "100234", "Li Wei", "12500"),
        ("cash_out_for_other", "100234", "Li Wei", "12500"),
    ]  # by deadline: the CTR's 15 days before the SAR's 30
    assert {f["name"] for f in auditor.get("/api/v1/cash/findings/").json()["findings"]} == {None}
    worksheet = CashFinding.objects.get(kind="ctr")
    url = f"/api/v1/cash/findings/{worksheet.pk}/review/"
    missing = compliance.post(url, {"status": "filed", "note": "Form 112 filed"}, format="json")
    assert missing.status_code == 400 and "filing_reference" in missing.json()["errors"]
    filed = compliance.post(
        url,
        {"status": "filed", "note": "Form 112 filed", "filing_reference": "31000123456789", "filed_on": "2026-03-05"},
        format="json",
    )
    assert filed.status_code == 200, filed.content
    assert filed.json()["status"] == "filed"
    assert auditor.post(url, {"status": "dismissed", "note": "x"}, format="json").status_code == 403
    worksheet.refresh_from_db()
    assert (worksheet.filing_reference, str(worksheet.filed_on), worksheet.status) == (
        "31000123456789",
        "2026-03-05",
        "filed",
    )
    assert Decimal(worksheet.cash_out) == Decimal("12500")
