"""The reports, each defined once: columns, the selector behind its rows, subtotals and totals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from pit.core.money import from_minor
from pit.game.money import decimal_sqrt

from . import csv_copy, selectors
from .accounting import ACCOUNTING_REPORTS
from .cash import CASH_REPORTS
from .controls import CONTROL_REPORTS
from .definitions import Column, ColumnOptions, Level, ReportDefinition, Total, ratio, variance_words
from .definitions import ColumnType as T
from .notices import NOTICE_REPORTS
from .progressives import PROGRESSIVE_LIABILITY
from .ratings import RATINGS_REPORTS

# Who may run a report (see pit.reports.permissions): accountants and auditors run everything;
# pit bosses also see what they answer for on the floor (table results, violations).
ACCOUNTING = "accounting"
FLOOR = "floor"


def _deviations(sums: dict[str, Any]) -> Decimal | None:
    """Standard deviations of a group: (win - theoretical) / sqrt(sum of the rows' variances)."""
    variance = sums.get("variance_major")
    if not variance:
        return None
    return (sums["house_win"] - sums["theoretical_win"]) / decimal_sqrt(Decimal(variance))


def _deviation(sums: dict[str, Any]) -> Decimal | None:
    variance = sums.get("variance_major")
    if variance is None:
        return None
    scale = sums["house_win"].as_tuple().exponent
    return decimal_sqrt(Decimal(variance)).quantize(Decimal(1).scaleb(scale))


def _over_short(sums: dict[str, Any]) -> str:
    """A subtotal's or total's variance in words (pit.core.money.VARIANCE_RULE): over, short, balanced."""
    return variance_words(sums.get("variance"))


def _reconciliation_link(row: dict[str, Any]) -> str | None:
    """A commission row leads to its shoe's reconciliation in the admin."""
    if not row.get("reconciliation_id"):
        return None
    return reverse("admin:ledger_reconciliation_change", args=[row["reconciliation_id"]])


def _shoes_link(row: dict[str, Any]) -> str | None:
    """A table-day leads to the shoes of that table dealt on that gaming day."""
    if not row.get("table_id"):
        return None
    query = urlencode({"table__id__exact": row["table_id"], "dealt_on": row["gaming_day"].isoformat()})
    return f"{reverse('admin:shoes_shoe_changelist')}?{query}"


def _commission_bridge(filters, totals) -> Iterator[dict[str, Any]]:
    """Per currency where they differ: this report's accrued (by the shoe's gaming day) bridged to
    the commission on the coups of the range (table results' commission less what was deducted from
    payouts). See `selectors.commission_crossing`."""
    crossing = selectors.commission_crossing(filters)
    if not any(any(amounts) for amounts in crossing.values()):
        return
    accrued: dict[str, Decimal] = defaultdict(Decimal)
    for keys, sums in totals:
        accrued[keys["currency"]] += sums.get("accrued") or 0
    by_coup_day = selectors.commission_by_coup_day(filters)
    for currency, (moved_out, moved_in) in sorted(crossing.items()):
        if not (moved_in or moved_out):
            continue
        steps = [
            (_("Accrued in this report (by the shoe's gaming day)"), accrued[currency]),
            (_("less: on coups dealt on a day outside the range"), from_minor(-moved_in, currency)),
            (_("plus: on coups in the range of shoes filed on another day"), from_minor(moved_out, currency)),
        ]
        result = from_minor(by_coup_day.get(currency, 0), currency)
        yield from _bridge_lines(
            steps,
            (_("Equals: on the coups of the range (table results' commission less deducted)"), result),
            currency,
            text_column="explanation",
            amount="accrued",
            heading={"section": _("Bridge to table results")},
        )


def _table_results_bridge(filters, totals) -> Iterator[dict[str, Any]]:
    """Per currency where they differ: this report's commission (by the coup's gaming day) bridged to
    the commission report's accrued (by the shoe's gaming day). See `selectors.commission_crossing`."""
    crossing = selectors.commission_crossing(filters)
    differ = [
        (keys["currency"], sums)
        for keys, sums in totals
        if any(crossing.get(keys["currency"], ())) or sums.get("commission_deducted")
    ]
    if not differ:
        return
    by_shoe_day = selectors.commission_by_shoe_day(filters)
    for currency, sums in differ:
        moved_out, moved_in = crossing.get(currency, (0, 0))
        steps = [
            (_("Commission in this report (by the coup's gaming day)"), sums.get("commission") or 0),
            (
                _("less: deducted from payouts (never in the commission ledger)"),
                -(sums.get("commission_deducted") or 0),
            ),
            (_("less: on coups of shoes the commission report files on another day"), from_minor(-moved_out, currency)),
            (_("plus: on coups outside the range of shoes it files in the range"), from_minor(moved_in, currency)),
        ]
        result = from_minor(by_shoe_day.get(currency, 0), currency)
        yield from _bridge_lines(
            steps,
            (_("Equals: accrued in the commission report (by the shoe's gaming day)"), result),
            currency,
            text_column="table",
            amount="commission",
            heading={},
        )


def _bridge_lines(steps, result, currency, *, text_column, amount, heading) -> Iterator[dict[str, Any]]:
    """The steps, the figure they lead to (read apart), and what is left unexplained (0 when the
    reports tie)."""
    for text, value in (*steps, result, (_("Unexplained difference"), sum(v for _text, v in steps) - result[1])):
        yield {**heading, text_column: text, "currency": currency, amount: value}


COMMISSION = ReportDefinition(
    slug="commission",
    title=_("Commission"),
    description=_(
        "Per table, shoe and seat: commission accrued on winning Banker wagers, collected when the player "
        "left, expected in the box, counted at the shuffle, the variance and how it was explained. Closed "
        "shoes first, then shoes still dealing, each section with its own totals."
    ),
    columns=(
        Column("section", _("Section"), T.TEXT, Total.CARRY, width=14),
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("table", _("Table"), T.TEXT, Total.CARRY, width=10),
        Column("game", _("Game"), T.TEXT, Total.CARRY, width=14),
        Column("shoe", _("Shoe"), T.INTEGER, Total.CARRY, width=7),
        Column("seat", _("Seat"), T.INTEGER, width=6),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("commission_wagers", _("Commission wagers (accruals not reversed)"), T.INTEGER, Total.SUM, width=12),
        Column("accrued", _("Accrued"), T.MONEY, Total.SUM, width=14),
        Column(
            "reversed",
            _("Accruals reversed: corrections, voids, comps (netted in accrued)"),
            T.MONEY,
            Total.SUM,
            width=12,
        ),
        Column("collected_at_departure", _("Collected at departure"), T.MONEY, Total.SUM, width=14),
        Column("expected", _("Expected in box"), T.MONEY, Total.SUM, width=14),
        Column("counted", _("Counted"), T.MONEY, Total.SUM, width=14),
        Column("variance", _("Variance (counted - expected)"), T.MONEY, Total.SUM, width=12),
        Column("over_short", _("Over / short"), T.TEXT, _over_short, width=9),
        Column("collected_at_shuffle", _("Collected at shuffle"), T.MONEY, Total.SUM, width=14),
        Column("status", _("Reconciliation"), T.TEXT, Total.CARRY, width=18),
        Column("explained_by", _("Explained by"), T.TEXT, Total.CARRY, width=14),
        Column("explanation", _("Explanation"), T.TEXT, Total.CARRY, width=40),
    ),
    rows=selectors.commission_rows,
    estimate=selectors.commission_estimate,
    levels=(
        # A section holds two currencies: its totals are the total lines (see total_keys).
        Level("table", ("section", "table"), _("Table")),
        Level(
            "shoe",
            ("gaming_day", "shoe", "game", "currency", "status", "explained_by", "explanation"),
            _("Shoe"),
        ),
    ),
    filters_used=("tables", "game", "only_variances"),
    audience=ACCOUNTING,
    # Shoes still dealing are totalled apart: nothing of theirs was counted yet.
    total_keys=("section", "currency"),
    link=_reconciliation_link,
    bridge=_commission_bridge,
    pdf_columns=(
        "section",
        "gaming_day",
        "table",
        "shoe",
        "seat",
        "currency",
        "commission_wagers",
        "accrued",
        "reversed",
        "collected_at_departure",
        "expected",
        "counted",
        "variance",
        "over_short",
        "status",
        "explanation",
    ),
)

COMMISSION_DETAIL = ReportDefinition(
    slug="commission-detail",
    title=_("Commission ledger detail"),
    description=_(
        "Every commission ledger entry of the shoes in range: each accrual with its coup and wager, each "
        "collection and each reversal; subtotals per shoe and table."
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("table", _("Table"), T.TEXT, Total.CARRY, width=10),
        Column("shoe", _("Shoe"), T.INTEGER, Total.CARRY, width=7),
        Column("seat", _("Seat"), T.INTEGER, width=6),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("entry", _("Entry"), T.INTEGER, width=10),
        Column("kind", _("Kind"), T.TEXT, width=10),
        Column("reason", _("Collection reason"), T.TEXT, width=12),
        Column("reverses", _("Reverses entry"), T.INTEGER, width=10),
        Column("coup", _("Coup"), T.INTEGER, width=7),
        Column("bet", _("Bet"), T.TEXT, width=8),
        Column("stake", _("Stake"), T.MONEY, width=12),
        Column("amount", _("Amount owed (+) / collected (-)"), T.MONEY, Total.SUM, width=14),
        Column("recorded_at", _("Recorded at"), T.DATETIME, width=20),
        Column("note", _("Note"), T.TEXT, width=30),
    ),
    rows=selectors.commission_detail_rows,
    estimate=selectors.commission_detail_estimate,
    levels=(Level("table", ("table",), _("Table")), Level("shoe", ("gaming_day", "shoe", "currency"), _("Shoe"))),
    audience=ACCOUNTING,
    csv_lines=csv_copy.commission_detail_csv_lines,
)

_money_sum: ColumnOptions = {"type": T.MONEY, "total": Total.SUM, "width": 14}

TABLE_RESULTS = ReportDefinition(
    slug="table-results",
    title=_("Table results"),
    description=_(
        "Per gaming day and table: coups, handle per bet, payouts owed by the paytable and what the floor "
        "reported it paid (mispaid over and under apart), commission as the ledger stands (deducted "
        "commission shown as commission, reversals netted), house win, hold, theoretical win (handle x the "
        "exact house edge of each bet under its paytable version and the shoe's deck count) and how many "
        "standard deviations the actual win lies from it; open violations."
    ),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("table", _("Table"), T.TEXT, width=10),
        Column("game", _("Game"), T.TEXT, width=14),
        Column("currency", _("Currency"), T.TEXT, Total.CARRY, width=9),
        Column("coups", _("Coups"), T.INTEGER, Total.SUM, width=8),
        Column("wagers", _("Wagers"), T.INTEGER, Total.SUM, width=9),
        Column("handle_player", _("Handle Player"), **_money_sum),
        Column("handle_banker", _("Handle Banker"), **_money_sum),
        Column("handle_tie", _("Handle Tie"), **_money_sum),
        Column("handle_player_pair", _("Handle Player Pair"), **_money_sum),
        Column("handle_banker_pair", _("Handle Banker Pair"), **_money_sum),
        Column("handle_other", _("Handle other bets"), **_money_sum),
        Column("handle", _("Handle"), **_money_sum),
        Column("payouts", _("Payouts (paytable, before commission)"), **_money_sum),
        Column("paid", _("Paid as reported"), **_money_sum),
        Column("overpaid", _("Mispaid over"), **_money_sum),
        Column("underpaid", _("Mispaid under"), **_money_sum),
        Column("commission", _("Commission (net of reversals)"), **_money_sum),
        Column("commission_deducted", _("of which deducted from payouts"), **_money_sum),
        # Reversals of wagers that still stand (comps): a corrected or voided wager's commission is
        # out of its coup's figures already. The commission report's "accruals reversed" has both.
        Column("commission_reversed", _("Reversed on wagers that stand (netted in commission)"), **_money_sum),
        Column("lost", _("Stakes lost"), **_money_sum),
        Column("house_win", _("House win"), **_money_sum),
        Column("hold", _("Hold %"), T.PERCENTAGE, ratio("house_win", "handle"), width=9, places=4),
        Column("theoretical_win", _("Theoretical win"), **_money_sum),
        Column("win_minus_theoretical", _("Win - theoretical"), **_money_sum),
        Column("standard_deviation", _("Standard deviation"), T.MONEY, _deviation, width=14),
        Column("variance_major", _("Variance"), T.DECIMAL, Total.SUM, hidden=True),
        Column("deviations", _("Std devs from theoretical"), T.DECIMAL, _deviations, width=12),
        Column("open_violations", _("Open violations"), T.INTEGER, Total.SUM, width=10),
    ),
    rows=selectors.table_results,
    estimate=selectors.table_results_estimate,
    levels=(Level("day", ("gaming_day", "currency"), _("Gaming day")),),
    audience=FLOOR,
    link=_shoes_link,
    bridge=_table_results_bridge,
)

