"""Every time a report's rows leave pit it is an audit event (`ReportDelivery`): the reports page,
a download, a background export's download, the API, a schedule. The paths are enumerated from the
code (every URL of the reports page and the API's reports, every function that renders a report's
rows) so a path added later without its record fails here; refusals record nothing. A report's
personal columns (a patron's name and nationality) reach, by every path, only the readers who may
see personal data, and the delivery says whether they did."""

import ast
import datetime as dt
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core import mail
from django.urls import URLPattern, URLResolver, get_resolver

import pit
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.cash.services import cash_check_day
from pit.core.immutable import ImmutableRecordError
from pit.players.models import Tier
from pit.players.services import patron_enrol
from pit.records.streams import chained_labels
from pit.reports.catalog import REPORTS
from pit.reports.definitions import ReportFilters
from pit.reports.models import ReportDelivery, ReportExport, ReportSchedule
from pit.reports.schedules import report_schedules_run
from pit.reports.services import report_schedule_save
from tests.cash.conftest import DAY, cage
from tests.reports.conftest import DAY_1, DAY_2

PAGE = "/admin/pit/reports/"
EXPORT = "/admin/pit/reports/export/"
API = "/api/v1/reports/"
RANGE = {"from": "2026-11-02", "to": "2026-11-03"}
FILTERS = ReportFilters(DAY_1, DAY_2).to_dict()

# The functions that call a renderer and do not deliver, and why; every other caller must record
# the delivery itself.
RENDER_WITHOUT_DELIVERY = {
    "pit.reports.services.report_export_run": "writes the export's file; its delivery is the download",
    "pit.reports.schedules._render": "renders for report_schedule_execute, which records the run's delivery",
}
RENDERERS = {
    "csv_chunks",
    "csv_write",
    "json_chunks",
    "xlsx_write",
    "pdf_write",
    "report_page",
    "report_summary",
    "report_lines",
}
# Where the renderers and the rows they walk are defined: they are what the callers call.
RENDERING_MODULES = {"pit.reports.renderers", "pit.reports.pdf", "pit.reports.definitions", "pit.reports.csv_copy"}
RECORDERS = {"report_deliver", "_deliver"}

# The reports page's URLs: those that send a report's rows (each driven below) and those that do not.
PAGE_URLS_DELIVERING = {"index", "export", "export-download"}
PAGE_URLS_NOT_DELIVERING = {"export-status": "the export's progress: no row of the report"}


def deliveries(**match):
    return list(ReportDelivery.objects.filter(**match).values_list("report", "format", "via", "detail"))


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return Path(settings.MEDIA_ROOT)


# ------------------------------------------------------------------------------- every path


def test_every_report_read_through_the_api_is_a_delivery(client, pit, users):
    auditor = users[Role.AUDITOR]
    client.force_login(auditor)
    for slug in REPORTS:
        response = client.get(f"{API}{slug}/", RANGE)
        assert response.status_code == 200, slug
        json.loads(b"".join(response.streaming_content))
    assert deliveries(delivered_to=auditor) == [(slug, "json", "api", "") for slug in reversed(REPORTS)]
    assert all(row.filters == FILTERS for row in ReportDelivery.objects.all())


def test_the_page_and_the_downloads_are_deliveries(client, pit):
    client.force_login(pit.accountant)
    assert client.get(PAGE).status_code == 200  # the page without a report shows none
    assert deliveries() == []
    assert client.get(PAGE, {"report": "commission", **RANGE, "page": "2"}).status_code == 200
    assert deliveries() == [("commission", "html", "screen", "page 2")]
    for file_format in ("csv", "xlsx"):
        response = client.get(EXPORT, {"report": "table-results", **RANGE, "format": file_format})
        assert response.status_code == 200
        b"".join(response.streaming_content)
    response = client.get(EXPORT, {"report": "master-game", **RANGE, "format": "pdf"})
    assert response.status_code == 200
    assert deliveries(via="download") == [
        ("master-game", "pdf", "download", ""),
        ("table-results", "xlsx", "download", ""),
        ("table-results", "csv", "download", ""),
    ]
    assert ReportDelivery.objects.filter(delivered_to=pit.accountant).count() == 4


def test_a_background_export_is_delivered_when_downloaded(client, pit, media, django_capture_on_commit_callbacks):
    client.force_login(pit.accountant)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(EXPORT, {"report": "commission", **RANGE, "format": "csv"})
    export = ReportExport.objects.get()
    assert export.status == "done"
    assert client.get(f"{PAGE}exports/{export.pk}/").json()["status"] == "done"
    assert deliveries() == []  # asked for, written, polled: nothing has left pit yet
    for _ in range(2):
        download = client.get(f"{PAGE}exports/{export.pk}/download/")
        assert download.status_code == 200
        b"".join(download.streaming_content)
    assert deliveries() == [("commission", "csv", "export", f"export {export.pk}")] * 2
    assert ReportDelivery.objects.filter(delivered_to=pit.accountant, filters=export.filters).count() == 2


