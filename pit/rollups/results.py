"""Table results: one row per gaming day and table (coups, handle per bet, payouts, commission,
house win, theoretical win and its standard deviation, open violations), from the detail. The daily
rollups store these figures; the table results report reads them here or from the rollups."""

from __future__ import annotations

import datetime as dt
import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db.models import BigIntegerField, Case, Count, F, Sum, Value, When
from django.db.models.functions import Coalesce

from pit import game
from pit.compliance.models import RuleViolation, ViolationStatus
from pit.core.db import bytewise, sum_of_squares
from pit.core.money import exponent, from_minor, settlement_unit, to_minor
from pit.game.money import decimal_sqrt
from pit.ledger.models import CommissionEntry, EntryKind
from pit.paytables.models import PaytableConfiguration
from pit.paytables.selectors import engine_paytable, paytable_edges
from pit.shoes.models import Coup, Wager, WagerResult
from pit.shoes.selectors import house_win_minor, standing_condition, wager_money_sums, wagers_standing
from pit.tables.models import GAME_NAMES

CHUNK = 2000  # rows per database round trip when streaming

# The bets the table results show a handle column for; any other bet goes to "other".
HANDLE_BETS = ("player", "banker", "tie", "player_pair", "banker_pair")


@dataclass(frozen=True)
class TableDays:
    """Which table-days: gaming days from `date_from` to `date_to`, of these table codes (empty:
    every table) and this game (empty: every game)."""

    date_from: dt.date
    date_to: dt.date
    tables: tuple[str, ...] = ()
    game: str = ""


def coup_scope(queryset, prefix: str, days: TableDays):
    """`queryset` narrowed to the table-days, its coup reached through `prefix` ("" for coups)."""
    queryset = queryset.filter(**{f"{prefix}gaming_day__range": (days.date_from, days.date_to)})
    if days.tables:
        queryset = queryset.filter(**{f"{prefix}shoe__table__code__in": days.tables})
    if days.game:
        queryset = queryset.filter(**{f"{prefix}shoe__table__game": days.game})
    return queryset


def open_violation_counts(days: TableDays) -> Iterator[tuple[tuple, int, dict[str, Any]]]:
    """The open violations per table-day, as entries of the merged streams `table_result_row` reads."""
    violations = RuleViolation.objects.filter(
        gaming_day__range=(days.date_from, days.date_to), status=ViolationStatus.OPEN, cleared_at__isnull=True
    )
    if days.tables:
        violations = violations.filter(table__code__in=days.tables)
    if days.game:
        violations = violations.filter(table__game=days.game)
    rows = (
        violations.values(
            day=F("gaming_day"), table_code=F("table__code"), game=F("table__game"), currency=F("table__currency")
        )
        .order_by("day", "currency", bytewise("table__code"))
        .annotate(open=Count("pk"))
    )
    return (((item["day"], item["currency"], item["table_code"]), 2, item) for item in rows.iterator(chunk_size=CHUNK))


def _paytable_edges(paytable_id: int, decks: int, cache: dict[tuple[int, int], dict[str, tuple[Decimal, Decimal]]]):
    """Per bet (house edge, variance per unit bet) of that paytable version for a shoe of `decks`
    decks, exact from the engine (`pit.paytables.selectors.paytable_edges`, cached per deck count)."""
    key = (paytable_id, decks)
    if key not in cache:
        rules = PaytableConfiguration.objects.values_list("rules", flat=True).get(pk=paytable_id)
        cache[key] = paytable_edges(rules=rules, decks=decks)
    return cache[key]


