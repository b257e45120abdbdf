"""Game protection against the simulated floor: every protection fault the simulator injects (a
replayed shoe, a hot table, a silent reader, a table dealing faster than a dealer can, a dealer who
errs) is found where it was made, after the checks ran as production runs them, and nowhere else."""

import datetime as dt
from collections import Counter

import pytest
from django.conf import settings
from django.utils import timezone

from pit.compliance.checks import coups_sweep
from pit.compliance.models import RuleViolation
from pit.dealers.models import Dealer, DealerRotation
from pit.dealers.selectors import coup_dealers, dealer_statistics
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import FAULT_CODES, deal_live, simulate
from pit.protection.dealer_errors import DEALER_ERROR_CODES, dealer_error_rates_check
from pit.protection.selectors import ALARM_CODES
from pit.protection.services import stale_feeds_check
from pit.shoes.models import Coup, Shoe, ShoeStatus
from tests.floor.conftest import NOW

PROTECTION_CODES = set(ALARM_CODES) | {"side_bet_advantage_play"}
TABLES = ["BB1", "BB2", "MD1", "MN1"]
INJECTED = {"replayed_shoe": 1.0, "hot_table": 0.5, "silent_reader": 0.5, "fast_table": 0.5, "erring_dealer": 0.15}


def production_checks(days):
    """What production runs besides the check after each commit: beat's stale-feed look (here once
    the silence is older than the limit), beat's dealer judgement, and the nightly sweep."""
    stale_feeds_check(now=timezone.now() + dt.timedelta(minutes=settings.PIT_PROTECTION_STALE_FEED_MINUTES + 1))
    dealer_error_rates_check(first_day=min(days), last_day=max(days))
    coups_sweep(first_day=min(days), last_day=max(days))


def found(fault) -> bool:
    violations = RuleViolation.objects.filter(code=fault.code, cleared_at__isnull=True)
    if fault.kind == "replayed_shoe":  # within the first three coups of the replay
        return violations.filter(shoe_id=fault.shoe_id, coup__number__lte=3).exists()
    if fault.kind == "hot_table":  # the house losing far beyond chance at that table
        return violations.filter(table__code=fault.table, message__contains="the house won -").exists()
    if fault.kind == "silent_reader":  # the shoe left dealing, after the last coup heard
        return violations.filter(shoe_id=fault.shoe_id, coup_id=fault.coup_id).exists()
    if fault.kind == "fast_table":
        return violations.filter(table__code=fault.table, gaming_day=fault.gaming_day).exists()
    if fault.kind == "erring_dealer":
        dealer = Dealer.objects.get(code=fault.dealer)
        return violations.filter(fingerprint__startswith=f"dealer_error_rate:dealer{dealer.pk}:").exists()
    found = violations.filter(coup_id=fault.coup_id)  # the erring dealer's mistakes, coup by coup
    return (found.filter(seat=fault.seat) if fault.seat is not None else found).exists()


