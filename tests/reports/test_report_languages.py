"""Reports in the reader's language: XLSX, the PDF and the reports page worded in Traditional
Chinese (titles, headings, line kinds, bridging lines); the CSV's header keeps its stable English
names unless translated headers are asked for, and its lines, JSON's keys and values never change."""

import csv
import io
import json

import openpyxl
import pypdf
import pytest
from django.utils import translation

from pit.reports.catalog import REPORTS
from pit.reports.definitions import BRIDGE, ReportFilters, machine_text, report_lines
from pit.reports.models import ExportStatus, ReportExport
from pit.reports.pdf import pdf_write
from pit.reports.renderers import csv_chunks, csv_header_names, json_chunks, xlsx_write
from pit.reports.services import report_export_request, report_export_run
from tests.catalogs import catalogs  # noqa: F401 - the fixture
from tests.reports.conftest import DAY_1, DAY_2

FILTERS = ReportFilters(DAY_1, DAY_2)
PAGE = "/admin/pit/reports/"
EXPORT = "/admin/pit/reports/export/"
RANGE = {"from": "2026-11-02", "to": "2026-11-03"}
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hant"}

# The stable CSV names, written out: a change of a label is a change systems see.
COMMISSION_NAMES = [
    "Line",
    "Section",
    "Gaming day",
    "Table",
    "Game",
    "Shoe",
    "Seat",
    "Currency",
    "Commission wagers (accruals not reversed)",
    "Accrued",
    "Accruals reversed: corrections, voids, comps (netted in accrued)",
    "Collected at departure",
    "Expected in box",
    "Counted",
    "Variance (counted - expected)",
    "Over / short",
    "Collected at shuffle",
    "Reconciliation",
    "Explained by",
    "Explanation",
]
COMMISSION_HEADINGS = [
    "行",
    "部分",
    "遊戲日",
    "賭枱",
    "遊戲",
    "牌靴",
    "座位",
    "貨幣",
    "佣金注數（未沖銷的應計）",
    "應計",
    "已沖銷的應計：更正、作廢、贈送（已在應計中抵銷）",
    "離開時收取",
    "錢箱內應有",
    "點算",
    "差額（點算 - 應有）",
    "長 / 短",
    "洗牌時收取",
    "核對",
    "解釋者",
    "解釋",
]


@pytest.fixture
def zh_hant(catalogs):  # noqa: F811 - the fixture imported above
    with translation.override("zh-hant"):
        yield


def _csv(report: str, **options) -> list[list[str]]:
    text = b"".join(csv_chunks(REPORTS[report], FILTERS, **options)).decode().removeprefix("\ufeff")
    return list(csv.reader(io.StringIO(text)))


def _xlsx(report: str):
    out = io.BytesIO()
    xlsx_write(REPORTS[report], FILTERS, out)
    out.seek(0)
    return openpyxl.load_workbook(out)


def test_every_column_has_a_stable_name_and_a_label():
    for definition in REPORTS.values():
        names = [column.name for column in definition.visible_columns]
        assert len(set(names)) == len(names), definition.slug
        for column in definition.columns:
            assert column.name == machine_text(column.label) and column.name.isascii(), (definition.slug, column.key)
    assert csv_header_names(REPORTS["commission"]) == COMMISSION_NAMES


def test_the_csv_is_byte_for_byte_the_same_in_chinese_unless_translated_headers_are_asked_for(pit, catalogs):  # noqa: F811
    english = b"".join(csv_chunks(REPORTS["commission"], FILTERS))
    with translation.override("zh-hant"):
        chinese = b"".join(csv_chunks(REPORTS["commission"], FILTERS))
        translated = _csv("commission", headers="translated")
    assert chinese == english
    assert _csv("commission")[0] == COMMISSION_NAMES
    assert translated[0] == COMMISSION_HEADINGS
    assert translated[1:] == _csv("commission")[1:]  # the lines are the machines' in every language
    with pytest.raises(ValueError, match="headers is one of machine, translated"):
        csv_header_names(REPORTS["commission"], "chinese")


def test_table_results_bridging_lines_stay_english_in_csv_and_json(pit, zh_hant):
    rows = _csv("table-results")
    bridge = [row for row in rows if row[0] == BRIDGE]
    assert bridge, "MB1 deducts commission from payouts: the report bridges to the commission report"
    assert bridge[0][2] == "Commission in this report (by the coup's gaming day)"
    body = json.loads(b"".join(json_chunks(REPORTS["table-results"], FILTERS)))
    assert body["title"] == "賭枱結果"
    assert [column["key"] for column in body["columns"]][:3] == ["gaming_day", "table", "game"]
    assert [column["label"] for column in body["columns"]][:3] == ["遊戲日", "賭枱", "遊戲"]
    assert body["rows"][-1]["line"] == "bridge"
    assert "Unexplained difference" in {row.get("table") for row in body["rows"]}


def test_the_workbook_is_in_traditional_chinese(pit, zh_hant):
    book = _xlsx("commission")
    sheet = book.worksheets[0]
    assert sheet.title == "佣金"
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == COMMISSION_HEADINGS
    kinds = {row[0] for row in rows[1:]}
    assert {"明細", "賭枱小計", "牌靴小計", "合計"} <= kinds
    assert not kinds & {"detail", "total", "shoe subtotal", "table subtotal"}
    sections = {row[1] for row in rows[1:]} - {None}
    assert "已結束的牌靴" in sections and sections <= {"已結束的牌靴", "仍在派牌"}
    assert book.worksheets[-1].title == "紀錄鏈頭"
    results = list(_xlsx("table-results").worksheets[0].iter_rows(values_only=True))
    bridge = [row for row in results if row[0] == "對照"]
    assert [row[2] for row in bridge][:2] == [
        "本報表的佣金（按局的遊戲日）",
        "減：已從派彩扣除的佣金（從不計入佣金帳目）",
    ]
    assert bridge[-1][2] == "未解釋的差額"


