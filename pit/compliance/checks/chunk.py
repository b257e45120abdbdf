"""One chunk of shoes through the rule checks: read in a few queries, judged, the difference
written, and the same reads handed to game protection."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import NamedTuple

from django.db.models import BooleanField, ExpressionWrapper, F, Q

from pit.compliance.checks.context import RunContext
from pit.compliance.checks.draw import draw_findings
from pit.compliance.checks.findings import COUP_CHECK, CheckTotals, Finding, findings_write
from pit.compliance.checks.integrity import ShoeIntegrity
from pit.compliance.checks.wagers import ledger_commission, wager_findings
from pit.compliance.models import RuleViolation
from pit.compliance.persistence import chunk_wagers
from pit.core.collection import collection_paused
from pit.core.rows import AnyOf, values_rows
from pit.protection.checks.rows import WagerRow
from pit.protection.checks.runner import ProtectionRun
from pit.shoes.models import Coup, Shoe
from pit.shoes.selectors import Standing


class CoupRow(NamedTuple):
    """A coup as the rule checks read it: game protection's COUP_COLUMNS first (the rows are handed
    over as read), then the rule checks' own."""

    pk: int
    player_cards: list[str]
    banker_cards: list[str]
    gaming_day: dt.date
    dealt_at: dt.datetime
    paytable_id: int
    shoe_id: int
    number: int
    after_close: bool
    reported_winner: str
    recorded_at: dt.datetime
    is_selected: bool


# A chunk allocates some 100,000 rows and objects and frees them all at its end: with the cyclic
# collector on, its allocation thresholds started some 400 collections a sweep (20,000 coups), a
# fifth of the sweep's CPU. Paused per chunk, so what a chunk leaves in cycles is collected after it.
@collection_paused()
def chunk_check(
    shoe_ids: list[int],
    *,
    selected: Q,
    context: RunContext,
    protection: ProtectionRun,
    sequences: str = ProtectionRun.INLINE,
) -> CheckTotals:
    shoes = {
        row["id"]: row
        for row in Shoe.objects.filter(AnyOf(F("pk"), shoe_ids)).values(
            "id", "table_id", "sequence", "decks", "burn_cards"
        )
    }
    coups_by_shoe: dict[int, list[CoupRow]] = defaultdict(list)
    context.dealt_at = dealt_at = {}  # this chunk's coups only
    selected_ids: set[int] = set()
    paytable_ids: set[int] = set()
    # Every coup of the shoe is read (integrity counts from the first card); those selected are judged.
    shoe_of: dict[int, int] = {}  # coup -> shoe: the wagers' read joins nothing
    for coup in map(
        CoupRow._make,
        values_rows(
            Coup.objects.filter(AnyOf(F("shoe_id"), shoe_ids))
            .annotate(
                is_selected=ExpressionWrapper(selected, output_field=BooleanField()),
                # Dealt after its shoe was closed, or recorded after the close was (compared in the
                # database: no timestamps to decode for a year of coups). Recorded time is compared
                # with the close's recorded time, not its dealt time: a floor replaying hours after an
                # outage records its coups, then the close, all after the shuffle it reports.
                after_close=ExpressionWrapper(
                    Q(dealt_at__gt=F("shoe__closed_at")) | Q(recorded_at__gt=F("shoe__close_recorded_at")),
                    output_field=BooleanField(),
                ),
            )
            .order_by("shoe_id", "number", "pk")
            .values_list(*CoupRow._fields)
        ),
    ):
        coups_by_shoe[coup.shoe_id].append(coup)
        dealt_at[coup.pk] = coup.dealt_at
        shoe_of[coup.pk] = coup.shoe_id
        if coup.is_selected:
            selected_ids.add(coup.pk)
            paytable_ids.add(coup.paytable_id)
    # Every wager of the chunk's coups, read once for both: protection adds up all of them (as
    # recorded), the rule checks judge those of the selected coups that stand after corrections and
    # voids (the replaced versions' findings clear).
    wagers_by_coup: dict[int, list[WagerRow]] = defaultdict(list)
    wagers_by_shoe: dict[int, list[WagerRow]] = defaultdict(list)
    days = [coup.gaming_day for coups in coups_by_shoe.values() for coup in coups]
    standing = Standing(shoe_of)  # the chunk's corrections, read once
    for wager in chunk_wagers(shoe_of, min(days), max(days)) if shoe_of else ():
        coup_id = wager.coup_id
        wagers_by_shoe[shoe_of[coup_id]].append(wager)
        if coup_id in selected_ids and standing(coup_id, wager.correction_id):
            wagers_by_coup[coup_id].append(wager)
    ledger = ledger_commission(shoe_ids)
    earlier = {
        fingerprint: (pk, coup_id, cleared_at, message)
        for pk, fingerprint, coup_id, cleared_at, message in values_rows(
            RuleViolation.objects.filter(AnyOf(F("shoe_id"), shoe_ids), found_by=COUP_CHECK).values_list(
                "pk", "fingerprint", "coup_id", "cleared_at", "message"
            )
        )
    }
    context.load_tables({shoe["table_id"] for shoe in shoes.values()})
    context.load_paytables(paytable_ids)

    found: dict[str, tuple[Finding, dict]] = {}
    for shoe_id in shoe_ids:
        shoe = shoes[shoe_id]
        judged = shoe_findings(shoe, coups_by_shoe[shoe_id], selected_ids, wagers_by_coup, ledger, context)
        for coup, findings in judged:
            where = {"table_id": shoe["table_id"], "shoe_id": shoe_id, "gaming_day": coup.gaming_day}
            for finding in findings:
                found.setdefault(finding.fingerprint, (finding, where))
    done = findings_write(found, earlier, selected_ids, shoes=len(shoe_ids))
    protection.shoes(shoe_ids, coups_by_shoe, wagers_by_shoe, sequences=sequences)
    return done


def shoe_findings(
    shoe: dict,
    coups: list[CoupRow],
    selected_ids: set[int],
    wagers_by_coup: dict[int, list[WagerRow]],
    ledger: dict[int, int],
    context: RunContext,
):
    """(coup row, findings) for each selected coup of one shoe, judged in number order: its shoe
    integrity, its draw and winner, then its wagers."""
    integrity = ShoeIntegrity(shoe, coups)
    for index, coup in enumerate(coups):
        pk, player_codes, banker_codes, number = coup.pk, coup.player_cards, coup.banker_cards, coup.number
        integrity.advance(player_codes, banker_codes, number)
        if pk not in selected_ids:
            continue
        codes = [*player_codes, *banker_codes]
        findings = integrity.findings(index, pk, codes, number, coup.after_close, coup.recorded_at, context)
        drawn = draw_findings(pk, player_codes, banker_codes, coup.reported_winner, context)
        if drawn is not None:
            draw, evaluation = drawn
            findings.extend(draw)
            wagers = wagers_by_coup.get(pk, ())
            if wagers and evaluation is not None:
                findings.extend(
                    wager_findings(pk, shoe["table_id"], coup.paytable_id, wagers, ledger, evaluation, context)
                )
        yield coup, findings