def table_result_rows(days: TableDays) -> Iterator[dict[str, Any]]:
    """One row per gaming day and table: coups, handle per bet, payouts, commission, house win, hold,
    theoretical win and how many standard deviations the actual win lies from it, open violations.

    House win is `pit.game.house_win` summed: stakes lost - payouts + commission owed, all in SQL.
    Theoretical win is handle x the house edge of each bet under the paytable version each coup was
    settled under, for the deck count of its shoe; the standard deviation is sqrt(sum of stake^2 x
    the bet's variance per unit), the variance also for that deck count.
    """
    wagers = (
        coup_scope(wagers_standing(), "coup__", days)
        .values(
            day=F("coup__gaming_day"),
            table_currency=F("coup__shoe__table__currency"),
            table=F("coup__shoe__table__code"),
            paytable=F("coup__paytable_id"),
            decks=F("coup__shoe__decks"),
            bet_type=F("bet"),
        )
        .order_by("day", "table_currency", bytewise("coup__shoe__table__code"), "paytable", "decks", "bet_type")
        .annotate(
            wagers=Count("pk"),
            **wager_money_sums(),
            **mispay_sums(),
            squares=sum_of_squares("amount_minor"),
        )
    )
    coups = (
        coup_scope(Coup.objects.all(), "", days)
        .values(
            day=F("gaming_day"),
            table=F("shoe__table__code"),
            game=F("shoe__table__game"),
            currency=F("shoe__table__currency"),
            table_id=F("shoe__table_id"),
        )
        .order_by("day", "currency", bytewise("shoe__table__code"))
        .annotate(coups=Count("pk"))
    )
    # In the order of the report's levels, (gaming day, currency), then by table: a subtotal closes
    # exactly the rows of its key however the table codes of two currencies interleave.
    # Reversals of accruals on wagers that stand: a correction's or a void's reversals are of wagers
    # that no longer stand, whose commission `wagers_standing` leaves out already.
    reversals = (
        coup_scope(
            CommissionEntry.objects.filter(
                standing_condition("reverses__wager__"),
                kind=EntryKind.REVERSAL,
                reverses__kind=EntryKind.ACCRUED,
            ),
            "reverses__wager__coup__",
            days,
        )
        .values(
            day=F("reverses__wager__coup__gaming_day"),
            table_currency=F("shoe__table__currency"),
            table=F("shoe__table__code"),
        )
        .order_by("day", "table_currency", bytewise("shoe__table__code"))
        .annotate(reversed=Sum("amount_minor"))
    )
    streams = (
        (((item["day"], item["currency"], item["table"]), 0, item) for item in coups.iterator(chunk_size=CHUNK)),
        (
            ((item["day"], item["table_currency"], item["table"]), 3, item)
            for item in reversals.iterator(chunk_size=CHUNK)
        ),
        (((item["day"], item["currency"], item["table"]), 4, item) for item in _deducted_stream(days)),
        (((item["day"], item["table_currency"], item["table"]), 1, item) for item in wagers.iterator(chunk_size=CHUNK)),
        open_violation_counts(days),
    )
    edges_cache: dict[tuple[int, int], dict[str, tuple[Decimal, Decimal]]] = {}
    merged = heapq.merge(*streams, key=lambda entry: (entry[0], entry[1]))
    for (day, _, table), entries in itertools.groupby(merged, key=lambda entry: entry[0]):
        row = table_result_row(day, table, [item for _, _, item in entries], edges_cache)
        if row is not None:
            yield row


def mispay_sums() -> dict:
    """What the floor reported it paid (the paytable's payout where it reported nothing), and how
    much more or less than the paytable that was, summed apart: an overpayment is never netted
    against an underpayment."""
    paid = Coalesce("paid_minor", "payout_minor")
    over = Case(When(paid_minor__gt=F("payout_minor"), then=F("paid_minor") - F("payout_minor")), default=Value(0))
    under = Case(When(paid_minor__lt=F("payout_minor"), then=F("payout_minor") - F("paid_minor")), default=Value(0))
    return {
        "paid": Coalesce(Sum(paid), 0),
        "overpaid": Coalesce(Sum(over, output_field=BigIntegerField()), 0),
        "underpaid": Coalesce(Sum(under, output_field=BigIntegerField()), 0),
    }


def _deducted_stream(days: TableDays) -> Iterator[dict[str, Any]]:
    """Per winning wager at a table whose paytable deducts commission from the payout: the
    commission deducted, settled again by the engine from the coup's cards (the wager row stores
    the net payout only). Rows in (day, currency, table) order, like the other streams."""
    deducting = [
        pk
        for pk, rules in PaytableConfiguration.objects.values_list("pk", "rules")
        if rules.get("commission_mode") == game.CommissionMode.DEDUCTED
    ]
    if not deducting:
        return
    wagers = (
        coup_scope(
            wagers_standing(Wager.objects.filter(coup__paytable_id__in=deducting, result=WagerResult.WIN)),
            "coup__",
            days,
        )
        .order_by("coup__gaming_day", "currency", bytewise("coup__shoe__table__code"), "pk")
        .values_list(
            "coup__gaming_day",
            "currency",
            "coup__shoe__table__code",
            "coup__paytable_id",
            "bet",
            "amount_minor",
            "coup__player_cards",
            "coup__banker_cards",
        )
    )
    paytables: dict[int, game.Paytable] = {}
    for day, currency, table, paytable_id, bet, amount, player, banker in wagers.iterator(chunk_size=CHUNK):
        if paytable_id not in paytables:
            paytables[paytable_id] = engine_paytable(PaytableConfiguration.objects.get(pk=paytable_id))
        evaluation = game.evaluate(game.Coup(player=player, banker=banker))
        settlement = game.settle(
            paytables[paytable_id], bet, from_minor(amount, currency), evaluation, unit=settlement_unit(currency)
        )
        yield {"day": day, "currency": currency, "table": table, "deducted": to_minor(settlement.deducted, currency)}