def test_the_pdf_is_in_traditional_chinese_in_a_chinese_font(pit, zh_hant):
    out = io.BytesIO()
    pdf_write(REPORTS["commission"], FILTERS, out)
    assert b"/BaseFont /MSung-Light" in out.getvalue()
    pages = [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(out.getvalue())).pages]
    whole = "".join("\n".join(pages).split())
    assert whole.startswith("佣金,遊戲日2026-11-02至2026-11-03")
    for heading in ("合計", "明細行", "紀錄鏈頭", "簽署", "編製人", "覆核人", "核准人（簽署）", "第1頁，共"):
        assert heading in whole
    for english in ("Totals", "Lines", "Record heads", "Sign-off", "Prepared by", "page 1 of"):
        assert english not in whole
    with translation.override("en-us"):
        english = io.BytesIO()
        pdf_write(REPORTS["commission"], FILTERS, english)
    assert b"MSung-Light" not in english.getvalue()


def test_the_reports_page_reads_in_chinese(client, pit):
    client.force_login(pit.accountant)
    with translation.override("zh-hant"):
        page = client.get(PAGE, {"report": "commission", **RANGE}, **ZH).content.decode()
    assert "<h2>佣金, 2026-11-02 至 2026-11-03</h2>" in page
    assert "<th>合計</th>" in page and "<th>行</th>" in page
    assert "顯示合計" in page and "CSV 標題" in page
    assert ">明細<" in page and "Show totals" not in page


def test_the_export_view_gives_translated_headers_when_asked(client, pit):
    client.force_login(pit.accountant)
    with translation.override("zh-hant"):
        plain = client.get(EXPORT, {"report": "commission", **RANGE, "format": "csv"}, **ZH)
        translated = client.get(
            EXPORT, {"report": "commission", **RANGE, "format": "csv", "headers": "translated"}, **ZH
        )
    first = b"".join(plain.streaming_content).decode().removeprefix("\ufeff").splitlines()[0]
    assert next(csv.reader([first])) == COMMISSION_NAMES
    first = b"".join(translated.streaming_content).decode().removeprefix("\ufeff").splitlines()[0]
    assert next(csv.reader([first])) == COMMISSION_HEADINGS


def test_a_background_export_is_written_in_the_language_it_was_asked_in(pit, catalogs, settings, tmp_path):  # noqa: F811
    settings.MEDIA_ROOT = str(tmp_path)
    with translation.override("zh-hant"):
        export = report_export_request(
            report=REPORTS["commission"], filters=FILTERS, format="xlsx", user=pit.accountant
        )
        csv_export = report_export_request(
            report=REPORTS["commission"], filters=FILTERS, format="csv", user=pit.accountant, headers="translated"
        )
    assert (export.language, export.headers, csv_export.headers) == ("zh-hant", "machine", "translated")
    with translation.override("en-us"):  # the worker runs in no reader's language
        done = report_export_run(export_id=export.pk)
        done_csv = report_export_run(export_id=csv_export.pk)
    assert done.status == ExportStatus.DONE
    book = openpyxl.load_workbook(tmp_path / done.file)
    assert book.worksheets[0].title == "佣金"
    assert [cell.value for cell in next(book.worksheets[0].iter_rows(max_row=1))] == COMMISSION_HEADINGS
    header = (tmp_path / done_csv.file).read_text(encoding="utf-8-sig").splitlines()[0]
    assert next(csv.reader([header])) == COMMISSION_HEADINGS
    assert ReportExport.objects.filter(language="zh-hant").count() == 2


def test_lines_and_totals_keep_their_order_in_every_language(pit, catalogs):  # noqa: F811
    english = [line.kind for line in report_lines(REPORTS["commission"], FILTERS)]
    with translation.override("zh-hant"):
        chinese = [line.kind for line in report_lines(REPORTS["commission"], FILTERS)]
    assert chinese == english


@pytest.mark.parametrize("slug", sorted(REPORTS))
def test_every_reports_csv_and_json_are_the_same_in_every_language(slug, pit, catalogs):  # noqa: F811
    definition = REPORTS[slug]
    english_csv = b"".join(csv_chunks(definition, FILTERS))
    english_json = json.loads(b"".join(json_chunks(definition, FILTERS)))
    for language in ("zh-hant", "zh-hans"):
        with translation.override(language):
            assert b"".join(csv_chunks(definition, FILTERS)) == english_csv, language
            body = json.loads(b"".join(json_chunks(definition, FILTERS)))
        assert body["rows"] == english_json["rows"] and body["totals"] == english_json["totals"], language
        assert [column["key"] for column in body["columns"]] == [column["key"] for column in english_json["columns"]]
        assert body["title"] != english_json["title"], language


def test_the_master_game_reports_text_values_read_in_chinese_in_the_workbook(pit, zh_hant):
    rows = list(_xlsx("master-game").worksheets[0].iter_rows(values_only=True))
    assert rows[0][:6] == ("行", "遊戲日", "貨幣", "遊戲", "賭枱", "紀錄")
    records = {row[5] for row in rows[1:] if row[0] == "明細"}
    assert records and all(text == "完整" or text.startswith("缺少") for text in records), records
    assert any(str(row[5]).startswith("完整的") for row in rows[1:] if row[0] != "明細")
