"""The PDFs for sign-off (the master game report and the commission report), read back page by
page with pypdf: the headings, the totals equal to the report's own figures (recomputed here from
the report's lines), each day's record-heads digest, the signature lines and "page i of n"."""

import io
import re

import pypdf
import pytest

from pit.core.money import format_money, to_minor
from pit.records.selectors import record_heads
from pit.reports.catalog import REPORTS
from pit.reports.definitions import TOTAL, ReportFilters, report_lines
from pit.reports.pdf import SIGNATURES, pdf_reports, pdf_write
from tests.reports.conftest import DAY_1, DAY_2

FILTERS = ReportFilters(DAY_1, DAY_2)


def pages(definition, filters=FILTERS) -> list[str]:
    out = io.BytesIO()
    pdf_write(definition, filters, out)
    assert out.getvalue().startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(out.getvalue()))
    return [page.extract_text() for page in reader.pages]


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_printable_reports_are_the_master_game_and_commission_reports():
    assert sorted(report.slug for report in pdf_reports(REPORTS)) == ["commission", "master-game"]
    for report in pdf_reports(REPORTS):
        keys = {column.key for column in report.visible_columns}
        assert set(report.pdf_columns) <= keys, report.slug  # a PDF column is a column of the report


@pytest.mark.parametrize("slug", ["commission", "master-game"])
def test_the_pdf_page_by_page(slug, pit):
    definition = REPORTS[slug]
    texts = pages(definition)
    count = len(texts)
    for number, text in enumerate(texts, start=1):
        assert f"page {number} of {count}" in text, f"page {number}"
        assert f"{definition.title}, gaming days 2026-11-02 to 2026-11-03" in text  # the footer
    whole = _flat("\n".join(texts))
    for heading in ("Totals", "Lines", "Record heads", "Sign-off", "every table, every game"):
        assert heading in whole
    assert whole.index("Totals") < whole.index("Lines") < whole.index("Record heads") < whole.index("Sign-off")
    for role in SIGNATURES:
        assert role in whole
    assert "Name Signature Date" in whole
    # Each gaming day's digest and each shoe's head, as pit.records gives them.
    days = record_heads(first_day=DAY_1, last_day=DAY_2)
    assert [day["gaming_day"] for day in days] == ["2026-11-02", "2026-11-03"]
    compact = "".join("\n".join(texts).split())  # a 64-hex digest may wrap
    for day in days:
        assert f"{day['gaming_day']}:daydigest{day['digest']}" in compact
        for shoe in day["shoes"]:
            assert shoe["head"] in compact
    # The totals: each figure of the report's total lines, in the page's money format.
    totals = [line.values for line in report_lines(definition, FILTERS) if line.kind == TOTAL]
    assert totals
    first_page = _flat(texts[0])
    for total in totals:
        for key in ("accrued", "expected", "counted", "variance") if slug == "commission" else ("win", "house_win"):
            if total.get(key) is not None:
                shown = format_money(to_minor(total[key], total["currency"]), total["currency"])
                assert shown in first_page, (key, shown)


def test_the_commission_totals_read_as_figures(pit):
    """The totals table of the commission PDF, figure by figure: closed shoes accrued 102.00 with
    a box 5.00 short (tests/reports/conftest.py's pit)."""
    first = _flat(pages(REPORTS["commission"])[0])
    assert re.search(r"Accrued \$[\d,.]+ \$", first) or "Accrued $102.00" in first
    assert "Variance (counted - expected) -$5.00" in first
    assert "Over / short short" in first


def test_a_report_without_pdf_columns_does_not_print(db):
    with pytest.raises(ValueError, match="does not print"):
        pdf_write(REPORTS["violations"], FILTERS, io.BytesIO())


def test_the_reports_page_downloads_the_pdf(client, pit, users):
    from django.urls import reverse

    from pit.accounts.models import Role

    client.force_login(users[Role.ACCOUNTANT])
    query = {"report": "master-game", "from": "2026-11-02", "to": "2026-11-03", "format": "pdf"}
    response = client.get(reverse("reports:export"), query)
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert 'filename="master-game_2026-11-02_2026-11-03.pdf"' in response["Content-Disposition"]
    body = b"".join(response.streaming_content)
    text = pypdf.PdfReader(io.BytesIO(body)).pages[0].extract_text()
    assert "Master game report, gaming days 2026-11-02 to 2026-11-03" in text
    refused = client.get(reverse("reports:export"), {**query, "report": "violations"})
    assert refused.status_code == 302 and "format" not in refused["Location"]
    page = client.get(reverse("reports:index")).content.decode()
    assert "Download PDF for sign-off" in page
