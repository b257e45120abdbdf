"""Players over the API: a floor device seats and stands players at its own table only; refusals
name the field and write nothing; staff look patrons up with personal data per permission, each
lookup recorded."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from pit.accounts.models import Role
from pit.compliance.models import RuleViolation
from pit.players.models import BuyIn, ChipsWalked, PatronLook, SeatSession, SessionEvent, Tier
from pit.players.selectors import session_spans
from pit.players.services import exclusion_record, patron_enrol
from tests import factories as f
from tests.admin.conftest import make_user
from tests.api.conftest import _device_client
from tests.api.operations import recent, rows

pytestmark = pytest.mark.django_db
SEATS = "/api/v1/tables/BB1/seats"


@pytest.fixture
def floor(db):
    table = f.table("BB1")
    f.table("BB2")
    gold = Tier.objects.create(code="gold", name="Gold")
    li = patron_enrol(card_number="100234", name="Li Wei", tier=gold, nationality="MO")
    return {"table": table, "device": _device_client(table), "li": li}


def staff(role):
    client = APIClient()
    client.force_authenticate(user=make_user(role))
    return client


def test_a_device_seats_a_patron_through_a_session_at_its_table(floor):
    device = floor["device"]
    sat, paused, back, stood = recent(120), recent(90), recent(80), recent(10)
    answer = device.post(f"{SEATS}/sit/", {"seat": 3, "at": sat, "card_number": "100234"}, format="json")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["table"], body["seat"], body["card_number"], body["description"]) == ("BB1", 3, "100234", "")
    assert device.get(f"{SEATS}/").json()[0]["id"] == body["id"]
    buy_in = {"seat": 3, "kind": "marker", "amount": "10000", "at": recent(119)}
    assert device.post(f"{SEATS}/buy-ins/", buy_in, format="json").json()["amount"] == "10000.00"
    assert device.post(f"{SEATS}/pause/", {"seat": 3, "at": paused}, format="json").status_code == 201
    assert device.post(f"{SEATS}/resume/", {"seat": 3, "at": back}, format="json").status_code == 201
    stand = device.post(f"{SEATS}/stand/", {"seat": 3, "at": stood, "chips_walked": "7250.50"}, format="json")
    assert stand.status_code == 201
    assert (stand.json()["kind"], stand.json()["chips_walked"]) == ("stand", "7250.50")
    session = SeatSession.objects.get()
    moments = [dt.datetime.fromisoformat(moment) for moment in (sat, paused, back, stood)]
    assert session_spans(session) == [(moments[0], moments[1]), (moments[2], moments[3])]
    assert BuyIn.objects.get().amount_minor == 1000000
    assert ChipsWalked.objects.get().amount_minor == 725050
    assert session.recorded_by_device == device.device
    assert device.get(f"{SEATS}/").json() == []


def test_a_device_acts_for_its_own_table_only(floor):
    before = rows()
    answer = floor["device"].post(
        "/api/v1/tables/BB2/seats/sit/", {"seat": 1, "at": recent(5), "description": "a man"}, format="json"
    )
    assert answer.status_code == 403
    assert floor["device"].get("/api/v1/patrons/100234/").status_code == 403  # staff only
    assert rows() == before


def test_a_held_seat_is_a_409_naming_the_seat_and_writes_nothing(floor):
    device = floor["device"]
    device.post(f"{SEATS}/sit/", {"seat": 1, "at": recent(60), "description": "a man"}, format="json")
    before = rows()
    answer = device.post(f"{SEATS}/sit/", {"seat": 1, "at": recent(30), "card_number": "100234"}, format="json")
    assert answer.status_code == 409
    assert "seat" in answer.json()["errors"]
    assert rows() == before


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("sit/", {"seat": 4, "at": recent(5), "description": "a man"}, "seat"),  # BB1 has no seat 4
        ("sit/", {"seat": 1, "at": recent(5), "card_number": "999999"}, "card_number"),
        ("sit/", {"seat": 1, "at": recent(-60), "description": "a man"}, "at"),  # an hour ahead
        ("sit/", {"seat": 1, "at": recent(5)}, "description"),  # unrated, undescribed
        ("buy-ins/", {"seat": 1, "kind": "cash", "amount": "10.001", "at": recent(5)}, "amount"),
        ("pause/", {"seat": 2, "at": recent(5)}, "seat"),  # nobody there
    ],
)
def test_bad_input_is_a_4xx_naming_the_field_and_writes_nothing(floor, path, body, field):
    before = rows()
    answer = floor["device"].post(f"{SEATS}/{path}", body, format="json")
    assert 400 <= answer.status_code < 500, answer.content
    assert field in answer.json()["errors"], answer.json()
    assert rows() == before


def test_an_excluded_patron_swiped_at_a_seat_is_an_alarm(floor):
    exclusion_record(
        patron=floor["li"],
        kind="regulatory",
        starts_at=dt.datetime.now(dt.UTC) - dt.timedelta(days=9),
        ends_at=None,
        reason="court order",
    )
    answer = floor["device"].post(f"{SEATS}/sit/", {"seat": 2, "at": recent(1), "card_number": "100234"}, format="json")
    assert answer.status_code == 201
    alarms = staff(Role.PIT_BOSS).get("/api/v1/alarms/").json()
    assert [alarm["code"] for alarm in alarms["results"]] == ["excluded_patron_seated"]
    assert RuleViolation.objects.get().seat == 2


@pytest.mark.parametrize(("role", "personal"), [(Role.PIT_BOSS, True), (Role.HOST, True), (Role.AUDITOR, False)])
def test_a_patron_lookup_shows_personal_data_per_permission_and_is_recorded(floor, role, personal):
    floor["device"].post(f"{SEATS}/sit/", {"seat": 3, "at": recent(30), "card_number": "100234"}, format="json")
    client = staff(role)
    answer = client.get("/api/v1/patrons/100234/")
    assert answer.status_code == 200
    expected = {"name": "Li Wei", "nationality": "MO"} if personal else {"name": None, "nationality": None}
    assert answer.json() == {
        **expected,
        "card_number": "100234",
        "tier": "gold",
        "status": "active",
        "excluded": False,
        "seated": ["BB1/3"],
    }
    (look,) = PatronLook.objects.all()
    assert (look.where, look.personal_shown, look.looked_by.groups.get().name) == ("api patron lookup", personal, role)
    sessions = client.get("/api/v1/patrons/100234/sessions/").json()
    assert [(row["table"], row["seat"], row["state"], row["ended_at"]) for row in sessions] == [
        ("BB1", 3, "playing", None)
    ]


def test_roles_without_patrons_are_refused(floor):
    for role in (Role.CAGE, Role.ACCOUNTANT):
        assert staff(role).get("/api/v1/patrons/100234/").status_code == 403
    assert PatronLook.objects.count() == 0
    assert staff(Role.PIT_BOSS).get("/api/v1/patrons/nobody/").status_code == 404


def test_a_replayed_sit_down_is_one_session(floor):
    body = {"seat": 1, "at": recent(30), "card_number": "100234"}
    first = floor["device"].post(f"{SEATS}/sit/", body, format="json")
    again = floor["device"].post(f"{SEATS}/sit/", body, format="json")
    assert (first.status_code, again.status_code, again.json()) == (201, 200, first.json())
    assert SeatSession.objects.count() == 1 and SessionEvent.objects.count() == 0
