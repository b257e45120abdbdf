"""Game protection over dealers: `dealer_error_rate`, a dealer whose coups carry dealing or paying
errors far above the rate the pit accepts (and, on the same beat, `dealer_rotation_overdue`: a
rotation that ran past a shift, `pit.dealers.services.rotations_overdue_record`).

Per dealer and gaming day (the dealer of a coup is the one whose rotation was running at its table,
`pit.dealers.selectors`): n coups dealt, k violations of those coups with a code in
`DEALER_ERROR_CODES` that still hold and that no pit boss put down to a device (card reader, bet
recognition) or to neither. A dealer erring at the accepted rate r = PIT_PROTECTION_DEALER_ERRORS_PER_1000
makes Poisson(r x n / 1000) errors; if the chance of k or more is below
PIT_PROTECTION_DEALER_ERROR_P_VALUE it is a finding, once per dealer and gaming day (its evidence
updated as the day goes on; cleared if it no longer holds, e.g. after errors are put down to a
device). Run by Celery beat for the current and the previous gaming day, and by `manage.py simulate
--eager` for the days it played.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction

from pit.compliance.models import RuleViolation
from pit.compliance.services import violation_record, violations_clear_missing
from pit.core.gaming_day import gaming_day_for
from pit.dealers.errors import DEALER_ERROR_CODES
from pit.dealers.selectors import dealer_days
from pit.dealers.services import rotations_overdue_record
from pit.game import counting
from pit.shoes.models import Coup
from pit.tables.models import Table

DEALER_ERROR_CHECK = "game_protection"
# What a dealer does wrong at the table: the dealer's codes of the one classification the dealers'
# figures read too (`pit.dealers.errors`); machine faults and the player's or the count's are apart.
EVIDENCE_SHOWN = 12


def dealer_error_rates_check(*, first_day: dt.date | None = None, last_day: dt.date | None = None) -> int:
    """Judge every dealer who dealt on each gaming day from `first_day` to `last_day` (default: the
    previous and the current gaming day, as beat runs it). Returns the number of findings that hold."""
    today = gaming_day_for(dt.datetime.now(dt.UTC))
    last_day = last_day or today
    first_day = first_day or last_day - dt.timedelta(days=1)
    holding = 0
    day = first_day
    while day <= last_day:
        with transaction.atomic():
            rotations_overdue_record(day=day)
            holding += _dealer_errors_day(day)
        day += dt.timedelta(days=1)
    return holding


def _dealer_errors_day(day: dt.date) -> int:
    per_thousand = settings.PIT_PROTECTION_DEALER_ERRORS_PER_1000
    threshold = settings.PIT_PROTECTION_DEALER_ERROR_P_VALUE
    found: set[str] = set()
    for figures in dealer_days(day=day, codes=DEALER_ERROR_CODES):
        errors = len(figures.errors)
        p_value = counting.poisson_tail(per_thousand * figures.coups / 1000, errors)
        if not errors or p_value >= threshold:
            continue
        coups = Coup.objects.select_related("shoe").in_bulk([coup_id for _, coup_id, _, _ in figures.errors])
        tables = Table.objects.in_bulk({table_id for _, _, table_id, _ in figures.errors})
        evidence = "; ".join(
            f"{code} at table {tables[table_id].code} shoe {coups[coup_id].shoe.sequence} coup {coups[coup_id].number}"
            for _, coup_id, table_id, code in figures.errors[:EVIDENCE_SHOWN]
        ) + ("" if errors <= EVIDENCE_SHOWN else f"; and {errors - EVIDENCE_SHOWN} more")
        finding = counting.dealer_error_rate(
            figures.dealer.code, str(day), errors, figures.coups, per_thousand, p_value, evidence
        )
        fingerprint = f"dealer_error_rate:dealer{figures.dealer.pk}:{day}"
        _, last_coup_id, last_table_id, _ = figures.errors[-1]
        last = coups[last_coup_id]
        recorded = violation_record(
            finding=finding,
            fingerprint=fingerprint,
            table=tables[last_table_id],
            shoe=last.shoe,
            coup=last,
            gaming_day=day,
            found_by=DEALER_ERROR_CHECK,
        )
        if recorded.message != finding.message:  # more coups or errors of the day: the evidence grows
            RuleViolation.objects.filter(pk=recorded.pk).update(message=finding.message)
        found.add(fingerprint)
    violations_clear_missing(
        scope=RuleViolation.objects.filter(code="dealer_error_rate", gaming_day=day),
        found_by=DEALER_ERROR_CHECK,
        fingerprints_found=found,
    )
    return len(found)
