"""The wagers of a coup as they stand after corrections and voids: table limits and increments, a
seat on both Player and Banker, the payout and the ledger's commission against the settlement."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import F

from pit import game
from pit.compliance.checks.context import CACHE_LIMIT, RunContext
from pit.compliance.checks.findings import Finding
from pit.core.rows import AnyOf, values_rows
from pit.ledger.models import CommissionEntry, EntryKind
from pit.protection.checks.rows import WagerRow

UNDER_MINIMUM = "wager_under_minimum"


def wager_findings(
    pk: int,
    table_id: int,
    paytable_id: int,
    wagers: list[WagerRow],
    ledger: dict[int, int],
    evaluation: game.Evaluation,
    context: RunContext,
) -> list[Finding]:
    """The findings of one coup's standing wagers (`ledger`: the commission charged per wager)."""
    findings = []
    facts = context.relevant_facts(paytable_id, evaluation.facts)
    version, limits = context.limits_at(table_id, context.dealt_at.get(pk))
    # A wager found clean is clean whatever its seat (limits, increments and settlement do not look
    # at the seat): remembered by everything else it was judged on, one lookup per clean wager.
    clean = context.clean_wagers
    sides: dict[int, dict[str, tuple[int, str]]] = {}
    for wager in wagers:
        wager_id, seat, bet, currency = wager.pk, wager.seat, wager.bet, wager.currency
        amount_minor, paid_minor = wager.amount_minor, wager.paid_minor
        if bet == "player" or bet == "banker":
            sides.setdefault(seat, {})[bet] = (amount_minor, currency)
        charged = ledger.get(wager_id, 0)
        key = (table_id, version, paytable_id, facts, bet, currency, amount_minor, paid_minor, charged)
        if key in clean:
            continue
        wrong = context.wager_findings(
            table_id=table_id,
            paytable_id=paytable_id,
            seat=seat,
            bet=bet,
            currency=currency,
            amount_minor=amount_minor,
            paid_minor=paid_minor,
            charged_minor=charged,
            evaluation=evaluation,
            facts=facts,
            version=version,
            limits=limits,
        )
        if wrong and any(finding.code == UNDER_MINIMUM for finding in wrong):
            moment = context.dealt_at.get(pk)
            if context.grandfathered(
                table_id=table_id, seat=seat, bet=bet, amount_minor=amount_minor, currency=currency, moment=moment
            ):
                wrong = tuple(finding for finding in wrong if finding.code != UNDER_MINIMUM)
                if not wrong:
                    continue  # clean for this seat only: not remembered as clean
        if not wrong:
            if len(clean) >= CACHE_LIMIT:
                clean.clear()
            clean.add(key)
            continue
        for finding in wrong:
            findings.append(Finding(f"{finding.code}:wager{wager_id}", finding, pk, wager_id, seat))
    # A seat on both Player and Banker: judged by the engine with no limits, so only that rule can
    # speak (with no limits and no increments, a seat holding other bets breaks no rule: not asked).
    for seat, bets in sides.items():
        if len(bets) > 1:
            lines = [
                game.WagerLine(seat=seat, bet=bet, amount=context.money(amount_minor, currency))
                for bet, (amount_minor, currency) in bets.items()
            ]
            for finding in game.check_wager_limits(game.TableLimits(), lines):
                findings.append(Finding(f"{finding.code}:coup{pk}:seat{seat}", finding, pk, None, seat))
    return findings


def ledger_commission(shoe_ids: list[int]) -> dict[int, int]:
    """The ledger's commission per wager of the shoes: its accrual, net of any reversal of that
    accrual. One read of the shoes' accruals and reversals (no ordering, no join); an accrual a
    reversal names that is not among them is read by id."""
    ledger: dict[int, int] = defaultdict(int)
    wager_of: dict[int, int] = {}  # accrual -> its wager
    reversals: list[tuple[int, int]] = []  # (entry reversed, amount)
    for pk, kind, wager_id, reverses_id, amount in values_rows(
        CommissionEntry.objects.filter(AnyOf(F("shoe_id"), shoe_ids), kind__in=(EntryKind.ACCRUED, EntryKind.REVERSAL))
        .order_by()
        .values_list("pk", "kind", "wager_id", "reverses_id", "amount_minor")
    ):
        if kind == EntryKind.ACCRUED:
            ledger[wager_id] += amount
            wager_of[pk] = wager_id
        else:
            reversals.append((reverses_id, amount))
    elsewhere = {reverses_id for reverses_id, _ in reversals} - wager_of.keys()
    if elsewhere:
        accruals = CommissionEntry.objects.filter(pk__in=elsewhere, kind=EntryKind.ACCRUED).order_by()
        wager_of.update(accruals.values_list("pk", "wager_id"))
    for reverses_id, amount in reversals:
        if reverses_id in wager_of:  # a reversal of an accrual (not of a collection)
            ledger[wager_of[reverses_id]] += amount
    return ledger