@pytest.mark.django_db
def test_every_protection_injection_is_found_where_it_was_made_and_nowhere_else(
    pit_tables, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # the check after each commit, as live
        result = simulate(
            ServicesFloorClient(), tables=TABLES, seed=4, now=NOW, shoes_per_day=2, faults=INJECTED, dealers=5
        )
    days = set(Coup.objects.values_list("gaming_day", flat=True))
    production_checks(days)

    by_kind: dict[str, list] = {}
    for fault in result.faults:
        by_kind.setdefault(fault.kind, []).append(fault)
    # The seed picks some tables for each per-table injection and leaves others honest.
    for kind in ("hot_table", "silent_reader", "fast_table"):
        assert 0 < len(by_kind.get(kind, [])) < len(TABLES), (kind, by_kind.get(kind))
    assert len(by_kind["erring_dealer"]) == 1
    assert len(by_kind["replayed_shoe"]) == Shoe.objects.count() - len(TABLES)  # every shoe after the first
    assert {fault.code for fault in result.faults} <= set(FAULT_CODES.values()) | set(DEALER_ERROR_CODES)

    missed = [str(fault) for fault in result.faults if not found(fault)]
    assert missed == []

    # Nowhere else: every protection finding is at a table (or of a dealer) where one was injected.
    expected = {(fault.code, fault.table) for fault in result.faults if fault.code in PROTECTION_CODES}
    recorded = RuleViolation.objects.filter(code__in=PROTECTION_CODES, cleared_at__isnull=True)
    extra = [
        (v.code, v.table.code, v.message[:80])
        for v in recorded
        if (v.code, v.table.code) not in expected and v.code != "dealer_error_rate"
    ]
    assert extra == []
    [erring] = by_kind["erring_dealer"]
    flagged = recorded.filter(code="dealer_error_rate")
    assert {v.message.split()[1] for v in flagged} == {erring.dealer}
    silent_shoes = {fault.shoe_id for fault in by_kind["silent_reader"]}
    assert set(Shoe.objects.filter(status=ShoeStatus.DEALING).values_list("pk", flat=True)) == silent_shoes
    assert set(recorded.filter(code="stale_feed").values_list("shoe_id", flat=True)) == silent_shoes

    # Every coup has its dealer, and dealer statistics charge the erring dealer's mistakes to them.
    dealt_by = coup_dealers(Coup.objects.all())
    assert None not in dealt_by.values()
    assert DealerRotation.objects.filter(dealer__isnull=True).count() == len(TABLES) - len(silent_shoes)
    mistakes = [f for f in result.faults if f.kind in ("wrong_draw", "wrong_payout")]
    assert mistakes and {f.dealer for f in mistakes} == {erring.dealer}
    figures = {f.dealer.code: f for f in dealer_statistics(first_day=min(days), last_day=max(days))}
    assert set(figures) == {f"SIM0{n}" for n in range(1, 6)}
    errors = {code: sum(f.errors[c] for c in DEALER_ERROR_CODES) for code, f in figures.items()}
    assert errors == {code: (len(mistakes) if code == erring.dealer else 0) for code in figures}
    assert Counter(f.code for f in mistakes) == Counter(
        {code: count for code, count in figures[erring.dealer].errors.items() if code in DEALER_ERROR_CODES}
    )


@pytest.mark.django_db
def test_live_dealing_rotates_dealers_and_a_silent_reader_stops_its_table(
    pit_tables, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        result = deal_live(
            ServicesFloorClient(),
            tables=["BB1", "MD1"],
            seed=2,
            interval=0,
            coups=150,
            sleep=lambda _: None,
            faults={"silent_reader": 0.5},
            dealers=3,
        )
    [silent] = result.faults
    assert silent.kind == "silent_reader" and silent.dealer in {"SIM01", "SIM02", "SIM03"}
    # The silent table sent nothing after the coup logged; the other went on to the end of the run.
    at_silent = Coup.objects.filter(shoe__table__code=silent.table)
    assert at_silent.order_by("-pk").first().pk == silent.coup_id
    assert 20 <= at_silent.count() <= 60 and Coup.objects.count() == 150
    assert Shoe.objects.get(pk=silent.shoe_id).status == ShoeStatus.DEALING
    # Beat looks when the silent table's last coup is over the limit old, and the other's is not yet.
    heard_last = Coup.objects.get(pk=silent.coup_id).recorded_at
    others_last = Coup.objects.order_by("-recorded_at").first().recorded_at
    limit = dt.timedelta(minutes=settings.PIT_PROTECTION_STALE_FEED_MINUTES)
    assert stale_feeds_check(now=heard_last + limit + (others_last - heard_last) / 2) == 1
    flagged = RuleViolation.objects.filter(code="stale_feed")
    assert list(flagged.values_list("shoe_id", "coup_id")) == [(silent.shoe_id, silent.coup_id)]
    assert None not in coup_dealers(Coup.objects.all()).values()
