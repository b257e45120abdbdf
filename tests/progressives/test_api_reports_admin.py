"""The meters read by a floor display over the API (a device of a bank table, or staff), a hit paid over
the API by a pit boss with the cashier's password, the liability in the reports, and the admin pages."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from pit.accounts.services import device_create, staff_token_create
from pit.progressives.models import MeterPayout, MeterReading
from pit.reports.catalog import REPORTS
from pit.reports.definitions import BRIDGE, DETAIL, ReportFilters, report_lines
from tests import factories
from tests.progressives.conftest import PASSWORD
from tests.shoes import hands

pytestmark = pytest.mark.django_db


def _device(table):
    _, key = device_create(table=table, name="display")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    return client


def _staff(user):
    _, key = staff_token_create(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _hit(bank):
    return factories.coup(
        bank.shoes["BB1"],
        1,
        *hands.PLAYER_PAIR,
        dealt_at=bank.start + dt.timedelta(minutes=2),
        wagers=[factories.wager(3, "player_pair", "20")],
    )


def test_a_floor_display_reads_its_bank_s_meter(bank):
    _hit(bank)
    display = _device(bank.bb1)
    answer = display.get("/api/v1/progressives/meters/PP1/")
    assert answer.status_code == 200, answer.content
    assert answer.json() == {
        "code": "PP1",
        "name": "Player Pair jackpot",
        "bet": "player_pair",
        "currency": "USD",
        "amount": "1001.00",
        "base": "1000.00",
        "reset": "500.00",
        "rate": "0.050000",
        "tables": ["BB1", "BB2"],
        "configuration": 1,
        "contributions": "1.00",
        "carried": "0.00",
        "payouts": 0,
    }
    assert [meter["code"] for meter in display.get("/api/v1/progressives/meters/").json()] == ["PP1"]
    outside = _device(bank.bb3)
    assert outside.get("/api/v1/progressives/meters/PP1/").status_code == 403
    assert outside.get("/api/v1/progressives/meters/").json() == []
    assert display.get("/api/v1/progressives/meters/NOPE/").status_code == 404
    assert _staff(bank.cashier).get("/api/v1/progressives/meters/PP1/").json()["amount"] == "1001.00"


def test_a_pit_boss_pays_a_hit_over_the_api_with_the_cashier_s_password(bank):
    coup = _hit(bank)
    boss = _staff(bank.boss)
    url = f"/api/v1/progressives/coups/{coup.pk}/payouts/"
    body = {"meter": "PP1", "seat": 3, "paid_by": "boss", "witnessed_by": "cashier"}
    refused = boss.post(url, body, format="json")
    assert refused.status_code == 400 and "witnessed_by_password" in refused.json()["errors"]
    assert not MeterPayout.objects.exists() and not MeterReading.objects.exists()
    same = boss.post(url, {**body, "witnessed_by": "boss"}, format="json")
    assert same.status_code == 400 and "witnessed_by" in same.json()["errors"]
    paid = boss.post(url, {**body, "witnessed_by_password": PASSWORD}, format="json")
    assert paid.status_code == 201, paid.content
    assert {k: paid.json()[k] for k in ("amount", "reset", "table", "seat", "witnessed_by")} == {
        "amount": "1001.00",
        "reset": "500.00",
        "table": "BB1",
        "seat": 3,
        "witnessed_by": "cashier",
    }
    assert boss.get("/api/v1/progressives/meters/PP1/").json()["amount"] == "500.00"
    # Devices and the cage do not pay.
    assert _device(bank.bb1).post(url, body, format="json").status_code == 403
    assert _staff(bank.cashier).post(url, body, format="json").status_code == 403
    assert MeterPayout.objects.count() == 1


def test_the_liability_is_in_the_master_game_report_and_beside_the_commission_report(bank):
    _hit(bank)
    slugs = list(REPORTS)
    assert slugs.index("progressive-liability") == slugs.index("commission") + 1
    filters = ReportFilters(bank.start.date() - dt.timedelta(days=1), bank.start.date() + dt.timedelta(days=1))
    [row] = [line.values for line in report_lines(REPORTS["progressive-liability"], filters) if line.kind == DETAIL]
    assert (row["meter"], row["tables"], str(row["liability"]), str(row["contributions"])) == (
        "PP1",
        "BB1, BB2",
        "1001.00",
        "1.00",
    )
    bridge = [line.values for line in report_lines(REPORTS["master-game"], filters) if line.kind == BRIDGE]
    assert bridge == [
        {
            "table": "PP1",
            "status": "Progressive player_pair (BB1, BB2)",
            "currency": "USD",
            "progressive_liability": row["liability"],
        }
    ]
    only_bb3 = ReportFilters(filters.date_from, filters.date_to, tables=("BB3",))
    assert not [line for line in report_lines(REPORTS["progressive-liability"], only_bb3) if line.kind == DETAIL]


def test_the_admin_pays_a_hit_with_two_signers(bank, client):
    coup = _hit(bank)
    client.force_login(bank.boss)
    add = "/admin/progressives/meterpayout/add/"
    assert client.get(add).status_code == 200
    form = {"meter": "PP1", "coup": coup.pk, "seat": 3, "paid_by": "boss", "witnessed_by": "cashier"}
    page = client.post(add, {**form, "witnessed_by_password": "wrong"})
    assert page.status_code == 200 and "witnessed_by_password" in page.context["form"].errors
    assert not MeterPayout.objects.exists()
    done = client.post(add, {**form, "witnessed_by_password": PASSWORD})
    assert done.status_code == 302
    payout = MeterPayout.objects.get()
    assert (payout.amount_minor, payout.paid_by, payout.witnessed_by) == (100100, bank.boss, bank.cashier)
    assert client.get("/admin/progressives/meter/").status_code == 200
    # The cage sees the meters and payouts; it does not pay, nor file.
    client.force_login(bank.cashier)
    assert client.get(add).status_code == 403
    assert client.get("/admin/progressives/meter/add/").status_code == 403
    client.force_login(bank.accountant)
    assert client.get("/admin/progressives/meter/add/").status_code == 200
