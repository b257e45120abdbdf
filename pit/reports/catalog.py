"""The reports, each defined once: columns, the selector behind its rows, subtotals and totals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from pit.core.money import from_minor, variance_label
from pit.game.money import decimal_sqrt

from . import csv_copy, selectors
from .accounting import ACCOUNTING_REPORTS
from .cash import CASH_REPORTS
from .controls import CONTROL_REPORTS
from .definitions import Column, ColumnOptions, Level, ReportDefinition, Total, ratio
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
    return variance_label(sums.get("variance"))


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
            ("Accrued in this report (by the shoe's gaming day)", accrued[currency]),
            ("less: on coups dealt on a day outside the range", from_minor(-moved_in, currency)),
            ("plus: on coups in the range of shoes filed on another day", from_minor(moved_out, currency)),
        ]
        result = from_minor(by_coup_day.get(currency, 0), currency)
        yield from _bridge_lines(
            steps,
            ("Equals: on the coups of the range (table results' commission less deducted)", result),
            currency,
            label="explanation",
            amount="accrued",
            heading={"section": "Bridge to table results"},
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
            ("Commission in this report (by the coup's gaming day)", sums.get("commission") or 0),
            ("less: deducted from payouts (never in the commission ledger)", -(sums.get("commission_deducted") or 0)),
            ("less: on coups of shoes the commission report files on another day", from_minor(-moved_out, currency)),
            ("plus: on coups outside the range of shoes it files in the range", from_minor(moved_in, currency)),
        ]
        result = from_minor(by_shoe_day.get(currency, 0), currency)
        yield from _bridge_lines(
            steps,
            ("Equals: accrued in the commission report (by the shoe's gaming day)", result),
            currency,
            label="table",
            amount="commission",
            heading={},
        )


def _bridge_lines(steps, result, currency, *, label, amount, heading) -> Iterator[dict[str, Any]]:
    """The steps, the figure they lead to (read apart), and what is left unexplained (0 when the
    reports tie)."""
    for text, value in (*steps, result, ("Unexplained difference", sum(v for _, v in steps) - result[1])):
        yield {**heading, label: text, "currency": currency, amount: value}


COMMISSION = ReportDefinition(
    slug="commission",
    title="Commission",
    description=(
        "Per table, shoe and seat: commission accrued on winning Banker wagers, collected when the player "
        "left, expected in the box, counted at the shuffle, the variance and how it was explained. Closed "
        "shoes first, then shoes still dealing, each section with its own totals."
    ),
    columns=(
        Column("section", "Section", T.TEXT, Total.CARRY, width=14),
        Column("gaming_day", "Gaming day", T.DATE, Total.CARRY, width=12),
        Column("table", "Table", T.TEXT, Total.CARRY, width=10),
        Column("game", "Game", T.TEXT, Total.CARRY, width=14),
        Column("shoe", "Shoe", T.INTEGER, Total.CARRY, width=7),
        Column("seat", "Seat", T.INTEGER, width=6),
        Column("currency", "Currency", T.TEXT, Total.CARRY, width=9),
        Column("commission_wagers", "Commission wagers (accruals not reversed)", T.INTEGER, Total.SUM, width=12),
        Column("accrued", "Accrued", T.MONEY, Total.SUM, width=14),
        Column(
            "reversed",
            "Accruals reversed: corrections, voids, comps (netted in accrued)",
            T.MONEY,
            Total.SUM,
            width=12,
        ),
        Column("collected_at_departure", "Collected at departure", T.MONEY, Total.SUM, width=14),
        Column("expected", "Expected in box", T.MONEY, Total.SUM, width=14),
        Column("counted", "Counted", T.MONEY, Total.SUM, width=14),
        Column("variance", "Variance (counted - expected)", T.MONEY, Total.SUM, width=12),
        Column("over_short", "Over / short", T.TEXT, _over_short, width=9),
        Column("collected_at_shuffle", "Collected at shuffle", T.MONEY, Total.SUM, width=14),
        Column("status", "Reconciliation", T.TEXT, Total.CARRY, width=18),
        Column("explained_by", "Explained by", T.TEXT, Total.CARRY, width=14),
        Column("explanation", "Explanation", T.TEXT, Total.CARRY, width=40),
    ),
    rows=selectors.commission_rows,
    estimate=selectors.commission_estimate,
    levels=(
        # A section holds two currencies: its totals are the total lines (see total_keys).
        Level("table", ("section", "table"), "Table"),
        Level(
            "shoe",
            ("gaming_day", "shoe", "game", "currency", "status", "explained_by", "explanation"),
            "Shoe",
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
    title="Commission ledger detail",
    description=(
        "Every commission ledger entry of the shoes in range: each accrual with its coup and wager, each "
        "collection and each reversal; subtotals per shoe and table."
    ),
    columns=(
        Column("gaming_day", "Gaming day", T.DATE, Total.CARRY, width=12),
        Column("table", "Table", T.TEXT, Total.CARRY, width=10),
        Column("shoe", "Shoe", T.INTEGER, Total.CARRY, width=7),
        Column("seat", "Seat", T.INTEGER, width=6),
        Column("currency", "Currency", T.TEXT, Total.CARRY, width=9),
        Column("entry", "Entry", T.INTEGER, width=10),
        Column("kind", "Kind", T.TEXT, width=10),
        Column("reason", "Collection reason", T.TEXT, width=12),
        Column("reverses", "Reverses entry", T.INTEGER, width=10),
        Column("coup", "Coup", T.INTEGER, width=7),
        Column("bet", "Bet", T.TEXT, width=8),
        Column("stake", "Stake", T.MONEY, width=12),
        Column("amount", "Amount owed (+) / collected (-)", T.MONEY, Total.SUM, width=14),
        Column("recorded_at", "Recorded at", T.DATETIME, width=20),
        Column("note", "Note", T.TEXT, width=30),
    ),
    rows=selectors.commission_detail_rows,
    estimate=selectors.commission_detail_estimate,
    levels=(Level("table", ("table",), "Table"), Level("shoe", ("gaming_day", "shoe", "currency"), "Shoe")),
    audience=ACCOUNTING,
    csv_lines=csv_copy.commission_detail_csv_lines,
)

_money_sum: ColumnOptions = {"type": T.MONEY, "total": Total.SUM, "width": 14}

TABLE_RESULTS = ReportDefinition(
    slug="table-results",
    title="Table results",
    description=(
        "Per gaming day and table: coups, handle per bet, payouts owed by the paytable and what the floor "
        "reported it paid (mispaid over and under apart), commission as the ledger stands (deducted "
        "commission shown as commission, reversals netted), house win, hold, theoretical win (handle x the "
        "exact house edge of each bet under its paytable version and the shoe's deck count) and how many "
        "standard deviations the actual win lies from it; open violations."
    ),
    columns=(
        Column("gaming_day", "Gaming day", T.DATE, Total.CARRY, width=12),
        Column("table", "Table", T.TEXT, width=10),
        Column("game", "Game", T.TEXT, width=14),
        Column("currency", "Currency", T.TEXT, Total.CARRY, width=9),
        Column("coups", "Coups", T.INTEGER, Total.SUM, width=8),
        Column("wagers", "Wagers", T.INTEGER, Total.SUM, width=9),
        Column("handle_player", "Handle Player", **_money_sum),
        Column("handle_banker", "Handle Banker", **_money_sum),
        Column("handle_tie", "Handle Tie", **_money_sum),
        Column("handle_player_pair", "Handle Player Pair", **_money_sum),
        Column("handle_banker_pair", "Handle Banker Pair", **_money_sum),
        Column("handle_other", "Handle other bets", **_money_sum),
        Column("handle", "Handle", **_money_sum),
        Column("payouts", "Payouts (paytable, before commission)", **_money_sum),
        Column("paid", "Paid as reported", **_money_sum),
        Column("overpaid", "Mispaid over", **_money_sum),
        Column("underpaid", "Mispaid under", **_money_sum),
        Column("commission", "Commission (net of reversals)", **_money_sum),
        Column("commission_deducted", "of which deducted from payouts", **_money_sum),
        # Reversals of wagers that still stand (comps): a corrected or voided wager's commission is
        # out of its coup's figures already. The commission report's "accruals reversed" has both.
        Column("commission_reversed", "Reversed on wagers that stand (netted in commission)", **_money_sum),
        Column("lost", "Stakes lost", **_money_sum),
        Column("house_win", "House win", **_money_sum),
        Column("hold", "Hold %", T.PERCENTAGE, ratio("house_win", "handle"), width=9, places=4),
        Column("theoretical_win", "Theoretical win", **_money_sum),
        Column("win_minus_theoretical", "Win - theoretical", **_money_sum),
        Column("standard_deviation", "Standard deviation", T.MONEY, _deviation, width=14),
        Column("variance_major", "Variance", T.DECIMAL, Total.SUM, hidden=True),
        Column("deviations", "Std devs from theoretical", T.DECIMAL, _deviations, width=12),
        Column("open_violations", "Open violations", T.INTEGER, Total.SUM, width=10),
    ),
    rows=selectors.table_results,
    estimate=selectors.table_results_estimate,
    levels=(Level("day", ("gaming_day", "currency"), "Gaming day"),),
    audience=FLOOR,
    link=_shoes_link,
    bridge=_table_results_bridge,
)

VIOLATIONS = ReportDefinition(
    slug="violations",
    title="Violations",
    description="Rule violations per gaming day, table and code, counted by review status.",
    columns=(
        Column("gaming_day", "Gaming day", T.DATE, Total.CARRY, width=12),
        Column("table", "Table", T.TEXT, Total.CARRY, width=10),
        Column("game", "Game", T.TEXT, Total.CARRY, width=14),
        Column("code", "Code", T.TEXT, width=24),
        Column("severity", "Severity", T.TEXT, width=9),
        Column("open", "Open", T.INTEGER, Total.SUM, width=8),
        Column("acknowledged", "Acknowledged", T.INTEGER, Total.SUM, width=12),
        Column("resolved", "Resolved", T.INTEGER, Total.SUM, width=9),
        Column("dismissed", "Dismissed", T.INTEGER, Total.SUM, width=9),
        Column("cleared", "Cleared by a re-check", T.INTEGER, Total.SUM, width=10),
        Column("total", "Total", T.INTEGER, Total.SUM, width=8),
    ),
    rows=selectors.violation_rows,
    estimate=selectors.violations_estimate,
    levels=(Level("day", ("gaming_day",), "Gaming day"), Level("table", ("table", "game"), "Table")),
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
