"""The players' back-office: personal data per role, every look at a patron's page recorded, and
the forms that enrol, version, exclude and seat, each through its service."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from pit.accounts.models import Role
from pit.players.models import BuyIn, ChipsWalked, Exclusion, Patron, PatronLook, SeatSession, SessionEvent, Tier
from pit.players.panels import PATRON_PANELS, patron_panel_register
from pit.players.selectors import patron_current, session_spans
from pit.players.services import patron_enrol, session_sit
from tests import factories as f
from tests.admin.conftest import PASSWORD, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def li(db):
    gold = Tier.objects.create(code="gold", name="Gold", colour="#d4af37", rank=3)
    return patron_enrol(card_number="100234", name="Li Wei", tier=gold, nationality="MO")


def logged_in(client, role):
    user = make_user(role)
    client.login(username=user.username, password=PASSWORD)
    return user


@pytest.mark.parametrize(
    ("role", "personal"),
    [(Role.PIT_BOSS, True), (Role.HOST, True), (Role.AUDITOR, False)],
)
def test_the_patron_page_shows_personal_data_only_to_the_roles_that_may_see_it_and_records_each_look(
    client, li, role, personal
):
    user = logged_in(client, role)
    page = client.get(reverse("admin:players_patron_change", args=[li.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "100234" in html
    assert ("Li Wei" in html, "MO" in html.split("pit-patron", 1)[1]) == (personal, personal)
    listing = client.get(reverse("admin:players_patron_changelist")).content.decode()
    assert "100234" in listing and ("Li Wei" in listing) == personal
    client.get(reverse("admin:players_patron_change", args=[li.pk]))
    looks = list(PatronLook.objects.order_by("pk").values_list("patron", "looked_by", "where", "personal_shown"))
    assert looks == [(li.pk, user.pk, "admin patron page", personal)] * 2


@pytest.mark.parametrize("role", [Role.ACCOUNTANT, Role.CAGE])
def test_other_roles_do_not_open_patrons(client, li, role):
    logged_in(client, role)
    assert client.get(reverse("admin:players_patron_change", args=[li.pk])).status_code == 403
    assert client.get(reverse("admin:players_patron_changelist")).status_code == 403
    assert PatronLook.objects.count() == 0


def test_an_auditor_cannot_search_patrons_by_name(client, li):
    logged_in(client, Role.AUDITOR)
    found = client.get(reverse("admin:players_patron_changelist") + "?q=Li+Wei")
    assert found.status_code == 200 and "100234" not in found.content.decode()


def test_a_host_enrols_a_patron_and_records_new_details(client, li):
    logged_in(client, Role.HOST)
    gold = Tier.objects.get()
    added = client.post(
        reverse("admin:players_patron_add"),
        {"card_number": "200001", "name": "Ana Lopes", "tier": gold.pk, "nationality": "pt", "status": "active"},
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    ana = Patron.objects.get(card_number="200001")
    assert (patron_current(ana).name, patron_current(ana).nationality) == ("Ana Lopes", "PT")
    url = reverse("admin:players_patron_version", args=[ana.pk])
    assert client.get(url).status_code == 200
    saved = client.post(
        url, {"name": "Ana Lopes Chan", "tier": gold.pk, "nationality": "PT", "status": "active", "reason": "married"}
    )
    assert saved.status_code == 302
    assert patron_current(ana).name == "Ana Lopes Chan"
    assert ana.versions.count() == 2


def test_an_auditor_records_nothing(client, li):
    logged_in(client, Role.AUDITOR)
    assert client.get(reverse("admin:players_patron_version", args=[li.pk])).status_code == 403
    assert client.get(reverse("admin:players_patron_add")).status_code == 403
    assert client.get(reverse("admin:players_exclusion_add")).status_code == 403
    assert client.get(reverse("admin:players_seatsession_add")).status_code == 403


def test_a_pit_boss_records_an_exclusion_and_its_lift(client, li):
    logged_in(client, Role.PIT_BOSS)
    start = timezone.localtime() - dt.timedelta(days=3)
    form = {
        "patron": li.pk,
        "kind": "self",
        "starts_at_0": start.strftime("%Y-%m-%d"),
        "starts_at_1": start.strftime("%H:%M:%S"),
        "reason": "asked at the desk",
    }
    assert client.post(reverse("admin:players_exclusion_add"), form).status_code == 302
    exclusion = Exclusion.objects.get()
    assert (exclusion.kind, exclusion.ends_at, exclusion.recorded_by_user.username) == ("self", None, "pit_boss")
    lift = {**form, "lifts": exclusion.pk, "reason": "on appeal"}
    lift["starts_at_0"] = timezone.localtime().strftime("%Y-%m-%d")
    lift["starts_at_1"] = (timezone.localtime() - dt.timedelta(minutes=1)).strftime("%H:%M:%S")
    assert client.post(reverse("admin:players_exclusion_add"), lift).status_code == 302
    assert Exclusion.objects.filter(lifts=exclusion).count() == 1


def test_a_pit_boss_seats_a_player_and_records_the_session(client, li):
    table = f.table("BB1")
    logged_in(client, Role.PIT_BOSS)
    start = timezone.localtime() - dt.timedelta(hours=1)
    seated = client.post(
        reverse("admin:players_seatsession_add"),
        {
            "table": table.pk,
            "seat": 1,
            "patron": li.pk,
            "description": "",
            "started_at_0": start.strftime("%Y-%m-%d"),
            "started_at_1": start.strftime("%H:%M:%S"),
        },
    )
    assert seated.status_code == 302, [line for line in seated.content.decode().splitlines() if "error" in line]
    session = SeatSession.objects.get()
    url = reverse("admin:players_seatsession_record", args=[session.pk])
    page = client.get(reverse("admin:players_seatsession_change", args=[session.pk])).content.decode()
    assert url in page

    def record(action, minutes, **more):
        moment = (start + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:%S")
        return client.post(url, {"action": action, "at": moment, **more})

    assert record("buy_in", 1, amount="5000", buy_in_kind="cash").status_code == 302
    assert BuyIn.objects.get().amount_minor == 500000  # typed in units
    assert record("pause", 10).status_code == 302
    assert record("resume", 20).status_code == 302
    refused = record("resume", 25)  # not on a break: the service says so, nothing written
    assert refused.status_code == 200 and "not on a break" in refused.content.decode()
    assert SessionEvent.objects.count() == 2
    buy_in = BuyIn.objects.get()
    assert record("reverse", 26, record=f"buyin:{buy_in.pk}", reason="keyed twice").status_code == 302
    assert record("stand", 30, amount="1250.50", how="estimated").status_code == 302
    walk = ChipsWalked.objects.get()
    assert (walk.amount_minor, walk.how) == (125050, "estimated")
    assert BuyIn.objects.filter(reverses=buy_in).exists()
    first = start.replace(microsecond=0)
    assert session_spans(session) == [
        (first, first + dt.timedelta(minutes=10)),
        (first + dt.timedelta(minutes=20), first + dt.timedelta(minutes=30)),
    ]


def test_a_pit_boss_identifies_an_unrated_session(client, li):
    table = f.table("BB1")
    session = session_sit(table=table, seat=2, at=timezone.now() - dt.timedelta(minutes=30), description="a man")
    logged_in(client, Role.PIT_BOSS)
    url = reverse("admin:players_seatsession_record", args=[session.pk])
    moment = timezone.localtime().strftime("%Y-%m-%d %H:%M:%S")
    assert client.post(url, {"action": "identify", "at": moment, "card_number": "999"}).status_code == 200
    assert not hasattr(SeatSession.objects.get(pk=session.pk), "identification")
    done = client.post(url, {"action": "identify", "at": moment, "card_number": "100234", "reason": "card at cage"})
    assert done.status_code == 302
    assert SeatSession.objects.get(pk=session.pk).identification.patron == li


def test_the_patron_page_shows_the_registered_panels(client, li):
    from django.utils.html import format_html

    patron_panel_register("test_figures", "Figures", lambda request, patron: format_html("<p>theo {}</p>", "12.50"))
    try:
        logged_in(client, Role.HOST)
        html = client.get(reverse("admin:players_patron_change", args=[li.pk])).content.decode()
        assert 'data-panel="test_figures"' in html and "<p>theo 12.50</p>" in html
    finally:
        PATRON_PANELS.pop("test_figures")
