"""Ratings and comps for staff, over the API and in the admin: a patron's ratings as stored, each
read recorded as a look; a host's redemption recorded once per comp slip (a replay is a 200 writing
nothing, another amount on the slip a 409 naming it), never past the balance (a 409 naming it,
nothing written); bad input a 400 naming the field; only the roles that may redeem can."""

import datetime as dt
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from pit.accounts.models import Role
from pit.players.models import PatronLook, SeatSession
from pit.ratings.models import CompEntry, SessionRating
from tests import factories
from tests.admin.conftest import PASSWORD, make_user
from tests.api.conftest import _device_client
from tests.api.operations import rows
from tests.ratings import players

pytestmark = pytest.mark.django_db
COMPS = "/api/v1/patrons/C-7001/comps/"


@pytest.fixture
def patron_with_comps(db):
    table = factories.table("BB1")
    patron = players.patron("C-7001", name="Chan Tai Man")
    at = timezone.now() - dt.timedelta(hours=2)
    session = SeatSession.objects.create(table=table, seat=3, patron=patron, started_at=at, gaming_day=at.date())
    SessionRating.objects.create(
        session=session,
        patron=patron,
        table=table,
        gaming_day=at.date(),
        currency="USD",
        seconds_played=3725,
        coups_played=41,
        table_coups=44,
        wagers=57,
        handle_minor=1230000,
        handle_by_bet={"banker": 1000000, "tie": 230000},
        largest_bet_minor=50000,
        won_minor=-42500,
        commission_owed_minor=17500,
        theo_numerator="2463841",
        theo_denominator="128",
        theo_minor=Decimal("19248.757812"),
        game_edge="2/185",
        standard_theo_minor=Decimal("14412.612613"),
        final=True,
        as_of=at + dt.timedelta(hours=1),
    )
    CompEntry.objects.create(patron=patron, kind="earned", session=session, currency="USD", amount_minor=48122)
    return {"patron": patron, "session": session, "table": table}


def staff(role: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=make_user(role))
    return client


def redemption(**changes) -> dict:
    return {"reference": "CS-2026-004211", "currency": "USD", "amount": "150.00", "reason": "Dinner for two"} | changes


def test_a_host_reads_the_ratings_as_computed_and_each_read_is_a_look(patron_with_comps):
    host = staff(Role.HOST)
    answer = host.get("/api/v1/patrons/C-7001/ratings/")
    assert answer.status_code == 200, answer.content
    [rating] = answer.json()
    assert rating == {
        "session": patron_with_comps["session"].pk,
        "table": "BB1",
        "seat": 3,
        "gaming_day": patron_with_comps["session"].gaming_day.isoformat(),
        "currency": "USD",
        "seconds_played": 3725,
        "coups_played": 41,
        "table_coups": 44,
        "handle": "12300.00",
        "handle_by_bet": {"banker": "10000.00", "tie": "2300.00"},
        "average_bet": "300.00",  # 1,230,000 / 41 = 30,000 minor exactly
        "largest_bet": "500.00",
        "won": "-425.00",
        "commission_owed": "175.00",
        "theo": "19248.757812",
        "theo_exact": "2463841/128",
        "standard_theo": "14412.612613",
        "game_edge": "2/185",
        "estimated": False,
        "final": True,
        "as_of": rating["as_of"],
    }
    look = PatronLook.objects.get()
    assert (look.patron, look.where, look.personal_shown) == (patron_with_comps["patron"], "api patron ratings", False)


def test_a_host_redeems_once_per_slip_and_a_replay_writes_nothing(patron_with_comps):
    host = staff(Role.HOST)
    answer = host.post(COMPS, redemption(), format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["kind"], body["amount"], body["reference"], body["reason"]) == (
        "redeemed",
        "-150.00",
        "CS-2026-004211",
        "Dinner for two",
    )
    assert body["recorded_by"] == "user host"
    before = rows()
    again = host.post(COMPS, redemption(), format="json")
    assert (again.status_code, again.json()["id"]) == (200, body["id"])
    differs = host.post(COMPS, redemption(amount="160.00"), format="json")
    assert differs.status_code == 409
    assert list(differs.json()["errors"]) == ["amount"]
    assert rows() == before
    comps = host.get(COMPS).json()
    assert comps["balances"] == [{"currency": "USD", "balance": "331.22"}]  # 481.22 - 150.00
    assert [entry["kind"] for entry in comps["entries"]] == ["redeemed", "earned"]


def test_a_redemption_past_the_balance_is_a_409_naming_it_and_writes_nothing(patron_with_comps):
    host = staff(Role.HOST)
    before = rows()
    answer = host.post(COMPS, redemption(amount="481.23"), format="json")
    assert answer.status_code == 409
    body = answer.json()
    assert "481.22" in body["message"] and body["details"]["balance"] == "48122"
    assert list(body["errors"]) == ["amount"]
    assert rows() == before
    assert host.post(COMPS, redemption(amount="481.22"), format="json").status_code == 201
    assert host.get(COMPS).json()["balances"] == [{"currency": "USD", "balance": "0.00"}]


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"amount": 150}, "amount"),
        ({"amount": "150.001"}, "amount"),
        ({"currency": "JPY", "amount": "150.5"}, "amount"),  # yen have no decimals
        ({"amount": "-5.00"}, "amount"),
        ({"currency": "usd"}, "currency"),
        ({"reason": ""}, "reason"),
        ({"reference": "slip 1"}, "reference"),
        ({"tip": "1.00"}, "tip"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_writes_nothing(patron_with_comps, changes, field):
    host = staff(Role.HOST)
    before = rows()
    answer = host.post(COMPS, redemption(**changes), format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["errors"]
    assert rows() == before


def test_only_the_roles_that_redeem_can_and_devices_read_nothing(patron_with_comps):
    pit_boss, auditor, accountant = staff(Role.PIT_BOSS), staff(Role.AUDITOR), staff(Role.ACCOUNTANT)
    device = _device_client(patron_with_comps["table"])
    before = rows()
    assert pit_boss.post(COMPS, redemption(), format="json").status_code == 403
    assert auditor.post(COMPS, redemption(), format="json").status_code == 403
    assert device.post(COMPS, redemption(), format="json").status_code == 403
    assert device.get("/api/v1/patrons/C-7001/ratings/").status_code == 403
    assert accountant.get("/api/v1/patrons/C-7001/ratings/").status_code == 403
    assert rows() == before
    assert pit_boss.get(COMPS).status_code == 200
    assert staff(Role.HOST).get("/api/v1/patrons/C-9999/comps/").status_code == 404


def test_a_host_redeems_in_the_admin_and_past_the_balance_is_refused(patron_with_comps):
    make_user(Role.HOST)
    browser = Client()
    assert browser.login(username="host", password=PASSWORD)
    form = {
        "patron": patron_with_comps["patron"].pk,
        "currency": "USD",
        "amount": "500",
        "reference": "",
        "reason": "Room night",
    }
    refused = browser.post("/admin/ratings/compentry/add/", form, follow=True)
    assert "481.22" in refused.content.decode()
    assert not CompEntry.objects.filter(kind="redeemed").exists()
    added = browser.post("/admin/ratings/compentry/add/", {**form, "amount": "80.50"})
    assert added.status_code == 302
    entry = CompEntry.objects.get(kind="redeemed")
    assert (entry.amount_minor, entry.reference, entry.reason, entry.recorded_by_user.username) == (
        -8050,
        None,
        "Room night",
        "host",
    )
    assert staff(Role.PIT_BOSS).get(COMPS).json()["balances"] == [{"currency": "USD", "balance": "400.72"}]
