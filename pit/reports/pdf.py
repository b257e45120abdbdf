"""A report as a PDF for sign-off (reportlab): the heading and filters, the totals, every line of
the report (details, subtotals, totals, bridges) in the columns its definition prints
(`ReportDefinition.pdf_columns`), each gaming day's record heads (pit.records) and the signature
lines; "page i of n" on every page.

The cells are the reports page's (`renderers.display_text`): the same figures as CSV, JSON and
XLSX, money with its symbol, percentages by the one rounding rule. Only reports that name their
PDF columns print (`pdf_reports`). Written in the active language: in Chinese with reportlab's
built-in CID fonts (MSung-Light for Traditional, STSong-Light for Simplified; no font file needed).
"""

from __future__ import annotations

from typing import IO, Any

from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas
from reportlab.platypus import KeepTogether, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from pit.records.selectors import record_heads

from .definitions import DETAIL, Column, ColumnType, ReportDefinition, ReportFilters, line_label, report_lines
from .renderers import display_text, report_summary

PAGE = landscape(A4)
MARGIN = 12 * mm
# In English, marked: printed in the reader's language.
SIGNATURES = (gettext_noop("Prepared by"), gettext_noop("Reviewed by"), gettext_noop("Approved by (sign-off)"))
# Chinese text in reportlab's CID fonts (Helvetica has no Chinese glyphs); bold is the same face.
CID_FONTS = {"zh-hant": "MSung-Light", "zh-hans": "STSong-Light"}


def _fonts() -> tuple[str, str]:
    """The regular and bold fonts for the active language."""
    language = (translation.get_language() or "").lower()
    for prefix, name in CID_FONTS.items():
        if language.startswith(prefix) or (prefix == "zh-hans" and language.startswith("zh")):
            if name not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(UnicodeCIDFont(name))
            return name, name
    return "Helvetica", "Helvetica-Bold"


_NUMBERS = frozenset({ColumnType.MONEY, ColumnType.INTEGER, ColumnType.DECIMAL, ColumnType.PERCENTAGE})


def pdf_reports(reports: dict[str, ReportDefinition]) -> list[ReportDefinition]:
    """The reports that print as a PDF: those whose definition names its PDF columns."""
    return [report for report in reports.values() if report.pdf_columns]


class _NumberedCanvas(canvas.Canvas):
    """A canvas that writes "page i of n" on each page once it knows n (pages are kept until save)."""

    def __init__(self, *args: Any, footer: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: list[dict[str, Any]] = []
        self._footer = footer

    def showPage(self) -> None:  # noqa: N802 - reportlab's name
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._pages)
        for number, state in enumerate(self._pages, start=1):
            self.__dict__.update(state)
            self.setFont(_fonts()[0], 8)
            self.drawString(MARGIN, 7 * mm, self._footer)
            self.drawRightString(
                PAGE[0] - MARGIN, 7 * mm, _("page %(number)s of %(total)s") % {"number": number, "total": total}
            )
            super().showPage()
        super().save()


def _styles() -> dict[str, ParagraphStyle]:
    sheet = getSampleStyleSheet()
    regular, bold = _fonts()
    if regular == "Helvetica":
        title, heading, body = sheet["Title"], sheet["Heading2"], sheet["BodyText"]
    else:
        title = ParagraphStyle("title-cjk", parent=sheet["Title"], fontName=bold)
        heading = ParagraphStyle("heading-cjk", parent=sheet["Heading2"], fontName=bold)
        body = ParagraphStyle("body-cjk", parent=sheet["BodyText"], fontName=regular, wordWrap="CJK")
    return {
        "title": title,
        "heading": heading,
        "body": body,
        "cell": ParagraphStyle("cell", parent=body, fontSize=6.5, leading=8),
        "mono": ParagraphStyle("mono", parent=sheet["BodyText"], fontName="Courier", fontSize=7, leading=9),
    }


def _grid(rows: list[list[Any]], widths: list[float], numbers: set[int], bold_rows: list[int]) -> Table:
    table = Table(rows, colWidths=widths, repeatRows=1)
    regular, bold = _fonts()
    style = [
        ("FONT", (0, 0), (-1, -1), regular, 6.5),
        ("FONT", (0, 0), (-1, 0), bold, 6.5),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]
    style += [("ALIGN", (index, 1), (index, -1), "RIGHT") for index in sorted(numbers)]
    style += [("FONT", (0, row), (-1, row), bold, 6.5) for row in bold_rows]
    table.setStyle(TableStyle(style))
    return table


def _columns(definition: ReportDefinition) -> list[Column]:
    by_key = {column.key: column for column in definition.columns}
    return [by_key[key] for key in definition.pdf_columns]


def _lines_table(definition: ReportDefinition, filters: ReportFilters, styles) -> Table:
    columns = _columns(definition)
    usable = PAGE[0] - 2 * MARGIN
    weights = [12, *(max(column.width, 9) for column in columns)]
    widths = [usable * weight / sum(weights) for weight in weights]
    header = [Paragraph(f"<b>{_escape(_('Line'))}</b>", styles["cell"])] + [
        Paragraph(f"<b>{_escape(str(column.label))}</b>", styles["cell"]) for column in columns
    ]
    rows: list[list[Any]] = [header]
    bold = []
    for line in report_lines(definition, filters):
        currency = line.values.get("currency")
        cells: list[Any] = [line_label(line.kind)]
        for column in columns:
            text = display_text(column, line.values.get(column.key), currency)
            cells.append(Paragraph(_escape(text), styles["cell"]) if column.type == ColumnType.TEXT else text)
        if line.kind != DETAIL:
            bold.append(len(rows))
        rows.append(cells)
    numbers = {index for index, column in enumerate(columns, start=1) if column.type in _NUMBERS}
    return _grid(rows, widths, numbers, bold)


