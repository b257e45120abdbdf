"""The accountant's screens: the day-close checklist (the blockers are the close's own refusal, one
source) and variance investigations with an assignee, a due date and attachments."""

import datetime as dt

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pit.accounting.models import GamingDayEvent, InvestigationAttachment, VarianceInvestigation
from pit.accounting.services import day_close_blockers
from pit.core.gaming_day import current_gaming_day
from pit.ledger.models import Reconciliation
from tests.admin.conftest import PASSWORD


@pytest.fixture
def files(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    return tmp_path


def test_the_checklist_shows_what_the_close_refuses_with(pit, accountant, client):
    client.login(username=accountant.username, password=PASSWORD)
    day = current_gaming_day()
    response = client.get(reverse("day-close"), {"gaming_day": day.isoformat()})
    blockers = day_close_blockers(gaming_day=day)
    assert blockers and response.context["blockers"] == blockers
    page = response.content.decode()
    assert all(f"<li>{blocker}</li>" in page for blocker in blockers[:3])
    assert "open violation" in page.split('id="pit-day-pending"', 1)[1]
    closed = client.post(reverse("day-close"), {"gaming_day": day.isoformat()}, follow=True)
    said = " ".join(str(m) for m in closed.context["messages"])
    assert said.startswith("Not closed:") and blockers[0] in said
    assert not GamingDayEvent.objects.exists()


def test_the_close_form_links_the_checklist_and_only_accountants_open_it(pit, accountant, pit_boss, client):
    client.login(username=accountant.username, password=PASSWORD)
    page = client.get(reverse("admin:accounting_gamingdayevent_add")).content.decode()
    assert 'id="pit-day-close-checklist"' in page
    client.login(username=pit_boss.username, password=PASSWORD)
    assert client.get(reverse("day-close")).status_code == 403


def test_an_investigation_with_assignee_due_date_and_an_attachment(pit, accountant, auditor, client, files):
    reconciliation = Reconciliation.objects.get(shoe=pit.shoe1)
    client.login(username=accountant.username, password=PASSWORD)
    add = reverse("admin:accounting_varianceinvestigation_add")
    due = (current_gaming_day() + dt.timedelta(days=3)).isoformat()
    response = client.post(
        add,
        {
            "reconciliation": reconciliation.pk,
            "title": "Seat 3 box 2.00 short",
            "assignee": accountant.pk,
            "due_on": due,
            "attachments-TOTAL_FORMS": "1",
            "attachments-INITIAL_FORMS": "0",
            "attachments-0-file": SimpleUploadedFile("count-sheet.txt", b"seat 3: 2.00"),
            "attachments-0-description": "count sheet",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    investigation = VarianceInvestigation.objects.get()
    assert (investigation.title, investigation.assignee_id, investigation.due_on.isoformat(), investigation.status) == (
        "Seat 3 box 2.00 short",
        accountant.pk,
        due,
        "open",
    )
    attachment = InvestigationAttachment.objects.get()
    assert (attachment.description, attachment.uploaded_by_id) == ("count sheet", accountant.pk)
    assert (files / attachment.file.name).read_bytes() == b"seat 3: 2.00"
    client.login(username=auditor.username, password=PASSWORD)
    download = client.get(reverse("investigation-file", args=[attachment.pk]))
    assert download.status_code == 200 and b"".join(download.streaming_content) == b"seat 3: 2.00"
    assert client.post(add, {"title": "mine"}).status_code == 403


def test_an_investigation_closes_only_with_a_conclusion(pit, accountant, client, files):
    from pit.accounting.investigations import investigation_close, investigation_open

    reconciliation = Reconciliation.objects.get(shoe=pit.shoe1)
    investigation = investigation_open(
        title="short box",
        assignee=accountant,
        due_on=current_gaming_day(),
        opened_by=accountant,
        reconciliation=reconciliation,
    )
    with pytest.raises(Exception, match="concluded"):
        investigation_close(investigation=investigation, conclusion=" ")
    investigation.refresh_from_db()
    assert investigation.status == "open"
    closed = investigation_close(investigation=investigation, conclusion="Miscount at the shuffle.")
    assert (closed.status, closed.conclusion) == ("closed", "Miscount at the shuffle.")
