"""The bulk sweep (rule checks read a chunk of shoes at a time, game protection a chunk of shoes and a
table's days at a time) finds exactly what the shoe-by-shoe sweep it replaced found, on simulated
pits with every kind of fault dealt in: the same findings, word for word, on the same coups, wagers
and seats, and the same derived index (shingles, side-bet expectations)."""

import pytest
from django.db import transaction

from pit.compliance import checks
from pit.compliance.models import RuleViolation
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.protection.models import CardShingle, SideBetExpectation
from pit.shoes.models import Coup
from tests.compliance import reference_checks
from tests.floor.conftest import NOW, pit_tables  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow

FAULTS = {
    "wrong_draw": 0.04,
    "misreported_winner": 0.04,
    "wrong_payout": 0.05,
    "foreign_card": 0.05,
    "replayed_shoe": 1.0,
    "side_bet_counter": 1.0,
}


def _findings():
    return sorted(
        RuleViolation.objects.values_list(
            "found_by",
            "fingerprint",
            "code",
            "message",
            "severity",
            "table_id",
            "shoe_id",
            "coup_id",
            "wager_id",
            "seat",
            "gaming_day",
            "cleared_at",
        )
    )


def _index():
    return (
        sorted(CardShingle.objects.values_list("shoe_id", "position", "digest", "gaming_day", "coup_id", "table_id")),
        sorted(SideBetExpectation.objects.values_list("coup_id", "bet", "expectation", "positive")),
    )


def _run(*steps):
    """Run the steps, note what they recorded, and roll it all back (findings are insert-only)."""
    with transaction.atomic():
        for step in steps:
            step()
        found = _findings(), _index()
        transaction.set_rollback(True)
    return found


@pytest.fixture
def dealt(pit_tables):  # noqa: F811 (the fixture imported above)
    """Two days of three shoes at every demo table (the EZ table turns side bets positive), faulty.
    The checks owed after each commit are not run (no on-commit callbacks in a test's transaction)."""
    result = simulate(
        ServicesFloorClient(),
        tables=[table.code for table in pit_tables],
        seed=16,
        days=2,
        shoes_per_day=3,
        faults=FAULTS,
        now=NOW,
    )
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))
    return result, days[0], days[-1]


def test_the_bulk_sweep_finds_what_the_shoe_by_shoe_sweep_found(dealt, settings):
    settings.PIT_PROTECTION_MAX_COUPS_PER_HOUR = 40  # the simulator deals fast enough to trip it somewhere
    _, first, last = dealt
    totals = {}

    def sweep(module, name):
        return lambda: totals.setdefault(name, []).append(module.coups_sweep(first_day=first, last_day=last))

    expected, expected_index = _run(sweep(reference_checks, "reference"), sweep(reference_checks, "reference"))
    codes = {row[2] for row in expected}
    assert {
        "reported_winner_mismatch",
        "payout_mismatch",
        "card_over_capacity",
        "shoe_sequence_repeat",
        "side_bet_advantage_play",
        "coup_rate_high",
    } <= codes, codes
    assert {"banker_extra_card", "banker_missing_card", "player_extra_card"} & codes
    # The first pass, then the nightly re-run (nothing new, nothing cleared, nothing reworded).
    assert _run(sweep(checks, "bulk"), sweep(checks, "bulk")) == (expected, expected_index)
    for bulk, reference in zip(totals["bulk"], totals["reference"], strict=True):
        assert (bulk.coups, bulk.holding, bulk.created, bulk.cleared, bulk.restored, dict(bulk.codes)) == (
            reference.coups,
            reference.holding,
            reference.created,
            reference.cleared,
            reference.restored,
            dict(reference.codes),
        )
    assert totals["bulk"][1].created == totals["bulk"][1].cleared == 0


def test_checking_coups_as_they_are_posted_finds_what_it_found_before(dealt):
    """The urgent path (a few coups at a time, shoe after shoe, the index growing as they come), then
    the sweep over what it recorded."""
    result, first, last = dealt
    batches = [result.coup_ids[start : start + 7] for start in range(0, len(result.coup_ids), 7)]

    def posted(module):
        def run():
            for batch in batches:
                module.coups_check(coup_ids=batch)

        return run

    expected = _run(posted(reference_checks))
    assert expected[0]
    assert _run(posted(checks)) == expected
    assert _run(posted(checks), lambda: checks.coups_sweep(first_day=first, last_day=last)) == _run(
        posted(reference_checks), lambda: reference_checks.coups_sweep(first_day=first, last_day=last)
    )