def _totals_table(definition: ReportDefinition, filters: ReportFilters) -> Table | None:
    summary = report_summary(definition, filters)
    if not summary["totals"]:
        return None
    heads = [_("Totals")] + [
        ", ".join(part for part in (total["label"], total["currency"] or "") if part) for total in summary["totals"]
    ]
    rows = [heads, [_("Rows"), *(str(total["rows"]) for total in summary["totals"])]]
    rows += [[str(figure["label"]), *figure["cells"]] for figure in summary["figures"]]
    usable = PAGE[0] - 2 * MARGIN
    first = min(usable * 0.4, 90 * mm)
    rest = (usable - first) / max(len(heads) - 1, 1)
    return _grid(rows, [first, *([min(rest, 45 * mm)] * (len(heads) - 1))], set(range(1, len(heads))), [])


def _heads(filters: ReportFilters, styles) -> list[Any]:
    flow: list[Any] = [Paragraph(_escape(_("Record heads")), styles["heading"])]
    flow.append(
        Paragraph(
            _escape(
                _(
                    "Per gaming day: the digest over its shoes' hash-chain heads, then each shoe's chain length and "
                    "head (SHA-256). A later verify_records must find these heads at these lengths."
                )
            ),
            styles["body"],
        )
    )
    days = record_heads(first_day=filters.date_from, last_day=filters.date_to)
    if not days:
        flow.append(Paragraph(_escape(_("No shoe was dealt on these gaming days.")), styles["body"]))
    # The hashes stay in the monospaced face; the words around them are the body's.
    for day in days:
        words = _("%(day)s: day digest %(digest)s") % {"day": day["gaming_day"], "digest": day["digest"]}
        flow.append(Paragraph(_escape(words), styles["mono" if _fonts()[0] == "Helvetica" else "body"]))
        for shoe in day["shoes"]:
            words = _("%(table)s shoe %(shoe)s: %(rows)s rows, head %(head)s") % {
                "table": shoe["table"],
                "shoe": shoe["sequence"],
                "rows": shoe["rows"],
                "head": shoe["head"],
            }
            flow.append(
                Paragraph(f"&nbsp;&nbsp;{_escape(words)}", styles["mono" if _fonts()[0] == "Helvetica" else "body"])
            )
    return flow


def _signatures(styles) -> KeepTogether:
    rows = [["", _("Name"), _("Signature"), _("Date")]]
    rows += [[_(role), "", "", ""] for role in SIGNATURES]
    usable = PAGE[0] - 2 * MARGIN
    table = Table(
        rows, colWidths=[usable * 0.22, usable * 0.3, usable * 0.3, usable * 0.18], rowHeights=[14] + [26] * 3
    )
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), _fonts()[0], 9),
                ("FONT", (0, 0), (-1, 0), _fonts()[1], 9),
                ("LINEBELOW", (1, 1), (-1, -1), 0.5, colors.black),
                ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
            ]
        )
    )
    return KeepTogether([Paragraph(_escape(_("Sign-off")), styles["heading"]), table])


def _escape(text: Any) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _range(filters: ReportFilters) -> str:
    if filters.date_from == filters.date_to:
        return _("gaming day %(day)s") % {"day": filters.date_from.isoformat()}
    return _("gaming days %(from)s to %(to)s") % {
        "from": filters.date_from.isoformat(),
        "to": filters.date_to.isoformat(),
    }


def pdf_write(definition: ReportDefinition, filters: ReportFilters, out: IO[bytes] | str) -> None:
    """Write the report as a PDF for sign-off (see the module docstring)."""
    if not definition.pdf_columns:
        raise ValueError(f"{definition.slug} has no PDF columns: it does not print")
    styles = _styles()
    made = timezone.localtime().replace(microsecond=0)
    scope = ", ".join(
        part
        for part in (
            _("tables %(tables)s") % {"tables": ", ".join(filters.tables)} if filters.tables else _("every table"),
            _("game %(game)s") % {"game": filters.game} if filters.game else _("every game"),
            _("only variances") if filters.only_variances else "",
        )
        if part
    )
    flow: list[Any] = [
        Paragraph(_escape(f"{definition.title}, {_range(filters)}"), styles["title"]),
        Paragraph(_escape(_("%(scope)s; written %(at)s") % {"scope": scope, "at": made.isoformat()}), styles["body"]),
        Paragraph(_escape(definition.description), styles["body"]),
        Spacer(1, 4 * mm),
        Paragraph(_escape(_("Totals")), styles["heading"]),
    ]
    totals = _totals_table(definition, filters)
    nothing = Paragraph(_escape(_("Nothing to report for these filters.")), styles["body"])
    flow.append(totals if totals is not None else nothing)
    flow += [Paragraph(_escape(_("Lines")), styles["heading"]), _lines_table(definition, filters, styles)]
    flow += _heads(filters, styles)
    flow += [Spacer(1, 6 * mm), _signatures(styles)]
    footer = f"{definition.title}, {_range(filters)}"
    document = SimpleDocTemplate(
        out,
        pagesize=PAGE,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=14 * mm,
        title=f"{definition.title} {filters.date_from.isoformat()} {filters.date_to.isoformat()}",
        author="pit",
        invariant=1,
    )

    def make_canvas(*args: Any, **kwargs: Any) -> _NumberedCanvas:
        return _NumberedCanvas(*args, footer=footer, **kwargs)

    document.build(flow, canvasmaker=make_canvas)


def pdf_filename(definition: ReportDefinition, filters: ReportFilters) -> str:
    return f"{definition.slug}_{filters.date_from.isoformat()}_{filters.date_to.isoformat()}.pdf"


__all__ = ["pdf_filename", "pdf_reports", "pdf_write"]
