"""The dashboard works alarms (one per event, acknowledged from the banner), draws the floor map
(position, status, hold against theoretical, alarms) and hands shift notes to the next shift."""

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from pit import game
from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation, ViolationStatus
from pit.compliance.services import violation_record
from pit.dashboard.models import FloorPosition, ShiftNote
from pit.dashboard.selectors import hold_band, pit_overview
from pit.dashboard.services import shift_note_write, shift_of
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "a-long-password-123"


@pytest.fixture
def run(db):
    """BB1's shoe: five findings of one unshuffled shoe; MB1: nothing."""
    bb1 = factories.table("BB1")
    factories.table("MB1", game="mini", preset="no_commission")
    shoe = factories.shoe(bb1)
    for number in range(1, 6):
        violation_record(
            finding=game.violation("new_deck_order_run", f"coup {number} in new-deck order"),
            fingerprint=f"run:{number}",
            table=bb1,
            shoe=shoe,
            gaming_day=dt.date(2026, 11, 29),
            found_by="test",
        )
    return bb1


def _user(role, name):
    return user_create_with_role(username=name, password=PASSWORD, role=role)


def test_the_banner_shows_one_line_per_event_with_its_count_and_an_acknowledge_button(run, client):
    client.force_login(_user("pit boss", "boss"))
    html = client.get(reverse("dashboard:index")).content.decode()
    banner = html.split('id="pd-alarms"', 1)[1].split("</div>", 1)[0]
    assert banner.count("<li ") == 1
    assert "&times;5" in banner
    assert banner.count(">Acknowledge</button>") == 1


def test_acknowledging_an_alarm_acknowledges_its_event_attributed_to_the_pit_boss(run, client):
    boss = _user("pit boss", "boss")
    client.force_login(boss)
    newest = RuleViolation.objects.order_by("-pk").first()
    response = client.post(
        reverse("admin:compliance_ruleviolation_alarm_acknowledge", args=[newest.pk]), {"note": "Shoe pulled."}
    )
    assert response.status_code == 302
    reviewed = set(RuleViolation.objects.values_list("status", "status_changed_by", "status_note"))
    assert reviewed == {(ViolationStatus.ACKNOWLEDGED, boss.pk, "Shoe pulled.")}
    assert RuleViolation.audit_events.rel.related_model.objects.filter(pgh_label="update").count() == 5
    html = client.get(reverse("dashboard:index")).content.decode()
    assert 'id="pd-alarms"' not in html


def test_who_may_not_review_cannot_acknowledge_and_nothing_changes(run, client):
    client.force_login(_user("auditor", "eve"))
    newest = RuleViolation.objects.order_by("-pk").first()
    assert ">Acknowledge</button>" not in client.get(reverse("dashboard:index")).content.decode()
    response = client.post(reverse("admin:compliance_ruleviolation_alarm_acknowledge", args=[newest.pk]))
    assert response.status_code == 403
    assert set(RuleViolation.objects.values_list("status", flat=True)) == {ViolationStatus.OPEN}


def test_the_tile_and_the_map_carry_the_alarms_position_and_hold_band(run):
    mb1 = run.__class__.objects.get(code="MB1")
    FloorPosition.objects.create(table=mb1, row=1, column=2)
    tiles = {tile["code"]: tile for tile in pit_overview()["tables"]}
    assert (tiles["BB1"]["alarms"], tiles["MB1"]["alarms"]) == (1, 0)
    # MB1 placed at (1, 2); BB1 unplaced: the row after the placed ones, first column.
    assert (tiles["MB1"]["position"], tiles["BB1"]["position"]) == ({"row": 1, "column": 2}, {"row": 2, "column": 1})
    assert (tiles["BB1"]["hold_band"], tiles["MB1"]["hold_band"]) == (None, None)


def test_hold_band_against_theoretical():
    assert hold_band("12.00", "1.24") == "above"
    assert hold_band("6.24", "1.24") == "near"
    assert hold_band("-3.76", "1.24") == "near"
    assert hold_band("-3.77", "1.24") == "below"
    assert hold_band(None, None) is None


def test_a_shift_note_is_handed_to_the_next_shift_and_no_further(settings, client):
    settings.PIT_ACCOUNTING_SHIFT_HOURS = 8
    boss = _user("pit boss", "boss")
    now = timezone.now()
    day, shift = shift_of(now)
    note = shift_note_write(text="BB1's reader drops cards: call the technician.", user=boss, now=now)
    assert (note.gaming_day, note.shift) == (day, shift)
    ShiftNote.objects.filter(pk=note.pk).update(written_at=now - dt.timedelta(hours=8))
    ShiftNote.objects.filter(pk=note.pk).update(
        shift=shift - 1 if shift > 1 else 3, gaming_day=day if shift > 1 else day - dt.timedelta(days=1)
    )
    notes = pit_overview()["shift_notes"]
    assert [(n["text"], n["handed_over"], n["by"]) for n in notes] == [(note.text, True, "boss")]
    ShiftNote.objects.filter(pk=note.pk).update(gaming_day=day - dt.timedelta(days=2))
    assert pit_overview()["shift_notes"] == []


def test_pit_bosses_write_shift_notes_in_the_admin_auditors_read_them(client):
    boss = _user("pit boss", "boss")
    client.force_login(boss)
    response = client.post(reverse("admin:dashboard_shiftnote_add"), {"text": "Watch seat 3 at MB1.", "table": ""})
    assert response.status_code == 302
    assert list(ShiftNote.objects.values_list("text", "written_by")) == [("Watch seat 3 at MB1.", boss.pk)]
    client.force_login(_user("auditor", "eve"))
    assert client.get(reverse("admin:dashboard_shiftnote_changelist")).status_code == 200
    assert client.post(reverse("admin:dashboard_shiftnote_add"), {"text": "mine"}).status_code == 403
    client.force_login(_user("cage", "cash"))
    assert client.get(reverse("admin:dashboard_shiftnote_changelist")).status_code == 403
    assert ShiftNote.objects.count() == 1