def test_a_scheduled_run_is_a_delivery_to_its_owner(pit, users, settings, tmp_path):
    settings.PIT_REPORT_SCHEDULE_DIR = str(tmp_path / "scheduled")
    owner = users[Role.ACCOUNTANT]
    schedule = report_schedule_save(
        schedule=ReportSchedule(
            name="Daily commission",
            report="commission",
            format="csv",
            period="previous_day",
            frequency="daily",
            hour=8,
            recipients="controller@casino.example",
            folder="accounting",
            owner=owner,
        ),
        user=owner,
    )
    (run,) = report_schedules_run(now=dt.datetime(2026, 11, 3, 9, 0, tzinfo=dt.UTC))
    assert run.status == "done" and len(mail.outbox) == 1
    (delivery,) = ReportDelivery.objects.all()
    assert (delivery.report, delivery.format, delivery.via, delivery.delivered_to) == (
        "commission",
        "csv",
        "schedule",
        owner,
    )
    assert delivery.detail == (
        f"schedule {schedule.pk} (Daily commission), run of 2026-11-03: folder accounting; "
        "mailed to controller@casino.example"
    )
    assert delivery.filters == ReportFilters(DAY_1, DAY_1).to_dict()


def test_the_cash_reports_are_deliveries_to_compliance(client, db):
    officer = user_create_with_role(username="officer", password="pw-officer", role=Role.COMPLIANCE.value)
    client.force_login(officer)
    for slug in ("cash-mtl", "cash-ctr", "cash-sar"):
        assert client.get(PAGE, {"report": slug, **RANGE}).status_code == 200
        response = client.get(EXPORT, {"report": slug, **RANGE, "format": "csv"})
        b"".join(response.streaming_content)
        b"".join(client.get(f"{API}{slug}/", RANGE).streaming_content)
    assert sorted(deliveries(delivered_to=officer)) == sorted(
        (slug, file_format, via, detail)
        for slug in ("cash-mtl", "cash-ctr", "cash-sar")
        for file_format, via, detail in (("html", "screen", "page 1"), ("csv", "download", ""), ("json", "api", ""))
    )
    # Compliance reads who took them (auditors too); a pit boss does not.
    assert client.get("/admin/reports/reportdelivery/").status_code == 200
    boss = user_create_with_role(username="boss", password="pw-boss", role=Role.PIT_BOSS.value)
    client.force_login(boss)
    assert client.get("/admin/reports/reportdelivery/").status_code == 403


# ------------------------------------------------------------------------------- personal data