VIOLATIONS = ReportDefinition(
    slug="violations",
    title=_("Violations"),
    description=_("Rule violations per gaming day, table and code, counted by review status."),
    columns=(
        Column("gaming_day", _("Gaming day"), T.DATE, Total.CARRY, width=12),
        Column("table", _("Table"), T.TEXT, Total.CARRY, width=10),
        Column("game", _("Game"), T.TEXT, Total.CARRY, width=14),
        Column("code", _("Code"), T.TEXT, width=24),
        Column("severity", _("Severity"), T.TEXT, width=9),
        Column("open", _("Open"), T.INTEGER, Total.SUM, width=8),
        Column("acknowledged", _("Acknowledged"), T.INTEGER, Total.SUM, width=12),
        Column("resolved", _("Resolved"), T.INTEGER, Total.SUM, width=9),
        Column("dismissed", _("Dismissed"), T.INTEGER, Total.SUM, width=9),
        Column("cleared", _("Cleared by a re-check"), T.INTEGER, Total.SUM, width=10),
        Column("total", _("Total"), T.INTEGER, Total.SUM, width=8),
    ),
    rows=selectors.violation_rows,
    estimate=selectors.violations_estimate,
    levels=(Level("day", ("gaming_day",), _("Gaming day")), Level("table", ("table", "game"), _("Table"))),
    audience=FLOOR,
)

# The progressive liability beside the commission report: what the house owes the meters' next hits.
REPORTS: dict[str, ReportDefinition] = {
    report.slug: report for report in (COMMISSION, PROGRESSIVE_LIABILITY, COMMISSION_DETAIL, TABLE_RESULTS, VIOLATIONS)
}

REPORTS.update({report.slug: report for report in ACCOUNTING_REPORTS})
REPORTS.update({report.slug: report for report in RATINGS_REPORTS})
REPORTS.update({report.slug: report for report in CASH_REPORTS})
REPORTS.update({report.slug: report for report in CONTROL_REPORTS})
REPORTS.update({report.slug: report for report in NOTICE_REPORTS})