def table_result_row(day: dt.date, table: str, items: list[dict], edges_cache) -> dict[str, Any] | None:
    coups = open_violations = wagers = 0
    handle: dict[str, int] = dict.fromkeys((*HANDLE_BETS, "other"), 0)
    payouts = commission = lost = paid = overpaid = underpaid = reversed_ = deducted = 0
    theoretical = Decimal(0)
    variance = Decimal(0)
    game = currency = table_id = None
    for item in items:
        table_id = table_id or item.get("table_id")
        game = game or item.get("game")
        currency = currency or item.get("currency")
        if "coups" in item:
            coups += item["coups"]
        elif "open" in item:
            open_violations += item["open"]
        elif "reversed" in item:
            reversed_ += item["reversed"]  # reversal entries are negative
        elif "deducted" in item:
            deducted += item["deducted"]
        else:
            wagers += item["wagers"]
            handle[item["bet_type"] if item["bet_type"] in HANDLE_BETS else "other"] += item["handle"]
            payouts += item["payouts"]
            commission += item["commission"]
            lost += item["lost"]
            paid += item["paid"]
            overpaid += item["overpaid"]
            underpaid += item["underpaid"]
            edge, unit_variance = _paytable_edges(item["paytable"], item["decks"], edges_cache).get(
                item["bet_type"], (Decimal(0), Decimal(0))
            )
            theoretical += Decimal(item["handle"]) * edge
            variance += Decimal(item["squares"]) * unit_variance
    if currency is None:
        # Only wagers: the currency comes from the table of the coups (always present with wagers).
        return None
    scale = Decimal(1).scaleb(-exponent(currency))
    total_handle = sum(handle.values())
    # Commission as the ledger stands (accruals net of their reversals) plus what was deducted from
    # payouts, shown as commission: payouts are the paytable's before any commission.
    commission += reversed_ + deducted
    payouts += deducted
    win = house_win_minor({"lost": lost, "payouts": payouts, "commission": commission})
    theoretical_major = (theoretical * scale).quantize(scale)
    # Minor units squared: the standard deviation in major units is sqrt(variance) x scale.
    deviation = (decimal_sqrt(variance) * scale).quantize(scale) if variance else Decimal(0).quantize(scale)
    actual = from_minor(win, currency)
    row = {
        "gaming_day": day,
        "table": table,
        "game": None if game is None else GAME_NAMES.get(game, game),
        "currency": currency,
        "coups": coups,
        "wagers": wagers,
        **{f"handle_{bet}": from_minor(minor, currency) for bet, minor in handle.items()},
        "handle": from_minor(total_handle, currency),
        "payouts": from_minor(payouts, currency),
        "paid": from_minor(paid, currency),
        "overpaid": from_minor(overpaid, currency),
        "underpaid": from_minor(underpaid, currency),
        "commission": from_minor(commission, currency),
        "commission_reversed": from_minor(-reversed_, currency),
        "commission_deducted": from_minor(deducted, currency),
        "lost": from_minor(lost, currency),
        "house_win": actual,
        "hold": (Decimal(win) / Decimal(total_handle)) if total_handle else None,
        "theoretical_win": theoretical_major,
        "win_minus_theoretical": actual - theoretical_major,
        "standard_deviation": deviation,
        "variance_major": (variance * scale * scale) if variance else Decimal(0),
        "deviations": ((actual - theoretical_major) / decimal_sqrt(variance * scale * scale)) if variance else None,
        "open_violations": open_violations,
        "table_id": table_id,  # for the link on screen, not a column
    }
    return row