@pytest.fixture
def worksheet(db, settings, tmp_path):
    """A CTR worksheet of gaming day DAY for Patron 1 (card 700001, US), $12,000 bought at the cage."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.PIT_REPORT_SCHEDULE_DIR = str(tmp_path / "scheduled")
    gold = Tier.objects.create(code="gold", name="Gold")
    patron = patron_enrol(card_number="700001", name="Patron 1", tier=gold, nationality="US")
    cage("chip_purchase", "12000.00", patron=patron)
    cash_check_day(day=DAY)
    return {"from": DAY.isoformat(), "to": DAY.isoformat()}


def _every_path(client, user, days, django_capture_on_commit_callbacks) -> list[bytes]:
    """The CTR worksheets by every path, as `user`: what each delivered."""
    client.force_login(user)
    shown = client.get(PAGE, {"report": "cash-ctr", **days})
    assert shown.status_code == 200
    csv_file = b"".join(client.get(EXPORT, {"report": "cash-ctr", **days, "format": "csv"}).streaming_content)
    api = b"".join(client.get(f"{API}cash-ctr/", days).streaming_content)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(EXPORT, {"report": "cash-ctr", **days, "format": "csv"})
    export = ReportExport.objects.filter(requested_by=user).latest("pk")
    exported = b"".join(client.get(f"{PAGE}exports/{export.pk}/download/").streaming_content)
    report_schedule_save(
        schedule=ReportSchedule(
            name=f"CTR for {user.username}",
            report="cash-ctr",
            format="csv",
            period="previous_day",
            frequency="daily",
            hour=8,
            recipients=f"{user.username}@casino.example",
            owner=user,
        ),
        user=user,
    )
    report_schedules_run(now=dt.datetime.combine(DAY + dt.timedelta(days=1), dt.time(9), tzinfo=dt.UTC))
    mailed = mail.outbox[-1].attachments[0][1].encode()
    return [shown.content, csv_file, api, exported, mailed]


def test_personal_columns_reach_only_who_may_see_them_by_every_path(
    client, worksheet, django_capture_on_commit_callbacks
):
    officer = user_create_with_role(username="officer", password="pw-officer", role=Role.COMPLIANCE.value)
    accountant = user_create_with_role(username="counter", password="pw-counter", role=Role.ACCOUNTANT.value)
    for user, personal in ((officer, True), (accountant, False)):
        delivered = _every_path(client, user, worksheet, django_capture_on_commit_callbacks)
        for output in delivered:
            assert b"700001" in output  # the card number, for every reader
            assert (b"Patron 1" in output) is personal, output[:300]
            assert (b"Nationality" in output) is personal
        assert list(
            ReportDelivery.objects.filter(delivered_to=user).order_by("pk").values_list("via", "personal_shown")
        ) == [(via, personal) for via in ("screen", "download", "api", "export", "schedule")]


def test_an_export_with_personal_data_is_not_handed_to_who_may_no_longer_see_it(
    client, worksheet, django_capture_on_commit_callbacks
):
    officer = user_create_with_role(username="officer", password="pw-officer", role=Role.COMPLIANCE.value)
    client.force_login(officer)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(EXPORT, {"report": "cash-ctr", **worksheet, "format": "csv"})
    export = ReportExport.objects.get()
    assert export.personal and export.status == "done"
    officer.groups.clear()
    officer.groups.add(Group.objects.get(name=Role.ACCOUNTANT.value))  # moved to accounting: still runs reports
    client.force_login(type(officer).objects.get(pk=officer.pk))
    assert client.get(f"{PAGE}exports/{export.pk}/download/").status_code == 403
    assert deliveries() == []


# ------------------------------------------------------------------------------- refusals


def test_refusals_record_nothing(client, pit, users):
    boss = users[Role.PIT_BOSS]
    client.force_login(boss)
    assert client.get(API + "commission/", RANGE).status_code == 403  # pit bosses run the floor's reports only
    assert client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"}).status_code == 403
    client.force_login(pit.accountant)
    assert client.get(API + "commission/", {"from": "2026-11-03", "to": "2026-11-02"}).status_code == 400
    assert client.get(EXPORT, {"report": "commission", **RANGE, "format": "docx"}).status_code == 302
    assert client.get(PAGE, {"report": "commission", "from": "x", "to": "y"}).status_code == 200
    client.logout()
    assert client.get(API + "commission/", RANGE).status_code in (401, 403)
    assert deliveries() == []


def test_a_delivery_is_a_chained_fact_nobody_changes(pit):
    delivery = ReportDelivery.objects.create(
        report="commission",
        format="csv",
        via="download",
        filters=FILTERS,
        delivered_to=pit.accountant,
        personal_shown=False,
    )
    assert chained_labels()["reports.ReportDelivery"] == "stream"
    delivery.detail = "changed"
    with pytest.raises(ImmutableRecordError):
        delivery.save()
    with pytest.raises(ImmutableRecordError):
        delivery.delete()
    with pytest.raises(ImmutableRecordError):
        ReportDelivery.objects.filter(pk=delivery.pk).delete()


# ------------------------------------------------------------------------------- enumerations


def _patterns(resolver: URLResolver, namespace: str) -> list[URLPattern]:
    (found,) = [entry for entry in resolver.url_patterns if getattr(entry, "namespace", None) == namespace]
    return [entry for entry in found.url_patterns if isinstance(entry, URLPattern)]


def test_every_url_of_the_reports_page_is_a_known_path():
    """A new URL on the reports page is either driven above as a delivery or said not to deliver."""
    names = {pattern.name for pattern in _patterns(get_resolver(), "reports")}
    assert names == PAGE_URLS_DELIVERING | set(PAGE_URLS_NOT_DELIVERING)
    assert not PAGE_URLS_DELIVERING & set(PAGE_URLS_NOT_DELIVERING)


def test_every_report_url_of_the_api_is_one_report_read_above():
    (api,) = [entry for entry in get_resolver().url_patterns if getattr(entry, "namespace", None) == "api"]
    (reports,) = [entry for entry in api.url_patterns if getattr(entry, "namespace", None) == "reports"]
    assert sorted(pattern.name for pattern in reports.url_patterns) == sorted(REPORTS)


def _calls(node: ast.AST) -> set[str]:
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            target = call.func
            names.add(target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", ""))
    return names


def _functions(tree: ast.AST, prefix: str):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"{prefix}.{node.name}", node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}.{node.name}")


def test_every_function_that_renders_a_report_records_its_delivery():
    """Read from the source: a function anywhere in pit that renders a report's rows (outside the
    renderers themselves) records the delivery, or is listed with the reason it does not."""
    root = Path(pit.__file__).parent
    renders: dict[str, bool] = {}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(("pit", *path.relative_to(root).with_suffix("").parts))
        if module in RENDERING_MODULES or "migrations" in path.parts:
            continue
        for name, function in _functions(ast.parse(path.read_text()), module):
            called = _calls(function)
            if called & RENDERERS:
                renders[name] = bool(called & RECORDERS)
    assert set(RENDER_WITHOUT_DELIVERY) <= set(renders)  # an exemption of nothing is stale
    missing = sorted(name for name, records in renders.items() if not records and name not in RENDER_WITHOUT_DELIVERY)
    assert missing == []
    assert {name for name, records in renders.items() if records} == {
        "pit.reports.views.reports_index",
        "pit.reports.views.report_export",
        "pit.api.resources.reports.ReportView.get",
    }
